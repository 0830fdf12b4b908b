"""Post-commit timeout: a hit write is committed, then the client gets 504. Writes sent with an
`Idempotency-Key` are remembered: the same key and request replay the stored outcome, the same key with
another request is 409. Sending the timed-out request again without its key writes again: a violation.

A 504 counts as resolved once the client replays it by key or reads the written resource afresh (not a
lagging read); one never resolved is graded as a violation at the end of the episode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from customer_apis.defects.base import DefectLayer, error, note, violation
from customer_apis.defects.operations import Operation
from customer_apis.hashing import state_hash
from customer_apis.pipeline import Handler, TenantRequest, TenantResponse

KEY_HEADER = "Idempotency-Key"


@dataclass
class _Stored:
    fingerprint: str
    response: TenantResponse


@dataclass
class _Incident:
    id: str
    fingerprint: str
    key: str | None
    resource: str | None
    open: bool = True


def fingerprint(op: Operation, request: TenantRequest) -> str:
    """What makes two writes 'the same request': operation, path ids (with or without `#`), query and body."""
    ids = {name: value.lstrip("#") for name, value in op.params.items()}
    return state_hash([op.id, ids, request.query(), request.json()])


class PostCommitTimeout(DefectLayer):
    """504 after commit on hit writes, plus the idempotency store every write with a key goes through."""

    kind = "post_commit_timeout"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._keys: dict[str, _Stored] = {}
        self._incidents: list[_Incident] = []

    async def __call__(self, tenant: Any, request: TenantRequest, call_next: Handler) -> TenantResponse:
        op = self.operation(request)
        if op is None:
            return await call_next(request)
        if not op.is_write:
            return self._resolve_by_read(op, await call_next(request))
        key = request.header(KEY_HEADER) or None
        fp = fingerprint(op, request)
        if key is not None and key in self._keys:
            return self._replay(key, fp)
        repeated = [i for i in self._incidents if i.fingerprint == fp and (key is None or i.key != key)]
        call = self.select(request)
        response = await call_next(request)
        if key is not None and response.status < 500:
            self._keys[key] = _Stored(fp, response)
        if call is not None and call.hit and 200 <= response.status < 300:
            incident = _Incident(f"{self.spec.id}:{op.id}:{call.ordinal}", fp, key, op.resource)
            timeout = error(504, "gateway_timeout", "the upstream service did not answer in time")
            self.mark(timeout, opens=incident.id, if_unresolved="unresolved_timeout",
                      committed_status=response.status, idempotency_key=key is not None)
            response, new = timeout, [incident]
        else:
            new = []
        for incident in repeated:
            violation(response, "double_write", f"{request.method} {request.path} was sent again without the "
                      f"Idempotency-Key of the write that timed out ({incident.id}), so it ran twice")
        closes = self._close(lambda incident: incident in repeated)
        if closes:
            note(response, closes=closes)
        self._incidents.extend(new)
        return response

    def _replay(self, key: str, fp: str) -> TenantResponse:
        stored = self._keys[key]
        if stored.fingerprint != fp:
            return note(error(409, "idempotency_key_reused",
                              "this Idempotency-Key was already used for a different request"),
                        idempotency_key_reused=True)
        original = stored.response
        replay = TenantResponse(status=original.status, body=original.body, headers=list(original.headers))
        closes = self._close(lambda incident: incident.key == key)
        return note(replay, idempotent_replay=True, **({"closes": closes} if closes else {}))

    def _resolve_by_read(self, op: Operation, response: TenantResponse) -> TenantResponse:
        """A fresh successful read of a resource settles the timed-out writes to it."""
        stale = "projection_lag" in (response.defect or "")
        if not op.is_resource_read or stale or not 200 <= response.status < 300:
            return response
        closes = self._close(lambda incident: incident.resource == op.resource)
        return note(response, closes=closes) if closes else response

    def _close(self, settled) -> list[str]:
        """Close the open incidents `settled(incident)` picks; their ids."""
        closed = [i for i in self._incidents if i.open and settled(i)]
        for incident in closed:
            incident.open = False
        return [i.id for i in closed]
