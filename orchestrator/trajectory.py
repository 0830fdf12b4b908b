"""Trajectory log of a build: one JSON event per line (message, tool call, tool result), timestamped."""

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

    def event(self, kind: str, **fields) -> None:
        """Record one event (`message`, `tool_call`, `tool_result`, `submit`, …)."""
        self._step += 1
        record = {"step": self._step, "ts": round(time.time(), 3), "type": kind, **fields}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
