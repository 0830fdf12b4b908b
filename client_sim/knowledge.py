"""What the client knows (host side only): hidden and contested facts it may disclose, plus the public record."""

from __future__ import annotations

from collections.abc import Iterable

from evidence_corpus.facts import Fact, load_facts


def answerable(fact: Fact, held: set[str] | None) -> bool:
    """The client speaks to its own held facts (all, or the task's subset) and confirms contested ones."""
    if fact.client_held:
        return held is None or fact.id in held
    return fact.contested


def client_knowledge(domain: str, held: Iterable[str] | None = None) -> tuple[list[Fact], set[str]]:
    """Facts the client can match a question against, and the ids of those it may disclose.

    Client-held facts outside `held` are dropped entirely: for this task they do not exist."""
    held_set = set(held) if held is not None else None
    facts = [f for f in load_facts(domain) if not f.client_held or answerable(f, held_set)]
    if held_set is not None:
        unknown = held_set - {f.id for f in facts if f.client_held}
        if unknown:
            raise ValueError(f"not client-held facts of {domain!r}: {sorted(unknown)}")
    return facts, {f.id for f in facts if answerable(f, held_set)}
