"""Maintainer tools that author the retail held-out scenarios (never used at evaluation time)."""
