"""The stakeholder persona (name, role, tone, stock phrases), read from `client_sim/data/persona_<domain>.json`."""

from __future__ import annotations

import json
from importlib import resources

from pydantic import BaseModel, ConfigDict


class Phrases(BaseModel):
    """What the persona says when it does not answer from a fact."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unknown: str
    in_docs: str
    refuse_dump: str
    empty: str
    also: str


class Persona(BaseModel):
    """The client's operations manager as the developer meets them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    role: str
    company: str
    tone: str
    phrases: Phrases


def read_data(name: str) -> dict:
    """A JSON data file of `client_sim/data/`."""
    return json.loads(resources.files("client_sim.data").joinpath(name).read_text("utf-8"))


def load_persona(domain: str) -> Persona:
    """The persona of a domain's client."""
    return Persona.model_validate(read_data(f"persona_{domain}.json"))
