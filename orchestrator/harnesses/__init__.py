"""Developer harnesses: who builds the submission. Built-ins now; Claude Code, Codex, OpenCode later."""

from .base import BuildContext, Harness, HarnessError
from .builtin import BUILTIN_HARNESSES

HARNESSES: dict[str, type[Harness]] = dict(BUILTIN_HARNESSES)

__all__ = ["BuildContext", "Harness", "HarnessError", "HARNESSES", "get_harness"]


def get_harness(name: str) -> Harness:
    """Instantiate the harness called `name`; unknown names raise a one-line HarnessError."""
    try:
        return HARNESSES[name]()
    except KeyError:
        raise HarnessError(f"unknown developer {name!r} (available: {', '.join(sorted(HARNESSES))})") from None
