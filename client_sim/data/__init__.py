"""Data of the client simulator: personas, retrieval settings, synonyms (no code)."""
