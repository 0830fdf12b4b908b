"""The `replay` provider: a script of responses played in order per token, conversation-bound entries."""

import json

import openai

from .conftest import REPLAY_SCRIPT

HELLO = [{"role": "user", "content": "hello"}]


def _say(client):
    return client.chat.completions.create(model="test/replay", messages=HELLO)


def test_replay_in_order_per_token(gateway, seat, clients):
    a = seat(models=["test/replay"])
    b = seat(models=["test/replay"], conversation_id="c-special")
    oa, ob = clients(a.token)[0], clients(b.token)[0]
    assert _say(oa).choices[0].message.content == REPLAY_SCRIPT[0]["content"]
    second = _say(oa)
    call = second.choices[0].message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == ("get_order", {"order_id": "W42"})
    assert (second.usage.prompt_tokens, second.usage.completion_tokens) == (100, 20)
    assert gateway.ledger.entries(token_id=a.token_id)[-1]["credits"] == (100 * 1.0 + 20 * 4.0) / 1e6
    assert _say(oa).choices[0].message.content == "Last one."  # the c-special entry is skipped for a
    assert _say(ob).choices[0].message.content == REPLAY_SCRIPT[0]["content"]  # b has its own cursor
    _say(ob)
    assert _say(ob).choices[0].message.content == "Only in conversation c-special."


def test_replay_exhausted_is_a_provider_error(seat, clients):
    oa = clients(seat(models=["test/replay"]).token)[0]
    for _ in range(3):
        _say(oa)
    try:
        _say(oa)
    except openai.InternalServerError as err:
        assert "exhausted" in err.body["message"]
    else:
        raise AssertionError("an exhausted script must fail")


def test_replay_streams(seat, clients):
    oa = clients(seat(models=["test/replay"]).token)[0]
    text = "".join(c.choices[0].delta.content or "" for c in oa.chat.completions.create(
        model="test/replay", messages=HELLO, stream=True) if c.choices)
    assert text == REPLAY_SCRIPT[0]["content"]


def test_side_rules_answer_without_moving_the_cursor(tmp_path):
    """A request that offers no tools (a harness's title request) gets the side entry; the script goes on."""
    from orchestrator.gateway.offline import replay_reply

    script = tmp_path / "dev.json"
    script.write_text(json.dumps({"responses": [{"tool_calls": [{"name": "ls", "arguments": {}}]},
                                                {"content": "done"}],
                                  "side": [{"when": {"tools": False}, "content": "A title"}]}))
    tools = {"tools": [{"type": "function", "function": {"name": "ls"}}]}
    assert replay_reply(script, "tok", None, HELLO, {}).text == "A title"
    assert replay_reply(script, "tok", None, HELLO, tools).tool_calls[0].name == "ls"
    assert replay_reply(script, "tok", None, HELLO, {}).text == "A title"
    assert replay_reply(script, "tok", None, HELLO, tools).text == "done"
