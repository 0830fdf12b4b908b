"""Spreadsheet renderer: CSV sheets (header row + rows of cells with fact tokens) from a JSON template."""

from __future__ import annotations

import csv
import io

from evidence_corpus.facts import Fact
from evidence_corpus.render.base import Artifact, ArtifactSpec, read_template_json
from evidence_corpus.render.template import fill, merge

MODALITY = "spreadsheet"


def render(spec: ArtifactSpec, facts: dict[str, Fact], domain: str) -> list[Artifact]:
    """Every sheet of the template as `<spec.path>/<file>`."""
    artifacts = []
    for sheet in read_template_json(domain, spec.template)["sheets"]:
        parts, rows = [], [sheet["columns"]]
        for r, row in enumerate(sheet["rows"], start=1):
            if len(row) != len(sheet["columns"]):
                raise ValueError(f"{spec.template}:{sheet['file']} row {r}: wrong number of cells")
            cells = [fill(cell, facts, where=f"{spec.template}:{sheet['file']}:{r}") for cell in row]
            parts.extend(cells)
            rows.append([c.text for c in cells])
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\r\n").writerows(rows)
        whole = merge(parts, buffer.getvalue())
        artifacts.append(Artifact(f"{spec.path}/{sheet['file']}", MODALITY, whole.text.encode("utf-8"),
                                  tuple(whole.carried), tuple(whole.superseded)))
    return artifacts


def extract_text(content: bytes) -> str:
    """Rows of a CSV with cells joined by ' | '."""
    return "\n".join(" | ".join(row) for row in csv.reader(io.StringIO(content.decode("utf-8"))))
