"""Invariant 4: no held-out scenario id or text, gold hash or client-held fact text exists anywhere in the
developer image or in a kit. The needles are computed on the host; the image is scanned from the inside
by a throwaway root container that has no network."""

from __future__ import annotations

import pytest

from build_kits.assemble import assemble_kit
from build_kits.taskspec import load_task
from evidence_corpus.facts import load_facts
from heldout.evaluator import gold_state_hash
from heldout.scenario import load_domain_config, load_scenarios
from orchestrator.sandbox import engine
from orchestrator.sandbox.docker import ContainerSpec, Mount, create_container
from orchestrator.sandbox.engine import Session

from .conftest import leftovers

pytestmark = pytest.mark.docker

SCAN = """
for d in /*; do
  case "$d" in /proc|/sys|/dev|/scan) ;; *) grep -rlF -f /scan/needles "$d" ;; esac
done
true
"""


def _needles(domain: str) -> list[str]:
    scenarios = load_scenarios(domain)
    seed = load_domain_config(domain).eval_seed
    needles = [s.id for s in scenarios] + [s.instructions for s in scenarios]
    needles += [gold_state_hash(s, seed) for s in scenarios]
    for fact in load_facts(domain):
        if fact.client_held:
            needles += [fact.statement, fact.voice]
    assert len(scenarios) >= 40 and all(needles)
    return needles


@pytest.fixture(scope="module")
def needles():
    return _needles("retail")


def test_kit_holds_no_heldout_data(needles, tmp_path):
    kit = tmp_path / "kit"
    assemble_kit(load_task("retail-01"), kit, provenance_path=tmp_path / "kit_provenance.json")
    files = [p for p in kit.rglob("*") if p.is_file()]
    assert len(files) > 10
    found = {(str(p.relative_to(kit)), n[:40]) for p in files for n in needles
             if n.encode() in p.read_bytes()}
    assert found == set()


def test_developer_image_holds_no_heldout_data(needles, images, run_id, tmp_path):
    scan_dir = tmp_path / "scan"
    scan_dir.mkdir()
    (scan_dir / "needles").write_text("\n".join(needles) + "\n")
    scan_dir.chmod(0o755)
    control = needles[0]  # a planted copy proves the scan would see a leak
    spec = ContainerSpec(image=images["developer"], labels=Session(run_id).labels("scan"), user="0:0",
                         read_only=True, mounts=(Mount(str(scan_dir), "/scan"),),
                         tmpfs={"/tmp": "rw,size=16m"})
    client = engine.client(timeout=600)
    container = create_container(client, spec, ["sh", "-c", f"echo '{control}' > /tmp/control;" + SCAN])
    try:
        container.start()
        assert container.wait(timeout=600)["StatusCode"] == 0
        hits = container.logs(stdout=True, stderr=False).decode().split()
    finally:
        container.remove(force=True)
        client.close()
    assert hits == ["/tmp/control"]
    assert leftovers(run_id) == {"containers": [], "networks": []}
