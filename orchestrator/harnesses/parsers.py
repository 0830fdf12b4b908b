"""Normalise each CLI's log into trajectory events (see `orchestrator.trajectory`): assistant messages, tool
calls and tool results with their own timestamps, grouped by `turn` (one model response) whose first event
carries the response's token usage. Claude Code and Codex: their session files (timestamped, with usage);
OpenCode: its `--format json` stdout. The harness's own prompt is recorded by the harness, not here."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ..gateway.wires.responses import flat_name


def _epoch(value) -> float | None:
    """ISO-8601 text or epoch milliseconds as epoch seconds."""
    if isinstance(value, (int, float)):
        return value / 1000.0
    if isinstance(value, str) and value:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    return None


def _rows(text: str) -> list[dict]:
    """The JSON objects of a JSONL text (a line cut short when the CLI was stopped is skipped)."""
    rows = []
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def _jsonl(paths: Iterable[Path]) -> list[dict]:
    return [row for path in paths for row in _rows(path.read_text(encoding="utf-8", errors="replace"))]


def _text(content) -> str:
    """Text of a string, or of a list of text blocks / parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and "text" in p)
    return "" if content is None else json.dumps(content, default=str)


def _arguments(raw) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw or "{}")
        return parsed if isinstance(parsed, dict) else {"input": parsed}
    except (json.JSONDecodeError, TypeError):
        return {"input": raw}


class _Turns:
    """Collects events; usage is attached to the first event of its turn."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self._first: dict[object, dict] = {}
        self.names: dict[str, str] = {}  # call id -> tool name

    def add(self, kind: str, ts: float | None, turn=None, **fields) -> dict:
        event = {"type": kind, "ts": ts, **({"turn": turn} if turn is not None else {}), **fields}
        if kind == "tool_call":
            self.names[str(fields.get("call_id"))] = str(fields.get("name"))
        if kind == "tool_result" and "name" not in fields:
            event["name"] = self.names.get(str(fields.get("call_id")))
        self.events.append(event)
        if turn is not None:
            self._first.setdefault(turn, event)
        return event

    def usage(self, turn, prompt: int, completion: int, cached: int = 0) -> None:
        first = self._first.get(turn)
        if first is not None and "usage" not in first:
            first["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "cached_tokens": cached}


# Claude Code -----------------------------------------------------------------------------------------------

def claude_code(stdout: str, sessions: Path) -> list[dict]:
    """From `~/.claude/projects/<cwd>/<session>.jsonl` (else the stream-json stdout, without timestamps)."""
    rows = _jsonl(sorted(sessions.glob("claude/projects/*/*.jsonl"))) or _rows(stdout)
    turns = _Turns()
    for row in rows:
        kind, message = row.get("type"), row.get("message") or {}
        content, ts = message.get("content"), _epoch(row.get("timestamp"))
        if kind == "assistant" and isinstance(content, list):
            turn = message.get("id")
            for block in content:
                if block.get("type") == "text" and block.get("text"):
                    turns.add("message", ts, turn, role="assistant", content=block["text"], model=message.get("model"))
                elif block.get("type") == "tool_use":
                    turns.add("tool_call", ts, turn, call_id=block.get("id"), name=block.get("name"),
                              arguments=block.get("input") or {})
            usage = message.get("usage") or {}
            cached = int(usage.get("cache_read_input_tokens") or 0)
            prompt = int(usage.get("input_tokens") or 0) + cached + int(usage.get("cache_creation_input_tokens") or 0)
            turns.usage(turn, prompt, int(usage.get("output_tokens") or 0), cached)
        elif kind == "user" and isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result":
                    turns.add("tool_result", ts, call_id=block.get("tool_use_id"), content=_text(block.get("content")),
                              is_error=bool(block.get("is_error")))
    return turns.events


# Codex -----------------------------------------------------------------------------------------------------

def codex(stdout: str, sessions: Path) -> list[dict]:
    """From the rollout `CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`: response items and token counts."""
    turns = _Turns()
    turn, answered = 0, True  # a new turn starts with the first item after a tool output or a token count
    for row in _jsonl(sorted(sessions.glob("codex/sessions/**/rollout-*.jsonl"))):
        payload, ts = row.get("payload") or {}, _epoch(row.get("timestamp"))
        kind = payload.get("type")
        if row.get("type") == "event_msg" and kind == "token_count":
            last = ((payload.get("info") or {}).get("last_token_usage")) or {}
            turns.usage(turn, int(last.get("input_tokens") or 0), int(last.get("output_tokens") or 0),
                        int(last.get("cached_input_tokens") or 0))
            answered = True
            continue
        if row.get("type") != "response_item":
            continue
        if kind in ("message", "function_call", "custom_tool_call") and payload.get("role") in (None, "assistant"):
            if answered:
                turn, answered = turn + 1, False
            if kind == "message":
                turns.add("message", ts, turn, role="assistant", content=_text(payload.get("content")))
            else:
                name = flat_name(payload.get("namespace"), payload.get("name", ""))
                raw = payload.get("arguments") if kind == "function_call" else payload.get("input")
                turns.add("tool_call", ts, turn, call_id=payload.get("call_id"), name=name, arguments=_arguments(raw))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            answered = True
            output = payload.get("output")
            turns.add("tool_result", ts, call_id=payload.get("call_id"),
                      content=output if isinstance(output, str) else _text(output))
    return turns.events


# OpenCode --------------------------------------------------------------------------------------------------

def opencode(stdout: str, sessions: Path) -> list[dict]:
    """From the `opencode run --format json` events: text and tool parts per step, tokens at step finish."""
    turns = _Turns()
    for row in _rows(stdout):
        part, ts = row.get("part") or {}, _epoch(row.get("timestamp"))
        turn = part.get("messageID")
        if row.get("type") == "text" and part.get("text"):
            turns.add("message", ts, turn, role="assistant", content=part["text"])
        elif row.get("type") == "tool_use":
            state = part.get("state") or {}
            times = state.get("time") or {}
            turns.add("tool_call", _epoch(times.get("start")) or ts, turn, call_id=part.get("callID"),
                      name=part.get("tool"), arguments=state.get("input") or {})
            failed = state.get("status") == "error"
            turns.add("tool_result", _epoch(times.get("end")) or ts, call_id=part.get("callID"),
                      content=str(state.get("error") if failed else state.get("output", "")), is_error=failed)
        elif row.get("type") == "step_finish":
            tokens = part.get("tokens") or {}
            cache = tokens.get("cache") or {}
            cached = int(cache.get("read") or 0)
            turns.usage(turn, int(tokens.get("input") or 0) + cached + int(cache.get("write") or 0),
                        int(tokens.get("output") or 0) + int(tokens.get("reasoning") or 0), cached)
    return turns.events
