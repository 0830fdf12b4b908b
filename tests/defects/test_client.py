"""The client knows the task's defects: it confirms one only when the developer names the operation and the
symptom, answers a vague question vaguely, and leaves questions that are not about the API to its facts."""

import json

import pytest

from build_kits.deployment import client_defects
from client_sim.defects import DefectDesk
from client_sim.modes import open_client

DEFECTS = client_defects("retail-production")


@pytest.fixture(scope="module")
def desk():
    return DefectDesk("retail", DEFECTS)


@pytest.mark.parametrize("question, defect_id, says", [
    ("When I call cancel_pending_order I sometimes get a 504 Gateway Timeout. Did it go through?",
     "first-write-times-out", "Idempotency-Key"),
    ("get_order_details returns orderStatus instead of status, is that expected?", "order-status-renamed",
     "`orderStatus` instead of `status`"),
    ('get_product_details says available "yes" instead of true', "availability-yes-no", '"yes" instead of true'),
    ("GET /orders/W0000001 shows the refund amounts negative", "refunds-negative", "negative"),
    ("/meta gives business_date as a datetime: 2026-06-15T00:00:00Z", "dates-as-datetimes", "first ten characters"),
    ("POST /orders/W0000001/return answered 202 Accepted and nothing changed", "deferred-returns-exchanges",
     "status_url"),
    ("get_order_details answers 429 Too Many Requests after a few calls", "order-reads-throttled", "Retry-After"),
    ("list_user_orders gives fewer orders than the limit and the cursor expired with a 410", "order-list-paging",
     "next_cursor"),
    ("After modify_pending_order_address, get_order_details still shows the old address", "read-model-lag",
     "read it back"),
])
def test_a_concrete_observation_is_confirmed_with_behaviour_and_remedy(desk, question, defect_id, says):
    reply = desk.answer(question)
    assert reply.kind == "defect" and reply.fact_ids == [defect_id] and says in reply.text


@pytest.mark.parametrize("question, asks", [
    ("Are there any known issues with the API?", "which call"),
    ("Is the store API flaky?", "which call"),
    ("What's wrong with the cancel endpoint?", "What exactly did you see"),
    ("I got a 504, what does it mean?", "which call was it"),
])
def test_a_vague_question_gets_a_vague_answer(desk, question, asks):
    reply = desk.answer(question)
    assert reply.kind == "defect_vague" and reply.fact_ids == [] and asks in reply.text
    assert not any(word in reply.text for word in ("Idempotency", "Retry-After", "status_url", "cursor"))


def test_a_symptom_on_a_call_without_that_defect_is_not_confirmed(desk):
    reply = desk.answer("get_product_details answers 429 Too Many Requests")
    assert reply.kind == "defect_vague" and reply.fact_ids == []


@pytest.mark.parametrize("question", ["Can the agent cancel an order that was delayed?",
                                      "Can a customer request a refund to another card?"])
def test_questions_not_about_the_api_go_to_the_facts(desk, question):
    assert desk.answer(question) is None


def test_the_task_client_confirms_and_logs_and_a_healthy_task_client_knows_no_defects(tmp_path):
    log = tmp_path / "dialogue.jsonl"
    client = open_client("retail", log_path=log, defects=DEFECTS)
    assert "Idempotency-Key" in client.ask("cancel_pending_order answered 504 gateway timeout")
    assert "$1,000.00" in client.ask("Can the agent cancel an order that costs more than $1,000?")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["kind"], line["fact_ids"]) for line in lines] == [("defect", ["first-write-times-out"]),
                                                                   ("answer", ["RET-CAN-007"])]
    healthy = open_client("retail")
    assert "Idempotency-Key" not in healthy.ask("cancel_pending_order answered 504 gateway timeout")
