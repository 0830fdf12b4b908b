"""Open a client simulator by mode; 'offline' (retrieval) exists, 'llm' is the seam for the language-model mode."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from client_sim.offline import OfflineClient
from client_sim.protocol import ClientSimulator


def open_client(domain: str, mode: str = "offline", log_path: Path | None = None,
                held: Iterable[str] | None = None) -> ClientSimulator:
    """A client simulator for a domain; `held` limits the client-held facts to a task's subset."""
    if mode == "offline":
        return OfflineClient(domain, log_path=log_path, held=held)
    if mode == "llm":
        raise NotImplementedError("the LLM client mode is not built yet; use mode='offline'")
    raise ValueError(f"unknown client mode {mode!r} (known: offline, llm)")
