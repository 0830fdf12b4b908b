"""Answers every client mode gives without looking at its facts: an empty question, a request to dump them all."""

from __future__ import annotations

import re

from client_sim.persona import Phrases, read_data
from client_sim.protocol import ClientAnswer
from evidence_corpus.text import normalize


class Guards:
    """The canned replies, with the dump patterns of `client_sim/data/retrieval.json`."""

    def __init__(self, phrases: Phrases):
        self._phrases = phrases
        self._dump = [re.compile(p) for p in read_data("retrieval.json")["dump_patterns"]]

    def check(self, question: str) -> ClientAnswer | None:
        """The canned reply to `question`, or None when it is a real question."""
        text = normalize(question)
        if not re.search(r"[a-z0-9]", text):
            return ClientAnswer(self._phrases.empty, "empty")
        if any(p.search(text) for p in self._dump):
            return ClientAnswer(self._phrases.refuse_dump, "refuse_dump")
        return None
