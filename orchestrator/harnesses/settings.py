"""The harness defaults (`settings.toml`) and the task prompt (`prompt.md`), read once."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).parent
REPLAYS = HERE / "replays"


@lru_cache(maxsize=1)
def settings() -> dict:
    """The parsed `settings.toml`."""
    return tomllib.loads((HERE / "settings.toml").read_text(encoding="utf-8"))


def prompt(time_limit_minutes: float) -> str:
    """The task prompt every coding-agent harness starts with."""
    text = (HERE / "prompt.md").read_text(encoding="utf-8")
    return text.format(time_limit_minutes=f"{time_limit_minutes:g}").strip()
