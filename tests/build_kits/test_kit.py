"""The kit: complete, deterministic, neutrally named, and free of held-out data and client-held facts."""

import json
import re

import pytest

from build_kits.assemble import assemble_kit
from build_kits.taskspec import load_task
from evidence_corpus.facts import load_facts
from evidence_corpus.verify import find_leaks
from heldout.evaluator import gold_state_hash
from heldout.scenario import load_domain_config, load_scenarios


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    root = tmp_path_factory.mktemp("kit")
    spec = load_task("retail-01")
    built = assemble_kit(spec, root / "kit", provenance_path=root / "provenance.json")
    return spec, built, root


def _texts(kit_root):
    return {p.relative_to(kit_root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in kit_root.rglob("*") if p.is_file()}


def test_kit_layout(kit):
    _, built, root = kit
    k = built.root
    for path in ("BRIEF.md", "menu.json", "api/openapi.json", "api/dev_seed_summary.json",
                 "framework/agent_contract.md", "workspace/agent.toml", "KIT_INDEX.json"):
        assert (k / path).is_file(), path
    openapi = json.loads((k / "api/openapi.json").read_text())
    assert openapi["openapi"].startswith("3.1")
    assert "/orders/{order_id}/cancel" in openapi["paths"]
    assert not any(p.startswith("/admin") or p.startswith("/tenants") for p in openapi["paths"])
    summary = json.loads((k / "api/dev_seed_summary.json").read_text())
    assert summary["seed"] == 7 and summary["counts"]["orders"] >= 1000
    menu = json.loads((k / "menu.json").read_text())
    assert menu["tiers"][0]["budget_credits_per_conversation"] == pytest.approx(0.40)  # rate card: retail easy
    evidence = sorted(p.name for p in (k / "evidence").iterdir())
    assert len(evidence) >= 10
    assert all(re.fullmatch(r"\d{3}\.(md|eml|csv|jsonl|txt)", name) for name in evidence), evidence
    assert not (k / "provenance.json").exists() and (root / "provenance.json").is_file()
    assert built.files == len(json.loads((k / "KIT_INDEX.json").read_text()))


def test_kit_is_deterministic(kit, tmp_path):
    spec, built, _ = kit
    again = assemble_kit(spec, tmp_path / "kit", provenance_path=tmp_path / "provenance.json")
    assert again.sha256 == built.sha256


def test_no_heldout_data_in_kit(kit):
    spec, built, _ = kit
    texts = _texts(built.root)
    scenarios = load_scenarios(spec.domain)
    seed = load_domain_config(spec.domain).eval_seed
    needles = {s.id for s in scenarios} | {gold_state_hash(s, seed) for s in scenarios[:10]}
    needles |= {s.instructions for s in scenarios}
    found = [(n, path) for n in needles for path, text in texts.items() if n in text]
    assert found == []
    assert str(seed) not in texts["api/dev_seed_summary.json"].split('"seed": ')[1][:8]


def test_no_client_held_fact_in_kit(kit):
    _, built, _ = kit
    facts = load_facts("retail")
    held = [f for f in facts if f.client_held]
    assert len(held) >= 4
    texts = _texts(built.root)
    for fact in held:
        assert not any(fact.statement in text for text in texts.values()), fact.id
    prose = {p: t for p, t in texts.items() if p.startswith(("evidence/", "BRIEF", "framework/", "workspace/"))}
    assert find_leaks(facts, prose) == []
