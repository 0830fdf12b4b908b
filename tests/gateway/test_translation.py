"""Wire → neutral call translation details that the SDK round trips do not pin down."""

import pytest

from orchestrator.gateway.errors import GatewayError
from orchestrator.gateway.wires import ChatWire, MessagesWire, ResponsesWire


def test_responses_items_become_chat_messages():
    call = ResponsesWire().parse({"model": "m", "instructions": "sys", "reasoning": {"effort": "low"},
                                  "max_output_tokens": 50, "input": [
        {"role": "developer", "content": "dev note"},
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "reasoning", "summary": []},
        {"role": "assistant", "content": [{"type": "output_text", "text": "let me look"}]},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "r1"},
        {"type": "function_call_output", "call_id": "c2", "output": "r2"}]})
    roles = [m["role"] for m in call.messages]
    assert roles == ["system", "system", "user", "assistant", "tool", "tool"]
    assert [c["id"] for c in call.messages[3]["tool_calls"]] == ["c1", "c2"]
    assert call.messages[3]["content"] == "let me look"
    assert call.params["max_tokens"] == 50 and call.reasoning_effort == "low"


def test_messages_blocks_become_chat_messages():
    call = MessagesWire().parse({"model": "m", "max_tokens": 10, "system": [{"type": "text", "text": "sys"}],
                                 "thinking": {"type": "enabled", "budget_tokens": 8000},
                                 "tool_choice": {"type": "any"}, "tools": [{"name": "f", "input_schema": {}}],
                                 "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "..."},
                                          {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                                      "content": [{"type": "text", "text": "nope"}]},
                                     {"type": "text", "text": "and?"}]}]})
    assert [m["role"] for m in call.messages] == ["system", "user", "assistant", "tool", "user"]
    assert call.messages[3]["content"] == "Error: nope" and call.messages[2]["tool_calls"][0]["id"] == "t1"
    assert call.reasoning_effort == "medium" and call.params["tool_choice"] == "required"


def test_responses_namespaced_tools_are_flattened_and_rendered_back():
    """Codex offers MCP tools as `namespace` tools and expects a call back with `namespace` + `name`."""
    from orchestrator.gateway.neutral import Completion, ToolCall, Usage

    wire = ResponsesWire()
    call = wire.parse({"model": "m", "tools": [
        {"type": "function", "name": "exec_command", "parameters": {}},
        {"type": "namespace", "name": "mcp__kit", "tools": [{"type": "function", "name": "budget"}]}],
        "input": [{"type": "function_call", "namespace": "mcp__kit", "name": "budget", "call_id": "c1"},
                  {"type": "function_call_output", "call_id": "c1", "output": "ok"}]})
    assert [t["function"]["name"] for t in call.params["tools"]] == ["exec_command", "mcp__kit__budget"]
    assert call.messages[0]["tool_calls"][0]["function"]["name"] == "mcp__kit__budget"
    done = wire.render(Completion("", [ToolCall("c2", "mcp__kit__budget", "{}"), ToolCall("c3", "exec_command", "{}")],
                                  "tool_calls", Usage()), call)
    assert [(i.get("namespace"), i["name"]) for i in done["output"]] == [("mcp__kit", "budget"), (None, "exec_command")]


def test_messages_system_notes_inside_messages_become_system_messages():
    """Newer Claude Code sends mid-conversation system notes as `role: system` entries of `messages`."""
    call = MessagesWire().parse({"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"}, {"role": "system", "content": [{"type": "text", "text": "note"}]}]})
    assert call.messages[1] == {"role": "system", "content": "note"}


@pytest.mark.parametrize("wire, body", [
    (ChatWire(), {"messages": [{"role": "user", "content": "x"}]}),
    (ChatWire(), {"model": "m", "messages": []}),
    (ResponsesWire(), {"model": "m", "input": "x", "previous_response_id": "resp_1"}),
    (ResponsesWire(), {"model": "m", "input": [{"type": "item_reference", "id": "x"}]}),
    (MessagesWire(), {"model": "m", "messages": [{"role": "tool", "content": "x"}]}),
])
def test_malformed_bodies_are_400(wire, body):
    with pytest.raises(GatewayError) as info:
        wire.parse(body)
    assert info.value.status == 400


def test_importing_the_gateway_does_not_import_litellm():
    import subprocess
    import sys

    code = "import sys, orchestrator.gateway, orchestrator.evaluation; print('litellm' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
