"""Trajectory log of a build: one JSON event per line (message, tool call, tool result), timestamped.

Event types: `message` (role user / assistant / system, content), `tool_call` (call_id, name, arguments),
`tool_result` (call_id, content, is_error), and markers (`submit`, `harness_end`). A harness's parsed events
keep their own `ts` and may carry `turn` (one model response) and `usage` (prompt_tokens, completion_tokens,
cached_tokens: on the first event of a turn).
"""

from __future__ import annotations

import json
import time
from pathlib import Path


class TrajectoryWriter:
    """Appends normalised trajectory events to `trajectory.jsonl`."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._step = 0

    def event(self, kind: str, ts: float | None = None, **fields) -> None:
        """Record one event (`message`, `tool_call`, `tool_result`, `submit`, …); `ts` defaults to now."""
        self._step += 1
        record = {"step": self._step, "ts": round(time.time() if ts is None else ts, 3), "type": kind, **fields}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def read_events(path: Path) -> list[dict]:
    """The events of a trajectory file (none when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
