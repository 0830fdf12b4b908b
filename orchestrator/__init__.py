"""CLI, run records, sandboxes, evaluation runner and reports."""
