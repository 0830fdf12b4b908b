"""The business record per domain: atomic facts as data, renderers to artifacts, provenance."""
