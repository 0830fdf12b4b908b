"""The clock defect delays are measured on: wall time in service, a clock the test moves in tests."""

from __future__ import annotations

import math
import time
from typing import Protocol


class Clock(Protocol):
    """Seconds on a monotonic scale."""

    def now(self) -> float:
        """The current time in seconds."""
        ...


class WallClock:
    """Real monotonic time (what a served API uses)."""

    def now(self) -> float:
        """`time.monotonic()`."""
        return time.monotonic()


class ManualClock:
    """Time that only moves when told to, so a test waits out a `Retry-After` instantly."""

    def __init__(self, start: float = 1000.0):
        self._now = start

    def now(self) -> float:
        """The current virtual time."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move time forward (a client 'waiting')."""
        if seconds < 0:
            raise ValueError("time does not go backwards")
        self._now += seconds


def retry_after(seconds: float) -> str:
    """A `Retry-After` header value: whole seconds, rounded up, at least 1."""
    return str(max(1, math.ceil(seconds - 1e-9)))
