"""Small episode drivers for tests: in-process (agent Desk on the service) and end to end (HTTP + subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

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


def play_subprocess(scenario: Scenario, user_seed: int, submission: Path, command: list[str], registry,
                    public_url: str, eval_seed: int, timeout: float = 20.0) -> Episode:
    """One conversation with the agent as a process of a materialised submission, against a live tenant."""
    tenant = registry.create("retail", seed=eval_seed, initial_state_patch=scenario.initial_state_patch or None)
    env = {**os.environ, "HYPERTAU_API_URL": f"{public_url}/t/{tenant.token}",
           "HYPERTAU_CONVERSATION_ID": scenario.id, "PYTHONPATH": ""}
    argv = [sys.executable if c == "python" else c for c in command]
    proc = subprocess.Popen(argv, cwd=submission, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    stderr: list[str] = []
    threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True).start()

    def send(text: str):
        proc.stdin.write(json.dumps({"type": "user", "content": text}) + "\n")
        proc.stdin.flush()
        result: list[str] = []
        reader = threading.Thread(target=lambda: result.append(proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        return json.loads(result[0]) if result and result[0].strip() else None

    episode = Episode(termination="")
    try:
        episode.termination = converse(send, scenario, user_seed, episode.messages)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
    episode.final_hash = tenant.state_hash()
    registry.delete(tenant.tenant_id)
    episode.messages.append({"role": "stderr", "content": "".join(stderr)[-2000:]})
    return grade(scenario, episode, eval_seed)
