"""RFC 7396 JSON merge patch, used for the initial-state patch of a tenant."""

from __future__ import annotations

import copy
from typing import Any


def _merge_into(target: dict, patch: dict) -> None:
    """Merge `patch` into `target` in place (`target` is already a private copy)."""
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict):
            current = target.get(key)
            if not isinstance(current, dict):
                current = {}
            _merge_into(current, value)
            target[key] = current
        else:
            target[key] = copy.deepcopy(value)


def merge_patch(target: Any, patch: Any) -> Any:
    """Return any JSON value `target` with the RFC 7396 `patch` applied; neither argument is mutated."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    _merge_into(result, patch)
    return result


def apply_merge_patch(target: dict, patch: dict) -> dict:
    """Apply an RFC 7396 merge patch to a JSON object (pure: inputs are never mutated)."""
    if not isinstance(target, dict):
        raise TypeError("merge patch target must be a JSON object")
    return merge_patch(target, patch)
