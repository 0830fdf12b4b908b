"""Neutral file naming: evidence files get names that reveal neither their source nor the facts they hold."""

from __future__ import annotations

import hashlib
from pathlib import Path


def neutral_names(paths: list[Path], salt: str) -> dict[Path, str]:
    """Map each artifact path to `<NNN><suffix>`, ordered by a salted hash so the order carries no meaning."""
    ordered = sorted(paths, key=lambda p: hashlib.sha256(f"{salt}:{p.as_posix()}".encode()).hexdigest())
    width = max(3, len(str(len(ordered))))
    return {path: f"{index:0{width}d}{path.suffix}" for index, path in enumerate(ordered, 1)}
