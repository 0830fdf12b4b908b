"""Offline client simulator: answers held facts, says when it doesn't know, never dumps, logs everything."""

import json

import pytest

from client_sim.modes import open_client
from client_sim.offline import OfflineClient
from client_sim.persona import load_persona
from client_sim.protocol import ClientSimulator
from client_sim.retrieval import stem, tokenize
from evidence_corpus.facts import load_facts

PERSONA = load_persona("retail")


@pytest.fixture(scope="module")
def client():
    return OfflineClient("retail")


def test_persona_is_the_operations_manager():
    assert PERSONA.name == "Dana Whitfield"
    assert PERSONA.role == "Operations Manager"
    assert PERSONA.company == "Northwind Outfitters"


@pytest.mark.parametrize("question", [
    "Can the agent cancel an order that costs more than $1,000?",
    "Is there any limit on which orders the agent may cancel, e.g. very expensive ones?",
])
def test_large_order_cancellation_threshold(client, question):
    reply = client.answer(question)
    assert reply.kind == "answer"
    assert reply.fact_ids[0] == "RET-CAN-007"
    assert "$1,000.00" in reply.text and "transfer" in reply.text and "never cancel" in reply.text


@pytest.mark.parametrize("question", [
    "Are there products that customers can never return?",
    "Can a customer send back wireless earbuds they opened?",
    "Can customers return perfume?",
])
def test_hygiene_items(client, question):
    reply = client.answer(question)
    assert reply.fact_ids[0] == "RET-RET-008"
    assert "Wireless Earbuds" in reply.text and "Perfume" in reply.text and "exchange" in reply.text


def test_confirms_the_contested_return_window(client):
    reply = client.answer("Is the return window 30 or 60 days?")
    assert reply.fact_ids == ["RET-RET-002"]
    assert "30 days" in reply.text and "withdrew" in reply.text


@pytest.mark.parametrize("question, fact_id, value", [
    ("How long does a refund to a gift card take?", "RET-REF-005", "immediately"),
    ("How should the agent greet customers?", "RET-COM-009", "Happy trails!"),
    ("Can we give a coupon to an unhappy customer?", "RET-COM-010", "store credit"),
    ("Is there a loyalty program?", "RET-PRM-002", "September 2026"),
    ("What should the transfer summary contain?", "RET-ESC-007", "user id"),
])
def test_other_client_held_facts(client, question, fact_id, value):
    reply = client.answer(question)
    assert reply.fact_ids[0] == fact_id and value in reply.text


@pytest.mark.parametrize("question", ["What is the weather in Paris tomorrow?", "Who won the football game?"])
def test_unrelated_question_gets_i_dont_know(client, question):
    reply = client.answer(question)
    assert reply.kind == "unknown" and reply.fact_ids == []
    assert reply.text == PERSONA.phrases.unknown and "don't know" in reply.text


@pytest.mark.parametrize("question", ["Which carriers do you use for overnight shipping?",
                                      "What are the cancellation reasons?"])
def test_documented_matters_point_to_the_documents(client, question):
    reply = client.answer(question)
    assert reply.kind == "in_docs" and reply.fact_ids == []
    assert "documents" in reply.text


@pytest.mark.parametrize("question", ["Tell me everything", "list all rules", "Can you give me the whole policy?",
                                      "Please share all the requirements.", "everything",
                                      "Are there rules that are not in the documents?"])
def test_refuses_to_dump_the_policy(client, question):
    reply = client.answer(question)
    assert reply.kind == "refuse_dump" and reply.fact_ids == []
    assert "specific" in reply.text
    for fact in (f for f in load_facts("retail") if f.client_held):
        assert fact.voice not in reply.text


def test_never_discloses_more_than_two_facts(client):
    questions = ["refund cancel return exchange hygiene loyalty sale greeting coupon transfer delivery",
                 "What about returns, refunds, cancellations and promotions?",
                 "earbuds perfume 1000 coupon trail club summer sale happy trails"]
    for question in questions:
        assert len(client.answer(question).fact_ids) <= 2


def test_empty_question(client):
    assert client.answer("  ?? ").kind == "empty"


def test_answers_are_deterministic(client):
    question = "Are there products that customers can never return?"
    assert client.ask(question) == client.ask(question) == OfflineClient("retail").ask(question)


def test_every_exchange_is_logged(tmp_path):
    log = tmp_path / "dialogue" / "client.jsonl"
    client = OfflineClient("retail", log_path=log)
    questions = ["Can the agent cancel an order that costs more than $1,000?", "tell me everything",
                 "What is the weather in Paris tomorrow?"]
    answers = [client.ask(q) for q in questions]
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [r["question"] for r in lines] == questions
    assert [r["answer"] for r in lines] == answers
    assert [r["kind"] for r in lines] == ["answer", "refuse_dump", "unknown"]
    assert lines[0]["fact_ids"] == ["RET-CAN-007"] and lines[0]["score"] > 0
    assert lines[1]["fact_ids"] == [] and lines[1]["score"] is None
    assert all(r["ts"].endswith("+00:00") and r["client"] == "Dana Whitfield" for r in lines)
    OfflineClient("retail", log_path=log).ask("Is there a loyalty program?")
    assert len(log.read_text(encoding="utf-8").splitlines()) == 4  # appended, never rewritten


def test_task_subset_of_held_facts(tmp_path):
    client = OfflineClient("retail", held=["RET-RET-008"])
    assert client.answer("Can customers return perfume?").fact_ids == ["RET-RET-008"]
    reply = client.answer("Can the agent cancel an order that costs more than $1,000?")
    assert "RET-CAN-007" not in reply.fact_ids and "1,000" not in reply.text
    with pytest.raises(ValueError, match="not client-held"):
        OfflineClient("retail", held=["RET-CAN-001"])


def test_protocol_seam():
    client = open_client("retail")
    assert isinstance(client, ClientSimulator) and isinstance(client, OfflineClient)
    with pytest.raises(ValueError, match="needs a model"):
        open_client("retail", mode="llm")
    with pytest.raises(ValueError, match="unknown client mode"):
        open_client("retail", mode="psychic")


def test_query_normalisation():
    assert stem("cancelled") == stem("cancellation") == stem("cancel") == "cancel"
    assert stem("perfumes") == stem("perfume")
    assert tokenize("Orders over $1,000.00?", {}) == ["order", "over", "1000"]
    assert tokenize("cologne", {"cologne": "perfume"}) == [stem("perfume")]
