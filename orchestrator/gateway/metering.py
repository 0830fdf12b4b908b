"""One call through the gateway: authorize, check menu / cap / reasoning, call the provider, meter the ledger."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping

from starlette.responses import JSONResponse, Response, StreamingResponse

from build_kits.menu import credits

from . import llm
from .errors import GatewayError
from .ledger import Ledger
from .neutral import ChatCall, Completion, Finished, Usage
from .routing import Route, RoutingTable
from .tokens import TokenScope, TokenStore, token_id
from .wires.base import Wire

REASONING_OFF = {"none", "disable", "disabled", "off"}


def bearer(headers: Mapping[str, str]) -> str | None:
    """The token of a request: `Authorization: Bearer` (OpenAI SDKs) or `x-api-key` (Anthropic SDK)."""
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return headers.get("x-api-key") or None


def apply_reasoning(call: ChatCall, rule, route: Route) -> None:
    """Enforce the tier's reasoning rule: None = any; "off" = pinned off; a tuple = one of these efforts."""
    requested = call.reasoning_effort
    if requested in REASONING_OFF:
        call.reasoning_effort = route.reasoning_off
        return
    if rule is None:
        return
    if rule == "off":
        if requested is not None and requested != route.reasoning_off:
            raise GatewayError(403, "permission", f"reasoning is pinned off on this tier (asked: {requested!r})")
        call.reasoning_effort = route.reasoning_off
    elif requested is None:
        call.reasoning_effort = rule[0] if route.reasoning_off else None  # reasoning models default to the first
    elif requested not in rule:
        raise GatewayError(403, "permission",
                           f"reasoning effort {requested!r} is not allowed on this tier (allowed: {', '.join(rule)})")


