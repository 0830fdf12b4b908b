"""A real gateway on a free port with the rate card's routes plus test routes: a provider that raises, one
that fails mid-stream, and a replay script."""

from __future__ import annotations

import itertools
import json

import anthropic
import openai
import pytest

from orchestrator.gateway import GatewayServer, Route, RoutingTable
from orchestrator.gateway.llm import load_litellm

SMALL, LARGE = "mock/northwind-small", "mock/northwind-large"
REPLAY_SCRIPT = [
    {"content": "First scripted answer."},
    {"tool_calls": [{"name": "get_order", "arguments": {"order_id": "W42"}}],
     "usage": {"prompt_tokens": 100, "completion_tokens": 20, "reasoning_tokens": 5}},
    {"content": "Only in conversation c-special.", "conversation": "c-special"},
    {"content": "Last one."},
]


def _register_failing_providers() -> None:
    """`boom/*` raises on every call; `halfway/*` streams one chunk, then raises."""
    litellm = load_litellm()
    from litellm import CustomLLM

    class Boom(CustomLLM):
        async def acompletion(self, *args, **kwargs):
            raise RuntimeError("upstream exploded")

        async def astreaming(self, *args, **kwargs):
            raise RuntimeError("upstream exploded")
            yield  # pragma: no cover

    class Halfway(CustomLLM):
        async def astreaming(self, *args, **kwargs):
            yield {"text": "partial answer", "is_finished": False, "finish_reason": "", "usage": None, "index": 0,
                   "tool_use": None}
            raise RuntimeError("connection reset by provider")

    litellm.custom_provider_map = [p for p in litellm.custom_provider_map if p["provider"] not in ("boom", "halfway")]
    litellm.custom_provider_map += [{"provider": "boom", "custom_handler": Boom()},
                                    {"provider": "halfway", "custom_handler": Halfway()}]


_conversations = itertools.count()


@pytest.fixture(scope="session")
def gateway(tmp_path_factory):
    root = tmp_path_factory.mktemp("gateway")
    script = root / "script.jsonl"
    script.write_text("".join(json.dumps(e) + "\n" for e in REPLAY_SCRIPT))
    _register_failing_providers()
    routes = RoutingTable.from_rate_card(extra=[
        Route("test/boom", "boom/x", in_rate=1.0, out_rate=2.0, provider="boom", offline=True),
        Route("test/halfway", "halfway/x", in_rate=1.0, out_rate=2.0, provider="halfway", offline=True),
        Route("test/replay", "replay/script", in_rate=1.0, out_rate=4.0, provider="replay", offline=True,
              api_base=str(script)),
    ])
    with GatewayServer(root / "gateway_ledger.jsonl", routes=routes, warm_up=False) as server:
        yield server


@pytest.fixture
def seat(gateway):
    """Mint an agent-seat token on the mock models (override anything with kwargs)."""
    def make(seat: str = "agent", models=(SMALL, LARGE), **scope):
        if seat == "agent":
            scope.setdefault("conversation_id", f"conv-{next(_conversations)}")
        return gateway.open_seat(seat, scope.pop("run_id", "run-test"), models, **scope)

    return make


@pytest.fixture
def clients(gateway):
    """`clients(token)` → (openai.OpenAI, anthropic.Anthropic), no SDK retries."""

    def make(token: str):
        return (openai.OpenAI(base_url=f"{gateway.url}/v1", api_key=token, max_retries=0),
                anthropic.Anthropic(base_url=gateway.url, api_key=token, max_retries=0))

    return make
