"""Artifact templates of the retail business record (data only)."""
