"""Gateway errors: one status and kind per failure, rendered by each wire in its own error JSON shape."""

from __future__ import annotations

from typing import Literal

Kind = Literal["invalid_request", "authentication", "budget", "permission", "not_found", "rate_limit",
               "provider", "overloaded", "timeout"]


class GatewayError(Exception):
    """A call the gateway refuses or a provider failed; `status` is the HTTP status the client gets."""

    def __init__(self, status: int, kind: Kind, message: str):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message


def from_provider_exception(exc: BaseException) -> GatewayError:
    """Map a provider (litellm) exception to what the client sees; the host's credentials are never blamed
    on the client (a provider 401/403 becomes 502)."""
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else 502
    text = str(getattr(exc, "message", None) or exc).strip() or type(exc).__name__
    message = f"provider error ({type(exc).__name__}, status {status}): {text}"[:2000]
    if status in (400, 404, 413, 422):
        return GatewayError(400, "invalid_request", message)
    if status == 408 or "Timeout" in type(exc).__name__:
        return GatewayError(504, "timeout", message)
    if status == 429:
        return GatewayError(429, "rate_limit", message)
    if status in (503, 529):
        return GatewayError(503, "overloaded", message)
    return GatewayError(502, "provider", message)
