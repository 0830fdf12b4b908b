"""Grade an episode: gold DB (seed + patch + gold actions, no defects), communicated facts, termination, and
unsafe handling of the API's defects (any violation in the tenant's request log zeroes the reward)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel

from customer_apis.defects.violations import find_violations
from customer_apis.domains import get_domain
from customer_apis.hashing import state_hash
from customer_apis.patching import apply_merge_patch
from heldout.scenario import Scenario

Termination = Literal["user_stop", "agent_end", "transfer", "max_turns", "agent_crash", "timeout"]
TERMINATIONS: tuple[str, ...] = Termination.__args__
ZERO_TERMINATIONS = ("agent_crash", "timeout")
API_DEFECT = "api_defect"  # the reason tag of an episode zeroed for unsafe handling of a defect
TRANSFER_WORDS = re.compile(r"\btransfer", re.I)


class RewardBreakdown(BaseModel):
    """The reward of one episode, each component of its basis, and a one-line human-readable reason."""

    reward: float
    termination: str
    db_match: bool | None = None
    communicate_missing: list[str] | None = None
    transferred: bool | None = None
    violations: list[dict] = []
    reason: str


@lru_cache(maxsize=4)
def _initial_json(domain: str, seed: int, patch_json: str) -> dict:
    """JSON form of the seed DB with a patch applied (cached; only ever read, validation copies it)."""
    spec = get_domain(domain)
    return apply_merge_patch(spec.generate_db(seed).model_dump(mode="json"), json.loads(patch_json))


def initial_service(scenario: Scenario, seed: int):
    """A fresh domain service on the seed DB with the scenario's initial-state patch (what a tenant starts from)."""
    spec = get_domain(scenario.domain)
    patch = json.dumps(scenario.initial_state_patch, sort_keys=True)
    return spec.service_class(spec.load_db(_initial_json(scenario.domain, seed, patch)))


def gold_service(scenario: Scenario, seed: int):
    """The initial service with the gold actions applied through the service layer (no defects)."""
    service = initial_service(scenario, seed)
    for action in scenario.evaluation.actions:
        service.invoke(action.name, action.kwargs)
    return service


@lru_cache(maxsize=4096)
def _gold_hash(scenario_json: str, seed: int) -> str:
    return state_hash(gold_service(Scenario.model_validate_json(scenario_json), seed).db)


def gold_state_hash(scenario: Scenario, seed: int) -> str:
    """State hash of the gold database of a scenario at an evaluation seed (memoised: it is deterministic)."""
    return _gold_hash(scenario.model_dump_json(), seed)


def _normalise(text: str) -> str:
    return text.lower().replace("$", "").replace(",", "")


def missing_info(communicate_info: Sequence[str], agent_messages: Sequence[str]) -> list[str]:
    """The facts no agent message states (lower-cased, `$` and `,` removed on both sides)."""
    said = [_normalise(m) for m in agent_messages]
    return [info for info in communicate_info if not any(_normalise(info) in m for m in said)]


def _announced_transfer(termination: str, agent_messages: Sequence[str]) -> bool:
    """A hand-off happened: a transfer message, or the user left after the agent announced a transfer."""
    if termination == "transfer":
        return True
    last = agent_messages[-1] if agent_messages else ""
    return termination == "user_stop" and bool(TRANSFER_WORDS.search(last))


def _api_defect(violations: list[dict]) -> str:
    """`api_defect: <kind> at request <seq> (<method> <path>); ...`"""
    return f"{API_DEFECT}: " + "; ".join(f"{v['kind']} at request {v['seq']} ({v['method']} {v['path']})"
                                         for v in violations)


def evaluate_episode(scenario: Scenario, *, final_state_hash: str, gold_hash: str, agent_messages: list[str],
                     termination: str, request_log: Sequence[dict] = ()) -> RewardBreakdown:
    """Reward = product of the basis components (DB, COMMUNICATE, TRANSFER); crash, timeout and any violation
    in the request log (double write after a timeout, acting on a stale read, a write left unresolved) give 0."""
    if termination not in TERMINATIONS:
        raise ValueError(f"unknown termination {termination!r}; expected one of {', '.join(TERMINATIONS)}")
    violations = find_violations(request_log)
    if violations:
        return RewardBreakdown(reward=0.0, termination=termination, violations=violations,
                               reason=_api_defect(violations))
    if termination in ZERO_TERMINATIONS:
        return RewardBreakdown(reward=0.0, termination=termination,
                               reason=f"episode ended by {termination}: reward 0")
    basis = scenario.evaluation.reward_basis
    result = RewardBreakdown(reward=1.0, termination=termination, reason="")
    failures: list[str] = []
    if "DB" in basis:
        result.db_match = final_state_hash == gold_hash
        if not result.db_match:
            failures.append("final database differs from the gold database")
    if "COMMUNICATE" in basis:
        result.communicate_missing = missing_info(scenario.evaluation.communicate_info, agent_messages)
        if result.communicate_missing:
            failures.append("not communicated: " + ", ".join(result.communicate_missing))
    if "TRANSFER" in basis:
        result.transferred = _announced_transfer(termination, agent_messages)
        if not result.transferred:
            failures.append("no transfer to a human agent")
    result.reward = 0.0 if failures else 1.0
    checked = "+".join(b for b in basis if b != "NL_ASSERTION")
    result.reason = "; ".join(failures) if failures else f"all of {checked} satisfied ({termination})"
    if "NL_ASSERTION" in basis:
        result.reason += " (NL assertions are not graded by the offline evaluator)"
    return result
