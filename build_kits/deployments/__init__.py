"""Deployment manifests (host side only): the defects of each production API profile, as data."""
