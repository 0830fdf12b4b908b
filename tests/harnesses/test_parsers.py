"""Each CLI's log, as the real CLIs wrote it in an offline replay run (long strings trimmed), normalised into
trajectory events: tool calls with their results, assistant messages, usage per turn, own timestamps."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.harnesses import parsers

DATA = Path(__file__).parent / "data"
KIT_TOOLS = {"claude-code": "mcp__hypertau-kit__", "codex": "mcp__hypertau_kit__", "opencode": "hypertau-kit_"}


def _events(harness: str) -> list[dict]:
    if harness == "claude-code":
        return parsers.claude_code("", DATA)
    if harness == "codex":
        return parsers.codex("", DATA)
    return parsers.opencode((DATA / "opencode_events.jsonl").read_text(), DATA)


@pytest.mark.parametrize("harness", ["claude-code", "codex", "opencode"])
def test_tool_calls_results_messages_and_usage(harness):
    events = _events(harness)
    calls = [e for e in events if e["type"] == "tool_call"]
    results = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    kit = [c["name"].removeprefix(KIT_TOOLS[harness]) for c in calls if c["name"].startswith(KIT_TOOLS[harness])]
    assert {"talk_to_client", "submit"} <= set(kit)
    assert all(c["call_id"] in results and results[c["call_id"]]["name"] == c["name"] for c in calls)
    assert all(isinstance(c["arguments"], dict) for c in calls)
    assert [e["content"] for e in events if e["type"] == "message"][-1].startswith("Submitted the first release")
    assert all(e["ts"] and e["ts"] > 1.7e9 for e in events)
    turns = {e["turn"] for e in events if "turn" in e}
    with_usage = [e for e in events if "usage" in e]
    assert len(with_usage) == len(turns) >= len(calls) - 1  # one usage per model response
    assert all(u["usage"]["prompt_tokens"] > 0 and u["usage"]["completion_tokens"] > 0 for u in with_usage)


def test_claude_code_falls_back_to_stdout_without_session_files(tmp_path):
    line = ('{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash",'
            '"input":{"command":"ls"}}],"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":3}}}')
    events = parsers.claude_code(line + "\nnot json\n", tmp_path)
    assert events[0]["name"] == "Bash" and events[0]["ts"] is None
    assert events[0]["usage"] == {"prompt_tokens": 15, "completion_tokens": 3, "cached_tokens": 5}
