"""Sandbox backends behind one small interface: start, exec, stream a conversation, copy, stop."""

from .base import AgentSession, Sandbox, SandboxError
from .local import LocalSandbox

__all__ = ["AgentSession", "Sandbox", "SandboxError", "LocalSandbox", "create_sandbox"]


def create_sandbox(kind: str, **options) -> Sandbox:
    """Return the sandbox backend named `kind` (`local` now; `docker` comes with the sandbox issue)."""
    if kind == "local":
        return LocalSandbox(**options)
    raise SandboxError(f"unknown sandbox backend {kind!r} (available: local)")
