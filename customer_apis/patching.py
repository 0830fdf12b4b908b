"""RFC 7396 JSON merge patch, used for the initial-state patch of a tenant."""

from __future__ import annotations

import copy
from typing import Any


def merge_patch_in_place(target: dict, patch: dict) -> dict:
    """Merge `patch` into `target`, mutating and returning it (for a target the caller owns; `patch` is copied)."""
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict):
            current = target.get(key)
            target[key] = merge_patch_in_place(current if isinstance(current, dict) else {}, value)
        else:
            target[key] = copy.deepcopy(value)
    return target


def merge_patch(target: Any, patch: Any) -> Any:
    """Return any JSON value `target` with the RFC 7396 `patch` applied; neither argument is mutated."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    return merge_patch_in_place(copy.deepcopy(target) if isinstance(target, dict) else {}, patch)


def apply_merge_patch(target: dict, patch: dict) -> dict:
    """Apply an RFC 7396 merge patch to a JSON object (pure: inputs are never mutated)."""
    if not isinstance(target, dict):
        raise TypeError("merge patch target must be a JSON object")
    return merge_patch(target, patch)
