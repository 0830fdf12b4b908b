"""The pinned coding-agent CLIs (`clis.toml`): what the developer image stages and each adapter runs."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PINS = Path(__file__).with_name("clis.toml")


@dataclass(frozen=True)
class CliPin:
    """One CLI: its npm package, exact version and the executable it installs."""

    harness: str
    package: str
    version: str
    bin: str

    @property
    def npm_spec(self) -> str:
        return f"{self.package}@{self.version}"


@lru_cache(maxsize=1)
def cli_pins() -> dict[str, CliPin]:
    """Every pinned CLI by harness name."""
    data = tomllib.loads(PINS.read_text(encoding="utf-8"))
    return {name: CliPin(harness=name, **fields) for name, fields in data.items()}


def npm_specs() -> tuple[str, ...]:
    """`package@version` of every pinned CLI, for the developer image."""
    return tuple(pin.npm_spec for pin in cli_pins().values())
