"""Open a client simulator by mode: 'offline' (retrieval over the facts) or 'llm' (a model plays the client)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from client_sim.llm import Complete, LlmClient
from client_sim.offline import OfflineClient
from client_sim.protocol import ClientSimulator


def open_client(domain: str, mode: str = "offline", log_path: Path | None = None,
                held: Iterable[str] | None = None, complete: Complete | None = None) -> ClientSimulator:
    """A client simulator for a domain; `held` limits the client-held facts to a task's subset; mode 'llm'
    needs `complete(messages, **params) -> text`, one model call on the client-sim seat."""
    if mode == "offline":
        return OfflineClient(domain, log_path=log_path, held=held)
    if mode == "llm":
        if complete is None:
            raise ValueError("the LLM client mode needs a model: pass `complete` (a gateway chat client)")
        return LlmClient(domain, complete, log_path=log_path, held=held)
    raise ValueError(f"unknown client mode {mode!r} (known: offline, llm)")
