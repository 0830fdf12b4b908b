"""A crashing, hanging or garbage-speaking agent scores 0 with its reason, and the run goes on."""

import json

import pytest

from orchestrator.episode import ConversationLimits
from orchestrator.evaluation import RunRecordError, evaluate_run

SCENARIOS = ["retail_cancel_01", "retail_lookup_status_01"]

CRASH_MID_CONVERSATION = """
import json, sys
line = sys.stdin.readline()
print(json.dumps({"type": "assistant", "content": "Hello, may I have your email?"}), flush=True)
sys.stdin.readline()
raise SystemExit("boom: the agent fell over")
"""

HANG = """
import sys, time
sys.stdin.readline()
time.sleep(60)
"""

GARBAGE = """
import sys
sys.stdin.readline()
print("this is not json", flush=True)
sys.stdin.readline()
"""


def _evaluate(run_dir, **kwargs):
    return evaluate_run(run_dir, trials=1, workers=2, show_progress=False, only_scenarios=SCENARIOS,
                        **kwargs)


def test_agent_crash_mid_conversation_scores_zero_and_run_goes_on(run_factory):
    run_dir = run_factory(CRASH_MID_CONVERSATION)
    results = _evaluate(run_dir)
    assert results["episodes"] == len(SCENARIOS)
    assert results["terminations"] == {"agent_crash": 2}
    assert results["quality"] == 0.0 and results["final"] == 0.0
    episode = json.loads((run_dir / "eval/episodes/retail_cancel_01__t0.json").read_text())
    assert episode["reward"] == 0.0
    assert episode["termination"] == "agent_crash"
    assert episode["agent_exit_code"] not in (0, None)
    assert [m["role"] for m in episode["messages"]] == ["user", "assistant", "user"]
    stderr = (run_dir / "eval/episodes" / episode["stderr_log"]).read_text()
    assert "boom: the agent fell over" in stderr


def test_hanging_agent_times_out(run_factory):
    run_dir = run_factory(HANG)
    results = _evaluate(run_dir, limits=ConversationLimits(turn_timeout_s=1.0))
    assert results["terminations"] == {"timeout": 2}
    assert results["quality"] == 0.0


def test_garbage_output_is_a_crash(run_factory):
    run_dir = run_factory(GARBAGE)
    results = _evaluate(run_dir)
    assert results["terminations"] == {"agent_crash": 2}
    episode = json.loads((run_dir / "eval/episodes/retail_cancel_01__t0.json").read_text())
    assert episode["messages"][-1] == {**episode["messages"][-1], "role": "invalid"}
    assert "this is not json" in episode["messages"][-1]["content"]


def test_not_a_run_directory(tmp_path):
    with pytest.raises(RunRecordError, match="no manifest.json"):
        evaluate_run(tmp_path, trials=1)


def test_unknown_scenario_selection(run_factory):
    run_dir = run_factory(HANG)
    with pytest.raises(RunRecordError, match="no held-out scenario 'nope'"):
        evaluate_run(run_dir, trials=1, only_scenarios=["nope"])
