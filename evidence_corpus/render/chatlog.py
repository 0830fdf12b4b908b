"""Chat log renderer: a support chat export (JSON Lines, one message a line) from a JSON template."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from evidence_corpus.facts import Fact
from evidence_corpus.render.base import Artifact, ArtifactSpec, read_template_json
from evidence_corpus.render.template import fill, merge

MODALITY = "chat"


def render(spec: ArtifactSpec, facts: dict[str, Fact], domain: str) -> list[Artifact]:
    """One JSONL export at `spec.path`; timestamps advance by each message's `after_s` from `start`."""
    data = read_template_json(domain, spec.template)
    when = datetime.fromisoformat(data["start"])
    lines, parts = [], []
    for index, message in enumerate(data["messages"], start=1):
        filled = fill(message["text"], facts, where=f"{spec.template}#{index}")
        parts.append(filled)
        when += timedelta(seconds=message.get("after_s", 30))
        who = data["participants"][message["from"]]
        record = {"ts": when.isoformat(), "conversation_id": data["conversation_id"],
                  "channel": data["channel"], "author": who["name"], "role": who["role"],
                  "text": filled.text}
        lines.append(json.dumps(record, ensure_ascii=False))
    whole = merge(parts, "\n".join(lines) + "\n")
    return [Artifact(spec.path, MODALITY, whole.text.encode("utf-8"),
                     tuple(whole.carried), tuple(whole.superseded))]


def extract_text(content: bytes) -> str:
    """'author: text' lines of a chat export."""
    records = [json.loads(line) for line in content.decode("utf-8").splitlines() if line.strip()]
    return "\n".join(f"{r['author']}: {r['text']}" for r in records)
