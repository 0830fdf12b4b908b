"""Derived seeds: every random choice of a run is a hash of the run seed and named parts."""

import hashlib


def derive_seed(run_seed: int, *parts: object) -> int:
    """A 63-bit seed from the run seed and any labels (scenario, trial, purpose)."""
    text = ":".join(str(p) for p in (run_seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
