"""The ATIF export: one step per user/system message and per agent turn, tool calls with their observations,
metrics per turn and in total, step ids from 1."""

from __future__ import annotations

from orchestrator.atif import SCHEMA_VERSION, to_atif

EVENTS = [
    {"step": 1, "ts": 1.8e9, "type": "message", "role": "user", "content": "build it"},
    {"step": 2, "ts": 1.8e9 + 1, "type": "message", "role": "assistant", "content": "Looking.", "turn": "a",
     "usage": {"prompt_tokens": 100, "completion_tokens": 10, "cached_tokens": 40}},
    {"step": 3, "ts": 1.8e9 + 1, "type": "tool_call", "call_id": "c1", "name": "Bash", "arguments": {"command": "ls"},
     "turn": "a"},
    {"step": 4, "ts": 1.8e9 + 2, "type": "tool_result", "call_id": "c1", "content": "BRIEF.md"},
    {"step": 5, "ts": 1.8e9 + 3, "type": "tool_call", "call_id": "c2", "name": "submit", "arguments": "{}",
     "turn": "b", "usage": {"prompt_tokens": 120, "completion_tokens": 5, "cached_tokens": 0}},
    {"step": 6, "ts": 1.8e9 + 4, "type": "tool_result", "call_id": "c2", "content": "Submitted."},
    {"step": 7, "ts": 1.8e9 + 5, "type": "harness_end", "ended": "submitted"},
]


def test_turns_become_agent_steps_with_observations_and_metrics():
    doc = to_atif(EVENTS, agent="claude-code", version="x@1", model="replay/x", session_id="run-1")
    assert doc["schema_version"] == SCHEMA_VERSION and doc["agent"]["model_name"] == "replay/x"
    steps = doc["steps"]
    assert [s["step_id"] for s in steps] == list(range(1, len(steps) + 1))
    assert [s["source"] for s in steps] == ["user", "agent", "agent", "system"]
    first = steps[1]
    assert first["message"] == "Looking." and first["tool_calls"][0]["function_name"] == "Bash"
    assert first["observation"]["results"] == [{"source_call_id": "c1", "content": "BRIEF.md"}]
    assert first["metrics"] == {"prompt_tokens": 100, "completion_tokens": 10, "cached_tokens": 40}
    assert steps[2]["tool_calls"][0]["arguments"] == {} and steps[3]["extra"]["ended"] == "submitted"
    assert doc["final_metrics"]["total_prompt_tokens"] == 220 and doc["final_metrics"]["total_steps"] == 4
    assert steps[0]["timestamp"].endswith("Z")


def test_built_in_events_without_call_ids_or_turns():
    events = [{"step": 1, "ts": 1.8e9, "type": "tool_call", "name": "talk-to-client", "arguments": {"message": "q"}},
              {"step": 2, "ts": 1.8e9, "type": "tool_result", "name": "talk-to-client", "content": "a"},
              {"step": 3, "ts": 1.8e9, "type": "submit"}]
    steps = to_atif(events, agent="reference", version="builtin", model=None, session_id="r")["steps"]
    assert steps[0]["tool_calls"][0]["tool_call_id"] == "call_1"
    assert steps[0]["observation"]["results"][0]["content"] == "a"
