"""What the offline providers answer, without litellm: `mock` (deterministic) and `replay` (a script file).

mock: the reply depends only on the request. In the last user message, `MOCK_REPLY <text>` answers that
text, `MOCK_TOOL <name> <json args>` calls a tool (`*` = the first tool offered), `MOCK_FAIL <status>`
fails like a provider would. Otherwise it echoes the user; after a tool result it acknowledges it. Usage is
exact and documented: prompt = Σ messages (4 + ⌈chars/4⌉) + ⌈len(tools JSON)/4⌉; completion = ⌈reply
chars/4⌉ + Σ tool calls ⌈(name + arguments)/4⌉ + reasoning (minimal 0, low 8, medium 32, high 128).

replay: a JSON list (or {"responses": [...]}) or JSONL file of entries, each
`{"content": str, "tool_calls": [{"name", "arguments": {...} | "json", "id"?}], "usage"?: {...},
"conversation"?: id, "error"?: {"status", "message"}, "finish_reason"?}`, played in order per token;
an entry with `conversation` is only played in that conversation. The object form may add
`"side": [{"when": {"tools": false}, ...entry}]`: a request that matches a side rule (`tools: false` = it
offers no tools, like a harness's title request) gets that entry without moving the cursor.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .neutral import ToolCall, Usage, approx_tokens, estimate_completion_tokens, estimate_prompt_tokens, message_text

REASONING_TOKENS = {"none": 0, "disable": 0, "minimal": 0, "low": 8, "medium": 32, "high": 128}
_REPLY = re.compile(r"MOCK_REPLY[ \t]+([^\n]*)")
_TOOL = re.compile(r"MOCK_TOOL[ \t]+(\S+)(?:[ \t]+(\{[^\n]*\}))?")
_FAIL = re.compile(r"MOCK_FAIL[ \t]+(\d{3})")


@dataclass
class ScriptedReply:
    """One offline answer: text and/or tool calls with usage, or an error the provider raises."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None
    error: tuple[int, str] | None = None


def _usage(messages: list[dict], params: dict, reply: ScriptedReply) -> Usage:
    reasoning = REASONING_TOKENS.get(str(params.get("reasoning_effort") or "none"), 0)
    return Usage(prompt_tokens=estimate_prompt_tokens(messages, params),
                 completion_tokens=estimate_completion_tokens(reply.text, reply.tool_calls) + reasoning,
                 reasoning_tokens=reasoning)


def _finish(reply: ScriptedReply, params: dict) -> ScriptedReply:
    """Cut the text at max_tokens like a real model would, and settle the finish reason."""
    limit = params.get("max_tokens") or params.get("max_completion_tokens")
    if reply.finish_reason is None:
        reply.finish_reason = "tool_calls" if reply.tool_calls else "stop"
        if limit and not reply.tool_calls and approx_tokens(reply.text) > int(limit):
            reply.text, reply.finish_reason = reply.text[: int(limit) * 4], "length"
    return reply


def mock_reply(model: str, messages: list[dict], params: dict) -> ScriptedReply:
    """The deterministic answer of the `mock` provider to one request."""
    last = messages[-1] if messages else {"role": "user", "content": ""}
    text = message_text(last)
    reply = ScriptedReply()
    if last.get("role") == "tool":
        reply.text = f"Noted the tool result: {text[:160]}"
    elif failure := _FAIL.search(text):
        return ScriptedReply(error=(int(failure.group(1)), "mock provider failure (requested by MOCK_FAIL)"))
    elif tool := _TOOL.search(text):
        name = tool.group(1)
        if name == "*":
            tools = params.get("tools") or [{"function": {"name": "tool"}}]
            name = tools[0]["function"]["name"]
        reply.tool_calls = [ToolCall(id=f"call_mock_{len(messages)}", name=name, arguments=tool.group(2) or "{}")]
    elif scripted := _REPLY.search(text):
        reply.text = scripted.group(1).strip()
    else:
        short = model.split("/")[-1]
        reply.text = f"[{short}] You said: {text[:160]}" if text else f"[{short}] Hello."
    reply = _finish(reply, params)
    reply.usage = _usage(messages, params, reply)
    return reply


