"""pass^k (τ-bench): the chance that k trials of a scenario drawn without replacement all succeed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb


def pass_hat_k(successes: Mapping[str, Sequence[bool]], k: int) -> float:
    """Mean over scenarios of C(c, k) / C(n, k), with n trials and c successes per scenario."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not successes:
        raise ValueError("pass^k of no scenarios is undefined")
    total = 0.0
    for scenario_id, trials in successes.items():
        n, c = len(trials), sum(bool(t) for t in trials)
        if n < k:
            raise ValueError(f"scenario {scenario_id}: {n} trials < k={k}")
        total += comb(c, k) / comb(n, k)
    return total / len(successes)
