"""A sealed agent in a docker sandbox reaches the model gateway (through the relay, by name) and is charged
exactly as the same agent in the local sandbox; it still reaches nothing else of the host."""

from __future__ import annotations

import pytest

from orchestrator.records import read_json, write_json_atomic
from tests.gateway.test_evaluation import GATEWAY_AGENT, SCENARIOS, _evaluate, _run, _task
from tests.orchestrator.conftest import make_run

from .conftest import leftovers

pytestmark = pytest.mark.docker


def test_gateway_calls_from_docker_are_charged_like_local(tmp_path, run_id, images, monkeypatch):
    task = _task(tmp_path, 10.0)
    local_dir = _run(tmp_path / "local", GATEWAY_AGENT, task)
    local = _evaluate(local_dir)
    monkeypatch.setattr("tests.gateway.test_evaluation.evaluate_run", _with_sandbox("docker"))
    docker_dir = make_run(tmp_path / run_id, GATEWAY_AGENT)  # named after run_id: its labels are checked below
    write_json_atomic(docker_dir / "manifest.json", {**read_json(docker_dir / "manifest.json"), "task": task})
    docker = _evaluate(docker_dir)
    assert docker["sandbox"] == "docker" and local["sandbox"] == "local"
    for scenario in SCENARIOS:
        in_docker = read_json(docker_dir / f"eval/episodes/{scenario}__t0.json")
        in_local = read_json(local_dir / f"eval/episodes/{scenario}__t0.json")
        assert in_docker["error"] is None, in_docker["error"]
        assert in_docker["gateway"]["calls"] >= 1 and in_docker["credits"] > 0
        assert in_docker["credits"] == pytest.approx(in_local["credits"], rel=1e-12)
        assert [m["content"] for m in in_docker["messages"]] == [m["content"] for m in in_local["messages"]]
    assert docker["gateway"]["by_seat"]["agent"]["calls"] == local["gateway"]["by_seat"]["agent"]["calls"]
    assert leftovers(run_id) == {"containers": [], "networks": []}


def _with_sandbox(kind: str):
    from orchestrator.evaluation import evaluate_run

    def evaluate(run_dir, **kwargs):
        return evaluate_run(run_dir, sandbox=kind, **kwargs)

    return evaluate
