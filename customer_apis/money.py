"""Money arithmetic: every amount is a float rounded to 2 decimals after every computation."""

from __future__ import annotations

from collections.abc import Iterable


def round_money(amount: float) -> float:
    """Round to cents; `+ 0.0` turns -0.0 into 0.0 so equal amounts serialise (and hash) identically."""
    return round(float(amount), 2) + 0.0


def sum_money(amounts: Iterable[float]) -> float:
    """Sum amounts and round the result to cents."""
    return round_money(sum(amounts))
