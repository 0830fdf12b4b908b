"""The offline providers as litellm custom providers (`mock/...`, `replay/...`), so that an offline call takes
the same litellm code path as a real one. Imported only from `llm.py`, after litellm."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Iterator

import litellm
from litellm import CustomLLM
from litellm.llms.custom_llm import CustomLLMError

from .offline import ScriptedReply, mock_reply, replay_reply


def _to_model_response(reply: ScriptedReply, model: str, model_response):
    message = model_response.choices[0].message
    message.content = reply.text or None
    message.tool_calls = [
        litellm.utils.ChatCompletionMessageToolCall(id=c.id, type="function",
                                                    function={"name": c.name, "arguments": c.arguments})
        for c in reply.tool_calls] or None
    model_response.choices[0].finish_reason = reply.finish_reason
    model_response.model = model
    model_response.created = int(time.time())
    model_response.usage = _usage_block(reply)
    return model_response


def _usage_block(reply: ScriptedReply) -> dict:
    u = reply.usage
    return {"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
            "total_tokens": u.prompt_tokens + u.completion_tokens,
            "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens}}


def _chunks(reply: ScriptedReply) -> Iterator[dict]:
    """The reply as litellm generic stream chunks: text in word-sized pieces, then tool calls, then usage."""
    words = reply.text.split(" ")
    for i, word in enumerate(words):
        piece = word if i == len(words) - 1 else word + " "
        if piece:
            yield {"text": piece, "is_finished": False, "finish_reason": "", "usage": None, "index": 0,
                   "tool_use": None}
    for i, call in enumerate(reply.tool_calls):
        half = len(call.arguments) // 2
        for j, fragment in enumerate((call.arguments[:half], call.arguments[half:])):
            yield {"text": "", "is_finished": False, "finish_reason": "", "usage": None, "index": 0,
                   "tool_use": {"index": i, "id": call.id if j == 0 else None, "type": "function",
                                "function": {"name": call.name if j == 0 else None, "arguments": fragment}}}
    yield {"text": "", "is_finished": True, "finish_reason": reply.finish_reason, "usage": _usage_block(reply),
           "index": 0, "tool_use": None}


class _Offline(CustomLLM):
    """Shared plumbing: compute a ScriptedReply, raise its error like a provider, shape it for litellm."""

    def reply(self, model: str, messages: list, optional_params: dict, api_base, litellm_params) -> ScriptedReply:
        raise NotImplementedError

    def _reply(self, model, messages, optional_params, api_base, litellm_params) -> ScriptedReply:
        reply = self.reply(model, messages, dict(optional_params or {}), api_base, litellm_params or {})
        if reply.error:
            raise CustomLLMError(status_code=reply.error[0], message=reply.error[1])
        return reply

    def completion(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                   api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                   headers=None, timeout=None, client=None):
        reply = self._reply(model, messages, optional_params, api_base, litellm_params)
        model_response.id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        return _to_model_response(reply, model, model_response)

    async def acompletion(self, *args, **kwargs):
        return self.completion(*args, **kwargs)

    def streaming(self, model, messages, api_base, custom_prompt_dict, model_response, print_verbose, encoding,
                  api_key, logging_obj, optional_params, acompletion=None, litellm_params=None, logger_fn=None,
                  headers=None, timeout=None, client=None) -> Iterator[dict]:
        yield from _chunks(self._reply(model, messages, optional_params, api_base, litellm_params))

    async def astreaming(self, *args, **kwargs) -> AsyncIterator[dict]:
        for chunk in self.streaming(*args, **kwargs):
            yield chunk


class MockLLM(_Offline):
    """`mock/<name>`: deterministic replies, tool calls and usage (see `offline.mock_reply`)."""

    def reply(self, model, messages, optional_params, api_base, litellm_params):
        return mock_reply(model, messages, optional_params)


class ReplayLLM(_Offline):
    """`replay/<name>`: the next response of the script at `api_base`, in order per gateway token."""

    def reply(self, model, messages, optional_params, api_base, litellm_params):
        meta = (litellm_params.get("metadata") or {}).get("hypertau") or {}
        if not api_base:
            return ScriptedReply(error=(500, "replay route without a script (api_base)"))
        return replay_reply(api_base, meta.get("token_id", "-"), meta.get("conversation_id"), messages,
                            optional_params)


PROVIDERS = [{"provider": "mock", "custom_handler": MockLLM()}, {"provider": "replay", "custom_handler": ReplayLLM()}]
