"""Append-only JSONL log of the developer ↔ client dialogue (one line per exchange)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from client_sim.protocol import ClientAnswer


class DialogueLog:
    """Appends one JSON object per exchange to a file; nothing is ever rewritten."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def append(self, **record: object) -> None:
        """Write one exchange with a UTC timestamp, flushed at once so a crash loses nothing."""
        line = {"ts": datetime.now(UTC).isoformat(timespec="milliseconds"), **record}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")

    def exchange(self, domain: str, client: str, question: str, reply: ClientAnswer) -> None:
        """One question and its answer, in the one format every client mode writes."""
        self.append(domain=domain, client=client, question=question, answer=reply.text, kind=reply.kind,
                    fact_ids=reply.fact_ids, score=None if reply.score is None else round(reply.score, 4))
