"""`--developer-model`: replay scripts resolve to gateway routes; each harness's script uses its own tool
names for the kit tools; rate-card models need their provider key."""

from __future__ import annotations

import pytest

from orchestrator.developer_services import developer_routes, replay_route
from orchestrator.gateway.offline import _load
from orchestrator.harnesses import HARNESSES, HarnessError
from orchestrator.harnesses.settings import REPLAYS
from orchestrator.simulators import SimulatorError

KIT_PREFIX = {"claude-code": "mcp__hypertau-kit__", "codex": "mcp__hypertau_kit__", "opencode": "hypertau-kit_"}


@pytest.mark.parametrize("harness", sorted(KIT_PREFIX))
def test_each_replay_script_drives_its_harness_to_submission(harness):
    assert HARNESSES[harness]().in_sandbox
    route = replay_route(f"replay/{harness}")
    assert route.offline and route.provider == "replay" and route.api_base == str(REPLAYS / f"{harness}.json")
    entries, side = _load(route.api_base)
    names = [call["name"] for entry in entries for call in entry.get("tool_calls", [])]
    kit = [n.removeprefix(KIT_PREFIX[harness]) for n in names if n.startswith(KIT_PREFIX[harness])]
    assert kit[-1] == "submit" and "talk_to_client" in kit
    assert "local-test" in str(entries) or "local_test" in kit
    assert side and side[0]["when"] == {"tools": False}
    assert developer_routes(f"replay/{harness}", None).get(f"replay/{harness}") == route


def test_unknown_replay_script_and_missing_provider_key(monkeypatch):
    with pytest.raises(HarnessError, match="no replay script 'nope'.*claude-code"):
        replay_route("replay/nope")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(SimulatorError, match="ANTHROPIC_API_KEY"):
        developer_routes("claude-sonnet-4-5", None)


def test_a_coding_agent_needs_the_docker_sandbox(tmp_path):
    from build_kits.taskspec import load_task
    from orchestrator.build import build_run

    with pytest.raises(HarnessError, match="runs only in the docker sandbox"):
        build_run(load_task("retail-01"), "codex", tmp_path, seed=0, sandbox="local", developer_model="replay/codex")
