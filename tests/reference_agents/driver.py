"""Small episode drivers for tests: in-process (agent Desk on the service) and end to end (HTTP + subprocess)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from customer_apis.errors import ApiError as ServiceError
from customer_apis.hashing import state_hash
from heldout.evaluator import RewardBreakdown, evaluate_episode, gold_state_hash, initial_service
from heldout.scenario import Scenario
from heldout.user_sim import ScriptedUser
from reference_agents.retail.agent.api import ApiError
from reference_agents.retail.agent.desk import Desk

MAX_TURNS = 30


@dataclass
class Episode:
    """What a test needs from one conversation."""

    termination: str
    messages: list[dict] = field(default_factory=list)
    final_hash: str = ""
    breakdown: RewardBreakdown | None = None

    @property
    def agent_messages(self) -> list[str]:
        return [m["content"] for m in self.messages if m["role"] == "assistant"]

    def transcript(self) -> str:
        return "\n".join(f"{m['role']}: {m['content']}" for m in self.messages)


class InProcessApi:
    """The agent's StoreApi surface served straight from a RetailService (no HTTP), for fast tests."""

    def __init__(self, service):
        self.service = service

    def __getattr__(self, name: str):
        def call(*args, **kwargs):
            try:
                result = getattr(self.service, name)(*args, **kwargs)
            except ServiceError as err:
                raise ApiError(err.status, err.code, err.message) from None
            if name.startswith("find_user_id"):
                return result.user_id
            if name == "list_user_orders":  # every page, as the agent's client reads it
                lines, page = [], result
                while True:
                    lines += [line.model_dump(mode="json") for line in page.orders]
                    if page.next_cursor is None:
                        return lines
                    page = self.service.list_user_orders(*args, cursor=page.next_cursor)
            if name == "get_business_date":
                return result.business_date.isoformat()
            return json.loads(json.dumps(result.model_dump(mode="json") if hasattr(result, "model_dump")
                                         else result, default=str))
        return call


def converse(send, scenario: Scenario, user_seed: int, messages: list[dict]) -> str:
    """Relay turns between `send(text) -> agent message dict | None` and the scripted user."""
    user = ScriptedUser(scenario, seed=user_seed)
    text = user.opening()
    for _ in range(MAX_TURNS):
        messages.append({"role": "user", "content": text})
        reply = send(text)
        if reply is None:
            return "agent_crash"
        if reply.get("type") == "transfer":
            messages.append({"role": "transfer", "content": reply.get("summary", "")})
            return "transfer"
        messages.append({"role": "assistant", "content": reply["content"]})
        if reply.get("end"):
            return "agent_end"
        turn = user.reply(reply["content"])
        if turn.stop:
            messages.append({"role": "user", "content": turn.content})
            return "user_stop"
        text = turn.content
    return "max_turns"


def grade(scenario: Scenario, episode: Episode, eval_seed: int) -> Episode:
    episode.breakdown = evaluate_episode(scenario, final_state_hash=episode.final_hash,
                                         gold_hash=gold_state_hash(scenario, eval_seed),
                                         agent_messages=episode.agent_messages, termination=episode.termination)
    return episode


def play_inprocess(scenario: Scenario, user_seed: int, mode: str, eval_seed: int) -> Episode:
    """One conversation with the agent's Desk running in this process on a fresh service."""
    service = initial_service(scenario, eval_seed)
    desk = Desk(InProcessApi(service), expert=mode == "expert")
    episode = Episode(termination="")
    episode.termination = converse(desk.respond, scenario, user_seed, episode.messages)
    episode.final_hash = state_hash(service.db)
    return grade(scenario, episode, eval_seed)
