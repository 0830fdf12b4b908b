"""Text normalisation and term matching shared by recoverability checks and leak checks."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from importlib import resources

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
_QUOTES = {ord("\u2018"): "'", ord("\u2019"): "'", ord("\u201c"): '"', ord("\u201d"): '"'}
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n{2,}")

STOPWORDS: frozenset[str] = frozenset(
    resources.files("evidence_corpus").joinpath("stopwords.txt").read_text("utf-8").split())


def normalize(text: str) -> str:
    """Lower-case, unify dashes and quotes, collapse whitespace: the form every comparison uses."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES)
    return " ".join(text.lower().split())


def _number_value(whole: str, frac: str | None) -> float:
    return float(whole.replace(",", "") + (frac or ""))


def canonical_numbers(text: str) -> str:
    """Write every number in one form ('$1,000.00' -> '$1000', '6.95' stays) so tokenisers agree."""
    def canonical(match: re.Match[str]) -> str:
        value = _number_value(match.group(1), match.group(2))
        return str(int(value)) if value.is_integer() else str(value)

    return _NUMBER.sub(canonical, text)


def numbers_in(text: str) -> set[float]:
    """Every standalone number of a text as a float ('$1,000.00' and '1000' both give 1000.0)."""
    return {_number_value(whole, frac) for whole, frac in _NUMBER.findall(text)}


@dataclass(frozen=True)
class SearchableText:
    """A text prepared once for many term lookups."""

    norm: str
    numbers: frozenset[float]

    @classmethod
    def of(cls, text: str) -> SearchableText:
        """Prepare a text for lookups."""
        norm = normalize(text)
        return cls(norm, frozenset(numbers_in(norm)))

    def contains(self, term: str | float) -> bool:
        """A number matches by value, a string as a normalised substring."""
        if isinstance(term, bool):
            return True
        if isinstance(term, (int, float)):
            return float(term) in self.numbers
        return normalize(term) in self.norm


def words(text: str) -> list[str]:
    """The word tokens of a normalised text, in order."""
    return _WORD.findall(normalize(text))


def content_words(text: str) -> set[str]:
    """The distinct words of a text minus stopwords: the basis of near-copy detection."""
    return {w for w in words(text) if w not in STOPWORDS}


def sentences(text: str) -> list[str]:
    """Split a text into rough sentences (punctuation or blank lines)."""
    return [s for s in _SENTENCE_END.split(text) if s.strip()]
