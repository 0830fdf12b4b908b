"""The interface every client simulator mode implements (offline retrieval, LLM)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

AnswerKind = Literal["answer", "in_docs", "unknown", "refuse_dump", "empty", "unavailable", "defect", "defect_vague"]


@dataclass(frozen=True)
class ClientAnswer:
    """One reply of the client with what it disclosed, for the dialogue log and for analysis."""

    text: str
    kind: AnswerKind
    fact_ids: list[str] = field(default_factory=list)
    score: float | None = None


@runtime_checkable
class ClientSimulator(Protocol):
    """A stakeholder the developer can question; `ask` returns the reply text."""

    def ask(self, question: str) -> str:
        """Answer one question from the developer."""
        ...
