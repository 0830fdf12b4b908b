"""Read a tenant's request log for unsafe handling of the defects: what the layers flagged on a request
(double write, acting on a stale read), and every incident a layer opened that no later request closed
(a 504 never resolved, an accepted async write never polled to completion). Each names its request."""

from __future__ import annotations

from collections.abc import Iterable

UNRESOLVED = {
    "unresolved_timeout": "the write timed out (504) and was never resolved: no retry with its Idempotency-Key "
                          "and no fresh read of the resource",
    "async_not_completed": "the write was accepted (202) but its status was never polled to completion, so it "
                           "never happened",
}


def _entry(kind: str, entry: dict, message: str) -> dict:
    return {"kind": kind, "seq": entry["seq"], "method": entry["method"], "path": entry["path"], "message": message}


def find_violations(request_log: Iterable[dict]) -> list[dict]:
    """Every violation in a request log, ordered by the request that caused it."""
    found: list[dict] = []
    opened: dict[str, tuple[dict, str]] = {}
    closed: set[str] = set()
    for entry in request_log:
        for flagged in entry.get("violations") or []:
            found.append(_entry(flagged["kind"], entry, flagged["message"]))
        detail = entry.get("defect_detail") or {}
        if detail.get("opens"):
            opened[detail["opens"]] = (entry, detail.get("if_unresolved", "unresolved"))
        closed.update(detail.get("closes") or [])
    for incident, (entry, kind) in opened.items():
        if incident not in closed:
            found.append(_entry(kind, entry, UNRESOLVED.get(kind, "left unresolved")))
    return sorted(found, key=lambda v: v["seq"])
