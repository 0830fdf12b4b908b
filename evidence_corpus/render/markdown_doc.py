"""Markdown document renderer (the policy handbook): a Markdown template with fact tokens, filled as is."""

from __future__ import annotations

import re
import textwrap

from evidence_corpus.facts import Fact
from evidence_corpus.render.base import Artifact, ArtifactSpec, read_template
from evidence_corpus.render.template import fill

MODALITY = "document"
WIDTH = 100
_MARKUP = re.compile(r"[*`]|^#+\s*|^>\s?", re.MULTILINE)


def reflow(text: str) -> str:
    """Re-wrap plain paragraphs at 100 columns after filling; headings, lists and quotes stay as written."""
    blocks = []
    for block in text.split("\n\n"):
        if block.lstrip().startswith(("#", "-", "*", ">", "|")):
            blocks.append(block)
        else:
            blocks.append(textwrap.fill(" ".join(block.split()), WIDTH, break_long_words=False,
                                        break_on_hyphens=False))
    return "\n\n".join(blocks)


def render(spec: ArtifactSpec, facts: dict[str, Fact], domain: str) -> list[Artifact]:
    """One Markdown file at `spec.path`."""
    filled = fill(read_template(domain, spec.template), facts, where=spec.template)
    return [Artifact(spec.path, MODALITY, reflow(filled.text).rstrip("\n").encode("utf-8") + b"\n",
                     tuple(filled.carried), tuple(filled.superseded))]


def extract_text(content: bytes) -> str:
    """Readable text of a Markdown file (emphasis, code ticks and heading marks removed)."""
    return _MARKUP.sub("", content.decode("utf-8"))
