"""The developer's local-test scenario (documented in the kit's `framework/local_tests.md`), turned into the
held-out scenario model so that the one scripted user and the one grader play and grade it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from heldout.scenario import Evaluation, GoldAction, Scenario, Script


class LocalTestError(ValueError):
    """A scenario the developer wrote that cannot be played; the message is for the developer."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Expect(_Strict):
    """What a correct agent achieves: service operations (→ the expected database) and facts to state."""

    actions: list[GoldAction] | None = None
    communicate: list[str] = []


class DevScenario(_Strict):
    """One customer as the developer describes them."""

    name: str = "local test"
    persona: str = "A customer of the store"
    known_info: dict[str, str] = Field(min_length=1)
    instructions: str = ""
    script: Script
    initial_state_patch: dict[str, Any] = {}
    expect: Expect | None = None


def parse_scenario(data: object) -> DevScenario:
    """Validate the developer's JSON; one readable line per problem."""
    try:
        return DevScenario.model_validate(data)
    except ValidationError as err:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}" for e in err.errors()[:5]]
        raise LocalTestError("invalid scenario: " + "; ".join(problems)) from None


def to_scenario(dev: DevScenario, domain: str, number: int) -> tuple[Scenario, bool]:
    """The held-out form of a developer scenario, and whether it is graded (it says what to expect)."""
    expect = dev.expect or Expect()
    basis = (["DB"] if expect.actions is not None else []) + (["COMMUNICATE"] if expect.communicate else [])
    evaluation = Evaluation(actions=expect.actions or [], communicate_info=expect.communicate,
                            reward_basis=basis or ["DB"])
    scenario = Scenario(id=f"local_{number:03d}", domain=domain, category=dev.script.intent,
                        persona=dev.persona, reason_for_call=dev.name, known_info=dev.known_info,
                        instructions=dev.instructions or dev.name, initial_state_patch=dev.initial_state_patch,
                        evaluation=evaluation, script=dev.script)
    return scenario, bool(basis)