# replay ------------------------------------------------------------------------------------------------

_scripts: dict[tuple[str, float], tuple[list[dict], list[dict]]] = {}
_cursors: dict[tuple[str, str], int] = {}
_lock = threading.Lock()


def load_script(path: str | Path) -> list[dict]:
    """The entries of a replay script (cached per file version)."""
    return _load(path)[0]


def _load(path: str | Path) -> tuple[list[dict], list[dict]]:
    """(entries, side rules) of a replay script, cached per file version."""
    path = Path(path)
    try:
        key = (str(path.resolve()), path.stat().st_mtime)
    except OSError:
        raise FileNotFoundError(f"replay script {path} does not exist") from None
    if key not in _scripts:
        text = path.read_text(encoding="utf-8")
        side: list = []
        if path.suffix == ".jsonl":
            entries = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            data = json.loads(text)
            entries = data["responses"] if isinstance(data, dict) else data
            side = data.get("side", []) if isinstance(data, dict) else []
        for what, items in (("response", entries), ("side rule", side)):
            if not isinstance(items, list) or not all(isinstance(e, dict) for e in items):
                raise ValueError(f"replay script {path}: expected a list of {what} objects")
        _scripts[key] = (entries, side)
    return _scripts[key]


def _side_entry(side: list[dict], params: dict) -> dict | None:
    """The first side rule the request matches (see the module docstring), if any."""
    offers_tools = bool(params.get("tools"))
    for rule in side:
        when = rule.get("when") or {}
        if "tools" in when and bool(when["tools"]) == offers_tools:
            return rule
    return None


def _entry_reply(entry: dict, messages: list[dict], params: dict, where: str = "0") -> ScriptedReply:
    """The reply of one script entry; tool calls without an id get `call_replay_<where>_<i>` (unique per entry,
    as a real model's are: harnesses match results to calls by id)."""
    if entry.get("error"):
        err = entry["error"]
        return ScriptedReply(error=(int(err.get("status", 500)), str(err.get("message", "scripted error"))))
    calls = [ToolCall(id=c.get("id") or f"call_replay_{where}_{i}", name=c["name"],
                      arguments=c["arguments"] if isinstance(c.get("arguments"), str)
                      else json.dumps(c.get("arguments") or {}))
             for i, c in enumerate(entry.get("tool_calls") or [])]
    reply = _finish(ScriptedReply(text=entry.get("content") or "", tool_calls=calls,
                                  finish_reason=entry.get("finish_reason")), params)
    raw = entry.get("usage")
    reply.usage = _usage(messages, params, reply) if not raw else Usage(
        prompt_tokens=int(raw.get("prompt_tokens", 0)), completion_tokens=int(raw.get("completion_tokens", 0)),
        reasoning_tokens=int(raw.get("reasoning_tokens", 0)))
    return reply


def replay_reply(script: str | Path, cursor: str, conversation: str | None, messages: list[dict],
                 params: dict) -> ScriptedReply:
    """The next scripted answer for this cursor (a token); an error once the script is exhausted."""
    entries, side = _load(script)
    if (rule := _side_entry(side, params)) is not None:
        return _entry_reply(rule, messages, params, "side")
    with _lock:
        position = _cursors.get((str(script), cursor), 0)
        while position < len(entries) and entries[position].get("conversation") not in (None, conversation):
            position += 1
        _cursors[(str(script), cursor)] = position + 1
    if position >= len(entries):
        return ScriptedReply(error=(500, f"replay script {Path(script).name} exhausted ({len(entries)} responses)"))
    return _entry_reply(entries[position], messages, params, str(position))
