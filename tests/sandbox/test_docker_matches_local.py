"""Acceptance: `hypertau run --developer reference --task retail-01 --trials 2` scores exactly the same in the
docker sandbox as in the local one: every scenario's rewards and final state hashes, trial by trial."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import leftovers

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _run(run_dir, sandbox: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "orchestrator.cli", "run", "--developer", "reference",
                           "--task", "retail-01", "--sandbox", sandbox, "--trials", "2", "--out", str(run_dir)],
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((run_dir / "results.json").read_text())


def test_docker_scores_equal_local(tmp_path, run_id, images):
    docker = _run(tmp_path / run_id, "docker")
    local = _run(tmp_path / f"{run_id}-local", "local")
    assert docker["sandbox"] == "docker" and local["sandbox"] == "local"
    assert docker["episodes"] == local["episodes"] == 2 * len(local["scenarios"])
    for sid, scenario in local["scenarios"].items():
        assert docker["scenarios"][sid]["rewards"] == scenario["rewards"], sid
        assert docker["scenarios"][sid]["final_state_hashes"] == scenario["final_state_hashes"], sid
    for key in ("quality", "penalty", "final", "pass_hat_k", "terminations", "submission_sha256"):
        assert docker[key] == local[key], key
    assert leftovers(run_id) == {"containers": [], "networks": []}
