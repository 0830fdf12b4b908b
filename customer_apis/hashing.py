"""Canonical JSON and the state hash: the one canonical-JSON hash of the whole project."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel


def _json_form(obj: Any) -> Any:
    """Turn a pydantic model into its JSON form; leave plain JSON values as they are."""
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    return obj


def canonical_json(obj: Any) -> str:
    """Serialise to canonical JSON (sorted keys, no whitespace, UTF-8 kept) so equal states give equal text."""
    return json.dumps(
        _json_form(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def state_hash(obj: Any) -> str:
    """Return the sha256 hex digest of the canonical JSON of `obj` (a JSON value or a pydantic model)."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()
