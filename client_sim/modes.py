"""Open a client simulator by mode: 'offline' (retrieval over the facts) or 'llm' (a model plays the client)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from client_sim.defects import DefectAwareClient, DefectDesk
from client_sim.llm import Complete, LlmClient
from client_sim.offline import OfflineClient
from client_sim.protocol import ClientSimulator


def open_client(domain: str, mode: str = "offline", log_path: Path | None = None,
                held: Iterable[str] | None = None, complete: Complete | None = None,
                defects: Iterable[dict] | None = None) -> ClientSimulator:
    """A client simulator for a domain; `held` limits the client-held facts to a task's subset; mode 'llm'
    needs `complete(messages, **params) -> text`, one model call on the client-sim seat; `defects` (the task's
    deployment) lets the client confirm the API defects a developer reports concretely."""
    client = _open(domain, mode, log_path, held, complete)
    defects = list(defects or [])
    return DefectAwareClient(client, DefectDesk(domain, defects), log_path) if defects else client


def _open(domain: str, mode: str, log_path: Path | None, held: Iterable[str] | None,
          complete: Complete | None) -> ClientSimulator:
    if mode == "offline":
        return OfflineClient(domain, log_path=log_path, held=held)
    if mode == "llm":
        if complete is None:
            raise ValueError("the LLM client mode needs a model: pass `complete` (a gateway chat client)")
        return LlmClient(domain, complete, log_path=log_path, held=held)
    raise ValueError(f"unknown client mode {mode!r} (known: offline, llm)")
