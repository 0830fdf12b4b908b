"""Export a build trajectory to Harbor's Agent Trajectory Interchange Format (ATIF v1.4): one step per user or
system message and per agent turn (its text, tool calls, their results as the observation, its token usage)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from .records import write_json_atomic
from .trajectory import read_events

SCHEMA_VERSION = "ATIF-v1.4"
_USAGE = ("prompt_tokens", "completion_tokens", "cached_tokens")


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).isoformat().replace("+00:00", "Z")


def _arguments(value) -> dict:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
            return parsed if isinstance(parsed, dict) else {"input": parsed}
        except json.JSONDecodeError:
            return {"input": value}
    return {} if value is None else {"input": value}


class _Steps:
    """Builds the ATIF steps from events in order."""

    def __init__(self) -> None:
        self.steps: list[dict] = []
        self.calls: dict[str, dict] = {}  # call id -> the agent step that made it
        self.turn = None

    def _new(self, source: str, event: dict, message: str = "") -> dict:
        step = {"step_id": len(self.steps) + 1, "timestamp": _iso(event["ts"]), "source": source,
                "message": message}
        self.steps.append(step)
        return step

    def _agent_step(self, event: dict) -> dict:
        """The agent step of this event: the open one of its turn (or, without turns, the open step for a tool
        call that follows the text of its response), else a new one."""
        last = self.steps[-1] if self.steps else None
        open_agent = last is not None and last["source"] == "agent"
        if event.get("turn") is not None:
            reuse = open_agent and event["turn"] == self.turn
        else:
            reuse = open_agent and event["type"] == "tool_call" and "observation" not in last
        if not reuse:
            last = self._new("agent", event)
        self.turn = event.get("turn")
        if event.get("model"):
            last["model_name"] = event["model"]
        if event.get("usage"):
            metrics = last.setdefault("metrics", {})
            for name in _USAGE:
                if event["usage"].get(name) is not None:
                    metrics[name] = metrics.get(name, 0) + int(event["usage"][name])
        return last

    def add(self, event: dict) -> None:
        kind = event["type"]
        if kind == "message" and event.get("role") in ("user", "system"):
            self._new(event["role"], event, str(event.get("content", "")))
            self.turn = None
        elif kind == "message":
            step = self._agent_step(event)
            step["message"] = (step["message"] + "\n" + str(event.get("content", ""))).strip()
        elif kind == "tool_call":
            step = self._agent_step(event)
            call_id = str(event.get("call_id") or f"call_{event['step']}")
            step.setdefault("tool_calls", []).append({"tool_call_id": call_id, "function_name": str(event.get("name")),
                                                      "arguments": _arguments(event.get("arguments"))})
            self.calls[call_id] = step
        elif kind == "tool_result":
            call_id = event.get("call_id")
            step = self.calls.get(str(call_id)) if call_id else next(
                (s for s in reversed(self.steps) if s.get("tool_calls")), None)
            if step is None:
                step = self._new("system", event)
            content = event.get("content")
            result = {"source_call_id": str(call_id) if call_id else None,
                      "content": content if isinstance(content, str) else json.dumps(content, default=str)}
            step.setdefault("observation", {"results": []})["results"].append(result)
        else:  # markers (submit, harness_end): a system step with the marker in `extra`
            marker = {k: v for k, v in event.items() if k not in ("step", "ts", "type")}
            self._new("system", event, kind)["extra"] = {"event": kind, **marker}
            self.turn = None


def to_atif(events: list[dict], *, agent: str, version: str, model: str | None, session_id: str) -> dict:
    """The ATIF document of a list of trajectory events."""
    builder = _Steps()
    for event in events:
        builder.add(event)
    totals = {name: sum(s.get("metrics", {}).get(name, 0) for s in builder.steps) for name in _USAGE}
    document = {"schema_version": SCHEMA_VERSION, "session_id": session_id,
                "agent": {"name": agent, "version": version, **({"model_name": model} if model else {})},
                "steps": builder.steps,
                "final_metrics": {"total_prompt_tokens": totals["prompt_tokens"],
                                  "total_completion_tokens": totals["completion_tokens"],
                                  "total_cached_tokens": totals["cached_tokens"], "total_steps": len(builder.steps)},
                "notes": "exported by hypertau from build/trajectory.jsonl; credits are in build/gateway_ledger.jsonl"}
    return document


def write_atif(trajectory: Path, out: Path, **meta) -> dict:
    """Read `trajectory.jsonl`, write its ATIF export to `out`; return the document."""
    document = to_atif(read_events(trajectory), **meta)
    write_json_atomic(out, document)
    return document
