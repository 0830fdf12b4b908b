"""The agent seat in an evaluation: one gateway token per conversation on the tier's menu, and what the
episode record keeps of it (credits from the ledger, failures, a clear error when a provider failed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .server import GatewayServer, Seat

MENU_IN_SANDBOX = "/hypertau/menu.json"


@dataclass(frozen=True)
class AgentModels:
    """The agent's access to models: a gateway token per conversation on the tier's menu (and its rule)."""

    gateway: GatewayServer
    run_id: str
    menu_path: Path  # the menu JSON on the host, copied into each sandbox
    models: tuple[str, ...]
    reasoning: str | tuple[str, ...] | None = None

    def open(self, conversation_id: str) -> Seat:
        return self.gateway.open_seat("agent", self.run_id, self.models, conversation_id=conversation_id,
                                      reasoning=self.reasoning)


def gateway_summary(seat: Seat | None) -> dict:
    """Close the conversation's token and summarise its calls (credits from the ledger, failures listed)."""
    if seat is None:
        return {"calls": 0, "errors": 0, "prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0,
                "credits": 0.0, "failures": []}
    totals = seat.close()
    failures = [{k: e[k] for k in ("model", "wire", "status", "http_status", "error")} for e in seat.failures()]
    return {**totals.as_dict(), "failures": failures[:20]}


def provider_error(gateway: dict) -> str | None:
    """A clear episode error when a model provider failed during the conversation (the agent got the
    wire's error JSON; the ledger has each failure)."""
    failed = [f for f in gateway["failures"] if f["status"] == "error"]
    if not failed:
        return None
    first = failed[0]
    return (f"gateway: {len(failed)} model call(s) failed at the provider; first: {first['model']} "
            f"({first['http_status']}): {first['error']}")
