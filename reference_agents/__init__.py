"""Expert and naive support agents per domain, each materialisable as a valid submission."""

from reference_agents.catalog import materialize_submission, submission_names

__all__ = ["materialize_submission", "submission_names"]
