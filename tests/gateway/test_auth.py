"""Token scope: unknown / expired / revoked → 401, model off the menu or reasoning off the rule → 403,
developer seat past its hard cap → 402; each in the wire's own error JSON, each in the ledger."""

import time

import anthropic
import httpx
import openai
import pytest

from orchestrator.gateway import TokenStore

from .conftest import LARGE, SMALL

HELLO = [{"role": "user", "content": "hello"}]


def _post(gateway, path, token, body):
    return httpx.post(gateway.url + path, json=body, headers={"authorization": f"Bearer {token}"} if token else {})


@pytest.mark.parametrize("token", ["", "ht-not-a-real-token"])
def test_401_in_each_wire_shape(gateway, token):
    chat = _post(gateway, "/v1/chat/completions", token, {"model": SMALL, "messages": HELLO})
    assert chat.status_code == 401 and chat.json()["error"]["type"] == "authentication_error"
    resp = _post(gateway, "/v1/responses", token, {"model": SMALL, "input": "hello"})
    assert resp.status_code == 401 and resp.json()["error"]["code"] == "authentication"
    msgs = httpx.post(gateway.url + "/v1/messages", json={"model": SMALL, "max_tokens": 5, "messages": HELLO},
                      headers={"x-api-key": token} if token else {})
    assert msgs.status_code == 401
    assert msgs.json() == {"type": "error", "error": {"type": "authentication_error", "message": msgs.json()["error"]
                                                      ["message"]}}


def test_401_with_sdks_expired_and_revoked(gateway, seat, clients):
    expired = seat(ttl_s=0.05)
    time.sleep(0.1)
    oa, an = clients(expired.token)
    with pytest.raises(openai.AuthenticationError, match="expired"):
        oa.chat.completions.create(model=SMALL, messages=HELLO)
    with pytest.raises(anthropic.AuthenticationError, match="expired"):
        an.messages.create(model=SMALL, max_tokens=10, messages=HELLO)
    revoked = seat()
    revoked.close()
    with pytest.raises(openai.AuthenticationError, match="unknown or revoked"):
        clients(revoked.token)[0].responses.create(model=SMALL, input="hello")
    entry = gateway.ledger.entries(token_id=expired.token_id)[-1]
    assert (entry["status"], entry["http_status"], entry["seat"]) == ("rejected", 401, None)


def test_403_model_off_the_menu(gateway, seat, clients):
    s = seat(models=[SMALL])
    oa, an = clients(s.token)
    with pytest.raises(openai.PermissionDeniedError, match="not on the menu"):
        oa.chat.completions.create(model=LARGE, messages=HELLO)
    with pytest.raises(openai.PermissionDeniedError):
        oa.responses.create(model="gpt-5", input="hello")
    with pytest.raises(anthropic.PermissionDeniedError) as info:
        an.messages.create(model="claude-sonnet-4-5", max_tokens=10, messages=HELLO)
    assert info.value.body["error"]["type"] == "permission_error"
    entry = gateway.ledger.entries(token_id=s.token_id)[-1]
    assert (entry["status"], entry["http_status"], entry["model"], entry["credits"]) == (
        "rejected", 403, "claude-sonnet-4-5", 0.0)


def test_403_reasoning_rules(seat, clients):
    pinned_off = clients(seat(reasoning="off").token)[0]
    with pytest.raises(openai.PermissionDeniedError, match="pinned off"):
        pinned_off.chat.completions.create(model=SMALL, messages=HELLO, reasoning_effort="high")
    assert pinned_off.chat.completions.create(model=SMALL, messages=HELLO).usage.completion_tokens_details \
        .reasoning_tokens == 0
    one_of = clients(seat(reasoning=("minimal", "low")).token)[0]
    with pytest.raises(openai.PermissionDeniedError, match="not allowed on this tier"):
        one_of.responses.create(model=SMALL, input="hello", reasoning={"effort": "high"})
    low = one_of.responses.create(model=SMALL, input="hello", reasoning={"effort": "low"})
    assert low.usage.output_tokens_details.reasoning_tokens == 8


def test_402_developer_hard_cap(gateway, seat, clients):
    dev = seat("developer", models=[LARGE], cap_credits=0.0002, run_id="run-cap")
    oa, an = clients(dev.token)
    oa.chat.completions.create(model=LARGE, messages=HELLO)  # 0.000105 credits
    oa.chat.completions.create(model=LARGE, messages=HELLO)  # 0.00021: past the cap now
    with pytest.raises(openai.APIStatusError) as info:
        oa.chat.completions.create(model=LARGE, messages=HELLO)
    assert info.value.status_code == 402 and info.value.body["type"] == "insufficient_quota"
    with pytest.raises(anthropic.APIStatusError) as info:
        an.messages.create(model=LARGE, max_tokens=10, messages=HELLO)
    assert info.value.status_code == 402 and info.value.body["error"]["type"] == "billing_error"
    totals = gateway.ledger.totals(run_id="run-cap", seat="developer")
    assert totals.calls == 4 and totals.errors == 2 and totals.credits == pytest.approx(0.00021)


def test_mint_refuses_bad_scopes():
    store = TokenStore()
    with pytest.raises(ValueError, match="unknown seat"):
        store.mint("janitor", "r", [SMALL])
    with pytest.raises(ValueError, match="one conversation"):
        store.mint("agent", "r", [SMALL])
    with pytest.raises(ValueError, match="hard spend cap"):
        store.mint("developer", "r", [SMALL])
    user_sim = store.mint("user-sim", "r", [SMALL])
    assert store.resolve(user_sim).seat == "user-sim"