class Meter:
    """The gateway's request pipeline; every call, refused or served, leaves one ledger line."""

    def __init__(self, tokens: TokenStore, ledger: Ledger, routes: RoutingTable):
        self.tokens, self.ledger, self.routes = tokens, ledger, routes
        self._inflight: dict[str, int] = {}
        self._idle = threading.Condition()

    def _record(self, wire: Wire, started: float, status: str, http_status: int, *, scope: TokenScope | None = None,
                call: ChatCall | None = None, route: Route | None = None, completion: Completion | None = None,
                ttft: float | None = None, error: str | None = None, secret: str | None = None) -> None:
        """One ledger line; a refused token is still identified by its public id (never by the secret)."""
        usage = completion.usage if completion else Usage()
        cost = credits(usage.prompt_tokens, usage.completion_tokens, route.in_rate, route.out_rate) if route else 0.0
        self.ledger.record(
            run_id=scope and scope.run_id, seat=scope and scope.seat, conversation_id=scope and scope.conversation_id,
            token_id=scope.token_id if scope else secret and token_id(secret), model=call and call.model,
            route=route and route.litellm_model,
            wire=wire.name, stream=call and call.stream, status=status, http_status=http_status,
            prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
            reasoning_tokens=usage.reasoning_tokens, credits=cost, latency_s=round(time.monotonic() - started, 4),
            ttft_s=None if ttft is None else round(ttft, 4), usage_estimated=usage.estimated, error=error)

    def _error(self, wire: Wire, err: GatewayError) -> JSONResponse:
        return JSONResponse(wire.error_body(err), status_code=err.status)

    @staticmethod
    def parse(wire: Wire, raw: bytes) -> ChatCall:
        """The neutral call of a raw request body; 400 unless it is a JSON object the wire accepts."""
        try:
            body = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise GatewayError(400, "invalid_request", "the request body is not valid JSON") from None
        if not isinstance(body, dict):
            raise GatewayError(400, "invalid_request", "the request body must be a JSON object")
        return wire.parse(body)

    def _admit(self, scope: TokenScope, call: ChatCall) -> Route:
        """Menu (403), route (404), hard cap (402) and reasoning rule (403)."""
        scope.check_model(call.model)
        route = self.routes.get(call.model)
        if scope.cap_credits is not None:
            spent = self.ledger.totals(run_id=scope.run_id, seat=scope.seat).credits
            if spent >= scope.cap_credits:
                raise GatewayError(402, "budget", f"the {scope.seat} seat has spent {spent:.4f} credits of its hard "
                                                  f"cap {scope.cap_credits:g}")
        apply_reasoning(call, scope.reasoning, route)
        return route

    async def handle(self, wire: Wire, headers: Mapping[str, str], raw: bytes) -> Response:
        """Serve one model call on `wire`."""
        started = time.monotonic()
        scope = call = None
        secret = bearer(headers)
        try:
            scope = self.tokens.resolve(secret)
            call = self.parse(wire, raw)
            route = self._admit(scope, call)
        except GatewayError as err:
            self._record(wire, started, "rejected", err.status, scope=scope, call=call, error=err.message,
                         secret=secret)
            return self._error(wire, err)
        meta = {"token_id": scope.token_id, "conversation_id": scope.conversation_id, "seat": scope.seat,
                "run_id": scope.run_id}
        self._enter(scope.token_id)
        if call.stream:
            return await self._stream(wire, scope, call, route, meta, started)
        try:
            completion = await llm.complete(route, call, meta)
        except GatewayError as err:
            self._record(wire, started, "error", err.status, scope=scope, call=call, route=route, error=err.message)
            return self._error(wire, err)
        else:
            self._record(wire, started, "ok", 200, scope=scope, call=call, route=route, completion=completion)
            return JSONResponse(wire.render(completion, call))
        finally:
            self._leave(scope.token_id)

    async def _stream(self, wire: Wire, scope: TokenScope, call: ChatCall, route: Route, meta: dict,
                      started: float) -> Response:
        try:
            provider = await llm.stream(route, call, meta)
        except GatewayError as err:
            self._record(wire, started, "error", err.status, scope=scope, call=call, route=route, error=err.message)
            self._leave(scope.token_id)
            return self._error(wire, err)
        state: dict = {"settled": False, "ttft": None}

        def settle(status: str, completion: Completion, err: GatewayError | None = None) -> None:
            """Record the call once, before the client sees its last frame (so the ledger never lags)."""
            if not state["settled"]:
                state["settled"] = True
                self._record(wire, started, status, err.status if err else 200, scope=scope, call=call, route=route,
                             completion=completion, ttft=state["ttft"], error=err and err.message)
                self._leave(scope.token_id)

        async def tracked():
            try:
                async for event in provider.events:
                    if state["ttft"] is None:
                        state["ttft"] = time.monotonic() - started
                    if isinstance(event, Finished):
                        settle("ok", event.completion)
                    yield event
            except GatewayError as err:
                settle("error", provider.partial(), err)
                raise

        async def body():
            events = tracked()
            try:
                async for frame in wire.stream(call, events):
                    yield frame
            finally:
                settle("client_closed", provider.partial())
                await events.aclose()
                await provider.events.aclose()

        return StreamingResponse(body(), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", "x-accel-buffering": "no"})

    def _enter(self, token: str) -> None:
        with self._idle:
            self._inflight[token] = self._inflight.get(token, 0) + 1

    def _leave(self, token: str) -> None:
        with self._idle:
            self._inflight[token] -= 1
            if self._inflight[token] <= 0:
                del self._inflight[token]
            self._idle.notify_all()

    def wait_idle(self, token: str, timeout: float) -> bool:
        """Wait until no call of this token is in flight (so its ledger lines are final); False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: token not in self._inflight, timeout)

    def list_models(self, headers: Mapping[str, str], error_wire: Wire) -> Response:
        """`GET /v1/models`: the token's menu, in Anthropic's shape when the client is an Anthropic SDK."""
        try:
            scope = self.tokens.resolve(bearer(headers))
        except GatewayError as err:
            return self._error(error_wire, err)
        names = sorted(scope.models)
        if "anthropic-version" in headers:
            data = [{"type": "model", "id": n, "display_name": n, "created_at": "2025-01-01T00:00:00Z"} for n in names]
            return JSONResponse({"data": data, "has_more": False, "first_id": names[0] if names else None,
                                 "last_id": names[-1] if names else None})
        return JSONResponse({"object": "list", "data": [{"id": n, "object": "model", "created": 0,
                                                         "owned_by": n.split("/")[0]} for n in names]})
