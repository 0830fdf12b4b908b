"""The three LLM modes on a real provider, one cheap model per provider whose key is set (skipped otherwise)."""

import os

import pytest

from build_kits.menu import rated_models
from client_sim.llm import LlmClient
from orchestrator.episode import ConversationLimits
from orchestrator.evaluation import evaluate_run
from orchestrator.gateway import GatewayServer
from orchestrator.gateway.chat_client import ChatClient
from orchestrator.records import read_json

from .conftest import reference_run

CHEAPEST = {}
for _model in sorted(rated_models().values(), key=lambda m: m.in_rate + m.out_rate):
    if not _model.offline:
        CHEAPEST.setdefault(_model.provider, _model)
LIVE = pytest.mark.parametrize("model", list(CHEAPEST.values()), ids=list(CHEAPEST))


def _need_key(model):
    if not os.environ.get(model.key_env):
        pytest.skip(f"{model.key_env} is not set")


def _task(tmp_path, model) -> str:
    path = tmp_path / "retail-94.toml"
    path.write_text("id = 'retail-94'\ndomain = 'retail'\ntitle = 'live'\n[tier]\nname = 'easy'\n"
                    f"budget_credits_per_conversation = 1.0\nmodels = ['{model.name}']\n")
    return str(path)


def _episode(run_dir, scenario, model, user_llm=None):
    evaluate_run(run_dir, trials=1, workers=1, show_progress=False, only_scenarios=[scenario],
                 limits=ConversationLimits(max_turns=12, turn_timeout_s=60), user_llm=user_llm)
    return read_json(run_dir / f"eval/episodes/{scenario}__t0.json")


@LIVE
def test_live_user_sim_plays_to_stop(tmp_path, model):
    _need_key(model)
    episode = _episode(reference_run(tmp_path / "run", "retail_expert"), "retail_lookup_status_01", model,
                       user_llm=model.name)
    assert episode["termination"] == "user_stop" and episode["reward"] == 1.0, episode["messages"]
    assert episode["user_sim"]["credits"] > 0 and episode["credits"] == 0.0


@LIVE
def test_live_client_answers_from_its_facts(tmp_path, model):
    _need_key(model)
    with GatewayServer(tmp_path / "ledger.jsonl") as gateway:
        seat = gateway.open_seat("client-sim", "live", [model.name])
        reply = LlmClient("retail", ChatClient.for_seat(seat, model.name)).answer(
            "Can the agent cancel an order worth more than a thousand dollars on its own?")
    assert reply.kind == "answer" and "RET-CAN-007" in reply.fact_ids and "FACTS" not in reply.text


@LIVE
def test_live_llm_agent_reads_with_the_model(tmp_path, model):
    _need_key(model)
    run_dir = reference_run(tmp_path / "run", "retail_expert_llm", task=_task(tmp_path, model))
    episode = _episode(run_dir, "retail_cancel_02", model)
    stderr = (run_dir / "eval/episodes" / episode["stderr_log"]).read_text()
    assert f"model: {model.name}" in stderr and "nlu: model read" in stderr and episode["credits"] > 0
    assert episode["reward"] == 1.0, (episode["messages"], stderr)
