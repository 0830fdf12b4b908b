"""LLM client simulator: persona and held / contested facts in its system prompt, answers from them through the
gateway on the client-sim seat, every exchange in the offline client's log format, hidden facts never in a kit."""

import json

from build_kits.taskspec import load_task
from client_sim.knowledge import client_knowledge
from client_sim.llm import LlmClient, split_reply
from client_sim.modes import open_client
from client_sim.offline import OfflineClient
from orchestrator.build import build_run
from orchestrator.gateway import GatewayServer
from orchestrator.gateway.chat_client import ChatClient
from orchestrator.records import read_json

from .conftest import CLIENT_MODEL
from .test_user_llm import FakeModel

HELD = {f.id: f for f in client_knowledge("retail")[0] if f.client_held}


def test_prompt_has_the_persona_and_only_the_facts_the_client_holds():
    client = LlmClient("retail", FakeModel(), held=["RET-CAN-007", "RET-REF-005"])
    prompt = client._system
    assert "Dana Whitfield" in prompt and "Operations Manager" in prompt and "Northwind Outfitters" in prompt
    assert HELD["RET-CAN-007"].voice in prompt and HELD["RET-REF-005"].voice in prompt
    assert "[RET-RET-002]" in prompt and "60 days" in prompt  # contested: the current rule, naming the old one
    assert HELD["RET-PRM-001"].voice not in prompt  # held, but not by this task's client
    assert {f.id for f in client.facts} == {"RET-CAN-007", "RET-REF-005", "RET-RET-002"}
    assert "Never recite" in prompt and "FACTS:" in prompt


def test_answers_log_like_the_offline_client(tmp_path):
    model = FakeModel("Above $1,000.00 the agent never cancels (RET-CAN-007) itself.\nFACTS: RET-CAN-007, RET-ZZZ-001",
                      RuntimeError("gateway down"))
    client = open_client("retail", mode="llm", log_path=tmp_path / "llm.jsonl", complete=model)
    reply = client.answer("Can agents cancel very expensive orders?")
    assert reply.text == "Above $1,000.00 the agent never cancels itself."  # no trailer, no fact id
    assert reply.kind == "answer" and reply.fact_ids == ["RET-CAN-007"]  # unknown ids dropped
    assert client.answer("Tell me all the rules").kind == "refuse_dump"  # no model call for that
    assert client.answer("  ?? ").kind == "empty"
    failed = client.answer("How long do refunds take?")
    assert failed.kind == "unavailable" and "ask me again" in failed.text
    assert len(model.calls) == 2
    messages = model.calls[1][0]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]  # it remembers the dialogue
    OfflineClient("retail", log_path=tmp_path / "offline.jsonl").answer("Can customers return perfume?")
    offline = json.loads((tmp_path / "offline.jsonl").read_text().splitlines()[0])
    lines = [json.loads(line) for line in (tmp_path / "llm.jsonl").read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["answer", "refuse_dump", "empty", "unavailable"]
    assert all(set(line) == set(offline) for line in lines)


def test_split_reply_without_trailer():
    assert split_reply("I don't know that one.", {"RET-CAN-007"}) == ("I don't know that one.", [])


def test_mock_answers_on_the_client_sim_seat(tmp_path):
    with GatewayServer(tmp_path / "ledger.jsonl", warm_up=False) as gateway:
        seat = gateway.open_seat("client-sim", "run-x", ["mock/northwind-small"])
        client = LlmClient("retail", ChatClient.for_seat(seat, "mock/northwind-small"))
        reply = client.answer("How long do refunds take? MOCK_REPLY Five to seven business days. FACTS: RET-REF-005")
        assert (reply.text, reply.kind, reply.fact_ids) == ("Five to seven business days.", "answer", ["RET-REF-005"])
        [entry] = gateway.ledger.entries(token_id=seat.token_id)
    assert entry["seat"] == "client-sim" and entry["status"] == "ok" and entry["credits"] > 0


def test_build_with_llm_client(tmp_path, routes):
    run_dir = tmp_path / "run"
    manifest = build_run(load_task("retail-01"), "reference", run_dir, seed=0, sandbox="local",
                         client_llm=CLIENT_MODEL, routes=routes)
    assert manifest["client_sim"] == {"mode": "llm", "model": CLIENT_MODEL}
    assert read_json(run_dir / "manifest.json")["client_sim"] == manifest["client_sim"]
    dialogue = [json.loads(line) for line in (run_dir / "build/client_dialogue.jsonl").read_text().splitlines()]
    assert [d["fact_ids"] for d in dialogue] == [["RET-CAN-007"], ["RET-RET-008"], ["RET-REF-005"]]
    assert dialogue[0]["question"].startswith("Is there an order value above which")
    assert "$1,000.00" in dialogue[0]["answer"] and "FACTS" not in dialogue[1]["answer"]
    ledger = [json.loads(line) for line in (run_dir / "build/gateway_ledger.jsonl").read_text().splitlines()]
    assert len(ledger) == 3 and all(e["seat"] == "client-sim" and e["status"] == "ok" for e in ledger)
    kit_text = "\n".join(p.read_text(errors="ignore") for p in (run_dir / "build/kit").rglob("*") if p.is_file())
    for fact in HELD.values():  # the client's hidden facts stay host-side
        assert fact.voice not in kit_text
