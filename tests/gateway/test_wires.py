"""Each wire through its official SDK, streaming and not, against `mock`: text, tool calls, usage = ledger."""

import json

from .conftest import SMALL

TOOL = {"name": "get_order", "description": "Look up an order.",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}
ASK_TOOL = 'MOCK_TOOL get_order {"order_id": "W1"}'


def _last(gateway, token_id):
    return gateway.ledger.entries(token_id=token_id)[-1]


def test_chat_completions(gateway, seat, clients):
    s = seat()
    oa, _ = clients(s.token)
    reply = oa.chat.completions.create(model=SMALL, messages=[{"role": "user", "content": "hello"}])
    assert reply.choices[0].message.content == "[northwind-small] You said: hello"
    assert reply.choices[0].finish_reason == "stop"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (6, 9)  # 4 + ⌈5/4⌉; ⌈33/4⌉
    entry = _last(gateway, s.token_id)
    assert entry["wire"] == "chat" and entry["stream"] is False and entry["status"] == "ok"
    assert (entry["prompt_tokens"], entry["completion_tokens"]) == (6, 9)


def test_chat_completions_stream_with_tool_call(gateway, seat, clients):
    s = seat()
    oa, _ = clients(s.token)
    stream = oa.chat.completions.create(
        model=SMALL, messages=[{"role": "user", "content": ASK_TOOL}], stream=True,
        tools=[{"type": "function", "function": TOOL}], stream_options={"include_usage": True})
    chunks = list(stream)
    calls = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
    assert calls[0].function.name == "get_order"
    assert json.loads("".join(tc.function.arguments for tc in calls)) == {"order_id": "W1"}
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    usage = chunks[-1].usage
    entry = _last(gateway, s.token_id)
    assert entry["stream"] is True and entry["status"] == "ok" and entry["ttft_s"] is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (entry["prompt_tokens"], entry["completion_tokens"])


def test_chat_stream_text(seat, clients):
    oa, _ = clients(seat().token)
    text = "".join(c.choices[0].delta.content or "" for c in oa.chat.completions.create(
        model=SMALL, messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi there"}],
        stream=True) if c.choices)
    assert text == "[northwind-small] You said: hi there"


def test_responses(gateway, seat, clients):
    s = seat()
    oa, _ = clients(s.token)
    response = oa.responses.create(model=SMALL, instructions="Be brief.", input="hello")
    assert response.output_text == "[northwind-small] You said: hello"
    assert response.status == "completed"
    entry = _last(gateway, s.token_id)
    assert entry["wire"] == "responses"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (entry["prompt_tokens"],
                                                                           entry["completion_tokens"])


def test_responses_tool_round_trip(seat, clients):
    oa, _ = clients(seat().token)
    tools = [{"type": "function", **TOOL}]
    first = oa.responses.create(model=SMALL, input=ASK_TOOL, tools=tools)
    call = next(item for item in first.output if item.type == "function_call")
    assert call.name == "get_order" and json.loads(call.arguments) == {"order_id": "W1"}
    second = oa.responses.create(model=SMALL, tools=tools, input=[
        {"role": "user", "content": ASK_TOOL},
        {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
        {"type": "function_call_output", "call_id": call.call_id, "output": '{"status": "delivered"}'},
    ])
    assert second.output_text == 'Noted the tool result: {"status": "delivered"}'


def test_responses_stream(gateway, seat, clients):
    s = seat()
    oa, _ = clients(s.token)
    with oa.responses.stream(model=SMALL, input=ASK_TOOL, tools=[{"type": "function", **TOOL}]) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert "response.function_call_arguments.delta" in kinds and kinds[-1] == "response.completed"
    call = final.output[0]
    assert call.type == "function_call" and json.loads(call.arguments) == {"order_id": "W1"}
    assert final.usage.output_tokens == _last(gateway, s.token_id)["completion_tokens"]
    with oa.responses.stream(model=SMALL, input="stream me") as stream:
        text = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
        assert stream.get_final_response().output_text == text == "[northwind-small] You said: stream me"


def test_messages(gateway, seat, clients):
    s = seat()
    _, an = clients(s.token)
    message = an.messages.create(model=SMALL, max_tokens=200, system="Be brief.",
                                 messages=[{"role": "user", "content": "hello"}])
    assert message.content[0].text == "[northwind-small] You said: hello"
    assert message.stop_reason == "end_turn"
    entry = _last(gateway, s.token_id)
    assert entry["wire"] == "messages"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (entry["prompt_tokens"],
                                                                         entry["completion_tokens"])


def test_messages_tool_round_trip(seat, clients):
    _, an = clients(seat().token)
    tools = [{"name": TOOL["name"], "description": TOOL["description"], "input_schema": TOOL["parameters"]}]
    first = an.messages.create(model=SMALL, max_tokens=200, tools=tools,
                               messages=[{"role": "user", "content": ASK_TOOL}])
    use = first.content[0]
    assert first.stop_reason == "tool_use" and use.type == "tool_use" and use.input == {"order_id": "W1"}
    second = an.messages.create(model=SMALL, max_tokens=200, tools=tools, messages=[
        {"role": "user", "content": ASK_TOOL},
        {"role": "assistant", "content": [{"type": "tool_use", "id": use.id, "name": use.name, "input": use.input}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "delivered"}]},
    ])
    assert second.content[0].text == "Noted the tool result: delivered"


def test_messages_stream(gateway, seat, clients):
    s = seat()
    _, an = clients(s.token)
    tools = [{"name": TOOL["name"], "input_schema": TOOL["parameters"]}]
    with an.messages.stream(model=SMALL, max_tokens=200, tools=tools,
                            messages=[{"role": "user", "content": ASK_TOOL}]) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use" and final.content[0].input == {"order_id": "W1"}
    assert final.usage.output_tokens == _last(gateway, s.token_id)["completion_tokens"]
    with an.messages.stream(model=SMALL, max_tokens=200, messages=[{"role": "user", "content": "stream me"}]) as stream:
        text = "".join(stream.text_stream)
    assert text == "[northwind-small] You said: stream me"


def test_max_tokens_cuts_the_reply(seat, clients):
    _, an = clients(seat().token)
    message = an.messages.create(model=SMALL, max_tokens=2, messages=[{"role": "user", "content": "a long question"}])
    assert message.stop_reason == "max_tokens" and message.content[0].text == "[northwi"


def test_models_list_and_probes(gateway, seat, clients):
    s = seat()
    oa, an = clients(s.token)
    assert sorted(m.id for m in oa.models.list()) == ["mock/northwind-large", "mock/northwind-small"]
    assert sorted(m.id for m in an.models.list()) == ["mock/northwind-large", "mock/northwind-small"]
    import httpx

    for path in ("/", "/api/hello"):
        assert httpx.head(gateway.url + path).status_code == 200
