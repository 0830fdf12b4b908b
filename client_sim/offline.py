"""Offline client simulator: the operations manager answers from held facts by BM25 retrieval, never dumps."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from client_sim.dialogue_log import DialogueLog
from client_sim.guards import Guards
from client_sim.knowledge import client_knowledge
from client_sim.persona import Persona, load_persona, read_data
from client_sim.protocol import ClientAnswer
from client_sim.retrieval import FactIndex, Hit


class OfflineClient:
    """The client in offline mode: deterministic answers, every exchange appended to the dialogue log."""

    def __init__(self, domain: str, log_path: Path | None = None, held: Iterable[str] | None = None):
        settings = read_data("retrieval.json")
        facts, self._disclosable = client_knowledge(domain, held)
        self.domain = domain
        self.persona: Persona = load_persona(domain)
        self._index = FactIndex(facts, read_data(f"synonyms_{domain}.json"),
                                k1=float(settings["bm25_k1"]), b=float(settings["bm25_b"]))
        self._guards = Guards(self.persona.phrases)
        self._threshold = float(settings["threshold"])
        self._hidden_ratio = float(settings["hidden_ratio"])
        self._second_ratio = float(settings["second_ratio"])
        self._max_facts = int(settings["max_facts"])
        self._log = DialogueLog(log_path) if log_path is not None else None

    def ask(self, question: str) -> str:
        """Answer one question in the persona's words (see `answer` for the details)."""
        return self.answer(question).text

    def answer(self, question: str) -> ClientAnswer:
        """Answer one question and log the exchange: disclosed fact ids, score and kind of answer."""
        reply = self._reply(question)
        if self._log is not None:
            self._log.exchange(self.domain, self.persona.name, question, reply)
        return reply

    def _reply(self, question: str) -> ClientAnswer:
        phrases = self.persona.phrases
        if canned := self._guards.check(question):
            return canned
        hits = self._index.search(question)
        top = hits[0].score if hits else 0.0
        chosen = self._select(hits, top)
        if chosen:
            parts = [chosen[0].fact.voice or chosen[0].fact.statement]
            parts += [f"{phrases.also} {h.fact.voice or h.fact.statement}" for h in chosen[1:]]
            return ClientAnswer(" ".join(parts), "answer", [h.fact.id for h in chosen], chosen[0].score)
        if top >= self._threshold:
            return ClientAnswer(phrases.in_docs, "in_docs", [], top)
        return ClientAnswer(phrases.unknown, "unknown", [], top)

    def _select(self, hits: list[Hit], top: float) -> list[Hit]:
        """The one or two disclosable facts that match well enough and nearly as well as the best fact."""
        good = [h for h in hits if h.fact.id in self._disclosable
                and h.score >= self._threshold and h.score >= self._hidden_ratio * top]
        chosen = good[:1]
        for hit in good[1:self._max_facts]:
            if hit.score >= self._second_ratio * chosen[0].score:
                chosen.append(hit)
        return chosen
