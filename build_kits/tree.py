"""File-tree fingerprints: per-file sha256 index and one hash over it (kits and sealed submissions)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from customer_apis.hashing import state_hash

IGNORED_PARTS = {".git", "__pycache__"}


def tree_index(root: Path) -> dict[str, str]:
    """Relative POSIX path → sha256 of content, for every regular file under `root` (not .git, caches)."""
    root = Path(root)
    index = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not path.is_symlink() and not IGNORED_PARTS.intersection(relative.parts):
            index[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return index


def tree_hash(index: dict[str, str]) -> str:
    """One hash for a whole tree index (the project's canonical-JSON hash)."""
    return state_hash(index)
