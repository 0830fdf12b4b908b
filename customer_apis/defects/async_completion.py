"""Async completion: a hit write answers 202 with a status resource (`/operations/{id}`) and `Retry-After`.
Nothing is written until the status is polled after it is ready; that poll runs the write and reports it.
A 202 whose operation is never polled to completion is an unresolved write (graded as a violation)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from customer_apis.defects.base import DefectLayer, error
from customer_apis.defects.clock import retry_after
from customer_apis.pipeline import JSON_HEADERS, Handler, TenantRequest, TenantResponse

PREFIX = "/operations/"


@dataclass
class _Job:
    request: TenantRequest
    ready_at: float
    result: TenantResponse | None = None


class AsyncCompletion(DefectLayer):
    """202 + status resource for hit writes; the write runs on the first poll at or after `ready_at`."""

    kind = "async_completion"

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        min_delay_s: float = Field(default=0.5, gt=0)
        max_delay_s: float = Field(default=1.5, gt=0)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._jobs: dict[str, _Job] = {}

    async def __call__(self, tenant: Any, request: TenantRequest, call_next: Handler) -> TenantResponse:
        if request.path.startswith(PREFIX) and not request.internal:
            if request.method != "GET":
                return error(405, "method_not_allowed", f"no route {request.method} {request.path}")
            return await self._poll(request.path[len(PREFIX):], call_next)
        call = self.select(request)
        if call is None or not call.hit or not call.operation.is_write:
            return await call_next(request)
        op_id = "op_" + self.draws.token(call.ordinal, f"id:{call.operation.id}")
        delay = self.draws.between(self.params.min_delay_s, self.params.max_delay_s, call.ordinal,
                                   f"delay:{call.operation.id}")
        self._jobs[op_id] = _Job(request, self.clock.now() + delay)
        body = {"operation_id": op_id, "status": "pending", "status_url": f"{PREFIX}{op_id}"}
        return self.mark(self._json(202, body, delay), opens=op_id, if_unresolved="async_not_completed",
                         delay_s=delay)

    async def _poll(self, op_id: str, call_next: Handler) -> TenantResponse:
        job = self._jobs.get(op_id)
        if job is None:
            return error(404, "not_found", f"operation {op_id} not found")
        now = self.clock.now()
        if job.result is None and now < job.ready_at:
            body = {"operation_id": op_id, "status": "pending"}
            return self.mark(self._json(200, body, job.ready_at - now), operation_id=op_id)
        response = TenantResponse(status=200, body=b"")
        if job.result is None:
            job.result = await call_next(job.request)
            response.violations.extend(job.result.violations)  # reported once, on the poll that wrote
        outcome = job.result
        body = {"operation_id": op_id, "status": "succeeded" if outcome.status < 400 else "failed",
                "http_status": outcome.status, "result": outcome.json()}
        response.body = self._json(200, body).body
        return self.mark(response, operation_id=op_id, closes=[op_id])

    @staticmethod
    def _json(status: int, body: dict, wait_s: float | None = None) -> TenantResponse:
        response = TenantResponse.from_json(status, body)
        if wait_s is not None:
            response.headers = [*JSON_HEADERS, (b"retry-after", retry_after(wait_s).encode("ascii"))]
        return response
