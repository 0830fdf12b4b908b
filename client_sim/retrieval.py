"""BM25 retrieval of facts for a developer's question, with light query normalisation (synonyms, stemming)."""

from __future__ import annotations

from dataclasses import dataclass

from rank_bm25 import BM25Okapi

from evidence_corpus.facts import Fact
from evidence_corpus.text import STOPWORDS, canonical_numbers, words

_SUFFIXES = ("ations", "ation", "ings", "ing", "able", "ed", "es", "s")


def stem(word: str) -> str:
    """A deliberately small stemmer: 'cancelled'/'cancellation' -> 'cancel', 'perfumes' -> 'perfum'."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeious":
        word = word[:-1]
    return word


def tokenize(text: str, synonyms: dict[str, str]) -> list[str]:
    """Normalise, canonicalise numbers, map synonyms, drop stopwords, stem."""
    tokens = []
    for word in words(canonical_numbers(text)):
        for part in synonyms.get(word, word).split():
            if part not in STOPWORDS:
                tokens.append(stem(part))
    return tokens


def fact_document(fact: Fact) -> str:
    """The text a fact is indexed by: statement, cues, keywords and the client's own wording."""
    return " ".join([fact.statement, *fact.cues, *fact.keywords, fact.voice or ""])


@dataclass(frozen=True)
class Hit:
    """One retrieved fact and its BM25 score."""

    fact: Fact
    score: float


class FactIndex:
    """BM25 over a set of facts; `search` returns hits with a positive score, best first."""

    def __init__(self, facts: list[Fact], synonyms: dict[str, str], k1: float = 1.5, b: float = 0.5):
        self._facts = facts
        self._synonyms = synonyms
        self._bm25 = BM25Okapi([tokenize(fact_document(f), synonyms) for f in facts], k1=k1, b=b)

    def search(self, question: str) -> list[Hit]:
        """Facts matching the question, best first (stable order on ties)."""
        query = tokenize(question, self._synonyms)
        if not query:
            return []
        scores = self._bm25.get_scores(query)
        ranked = sorted(range(len(self._facts)), key=lambda i: (-scores[i], i))
        return [Hit(self._facts[i], float(scores[i])) for i in ranked if scores[i] > 0]
