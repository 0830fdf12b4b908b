"""What a wire is (parse a request, render a completion, stream events, shape an error) and SSE framing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Protocol

from ..errors import GatewayError
from ..neutral import ChatCall, Completion


class Wire(Protocol):
    """One API dialect (OpenAI chat, OpenAI Responses, Anthropic Messages)."""

    name: str

    def parse(self, body: dict) -> ChatCall:
        """The neutral call of a request body; GatewayError(400) when it is malformed."""

    def render(self, completion: Completion, call: ChatCall) -> dict:
        """The non-streaming response body."""

    def stream(self, call: ChatCall, events: AsyncIterator) -> AsyncIterator[str]:
        """SSE frames for the neutral events (ending in Finished); a GatewayError raised by `events`
        becomes the wire's in-stream error frame."""

    def error_body(self, err: GatewayError) -> dict:
        """The wire's error JSON."""


def sse(data: dict | str, event: str | None = None) -> str:
    """One server-sent event frame."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (f"event: {event}\n" if event else "") + f"data: {payload}\n\n"


def invalid(message: str) -> GatewayError:
    return GatewayError(400, "invalid_request", message)


def require_model(body: dict) -> str:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise invalid("`model` is required (a model name from the menu)")
    return model


def text_of(content) -> str:
    """The text of string-or-blocks content (any block with a `text` field)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    raise invalid("content must be a string or a list of content blocks")


def pick(body: dict, names: dict[str, str]) -> dict:
    """Copy the present, non-null fields of `body` under their litellm names (`names`: wire → litellm)."""
    return {target: body[source] for source, target in names.items() if body.get(source) is not None}
