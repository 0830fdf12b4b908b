"""LLM client simulator: a model plays the operations manager from the facts it holds (host side only).

Its system prompt carries the persona and the task's held and contested facts; the model names the facts it
used on a last `FACTS:` line, which is logged and removed from the reply the developer reads."""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Callable, Iterable
from functools import cache
from importlib import resources
from pathlib import Path

from client_sim.dialogue_log import DialogueLog
from client_sim.guards import Guards
from client_sim.knowledge import client_knowledge
from client_sim.persona import Persona, load_persona
from client_sim.protocol import ClientAnswer
from evidence_corpus.facts import Fact

log = logging.getLogger(__name__)
Complete = Callable[..., str]  # (messages, **params) -> reply text; raises on failure
_TRAILER = re.compile(r"(?is)\s*\bFACTS:([^\n]*)\s*$")
_FACT_ID = re.compile(r"\[?\b[A-Z]{3}-[A-Z]{3}-\d{3}\b\]?")


@cache
def prompts() -> dict:
    """The prompt data file `client_sim/data/llm_prompt.toml`."""
    return tomllib.loads(resources.files("client_sim.data").joinpath("llm_prompt.toml").read_text("utf-8"))


def fact_line(fact: Fact) -> str:
    """One held fact as the model reads it: the client's own words; a contested one names what it replaced."""
    line = prompts()["fact"].format(id=fact.id, text=fact.voice or fact.statement)
    if fact.superseded is not None:
        line += prompts()["superseded"].format(old=fact.superseded.statement)
    return line


def system_prompt(persona: Persona, facts: list[Fact]) -> str:
    """The client's system prompt: persona, its facts, and how to answer."""
    return prompts()["system"].format(name=persona.name, role=persona.role, company=persona.company,
                                      tone=persona.tone, facts="\n".join(fact_line(f) for f in facts),
                                      refuse_dump=persona.phrases.refuse_dump, in_docs=persona.phrases.in_docs,
                                      unknown=persona.phrases.unknown)


def split_reply(raw: str, known_ids: set[str]) -> tuple[str, list[str]]:
    """The reply without its `FACTS:` line (and without any fact id), and the known fact ids it names."""
    trailer = _TRAILER.search(raw)
    named = _FACT_ID.findall(trailer.group(1)) if trailer else []
    text = raw[: trailer.start()] if trailer else raw
    ids = [i.strip("[]") for i in named]
    text = re.sub(r"[ \t]{2,}", " ", re.sub(r"\(\s*\)", "", _FACT_ID.sub("", text))).strip()
    return text, [i for i in dict.fromkeys(ids) if i in known_ids]


class LlmClient:
    """The client in LLM mode: `ask` / `answer` like the offline client, every exchange in the dialogue log.

    `complete(messages, **params)` is one model call (the orchestrator passes a gateway client on the
    client-sim seat). A failed call is answered with an apology and logged as kind "unavailable"."""

    def __init__(self, domain: str, complete: Complete, log_path: Path | None = None,
                 held: Iterable[str] | None = None):
        facts, disclosable = client_knowledge(domain, held)
        self.domain = domain
        self.persona: Persona = load_persona(domain)
        self.facts = [f for f in facts if f.id in disclosable]
        self._ids = {f.id for f in self.facts}
        self._complete = complete
        self._system = system_prompt(self.persona, self.facts)
        self._guards = Guards(self.persona.phrases)
        self._history: list[dict] = []
        self._log = DialogueLog(log_path) if log_path is not None else None

    def ask(self, question: str) -> str:
        """Answer one question in the persona's words."""
        return self.answer(question).text

    def answer(self, question: str) -> ClientAnswer:
        """Answer one question and log the exchange (kind, the fact ids the model says it used)."""
        reply = self._guards.check(question) or self._from_model(question)
        if self._log is not None:
            self._log.exchange(self.domain, self.persona.name, question, reply)
        return reply

    def _from_model(self, question: str) -> ClientAnswer:
        keep = 2 * int(prompts()["history_exchanges"])
        messages = [{"role": "system", "content": self._system}, *self._history[-keep:],
                    {"role": "user", "content": question}]
        try:
            raw = self._complete(messages, **prompts()["generation"]) or ""
        except Exception as err:  # noqa: BLE001 - the developer gets an apology, the build goes on
            log.warning("client simulator: model call failed: %s", err)
            return ClientAnswer(prompts()["unavailable"], "unavailable")
        text, ids = split_reply(raw, self._ids)
        if not text:
            log.warning("client simulator: the model returned no answer text")
            return ClientAnswer(prompts()["unavailable"], "unavailable")
        self._history += [{"role": "user", "content": question}, {"role": "assistant", "content": raw.strip()}]
        return ClientAnswer(text, "answer" if ids else "unknown", ids)
