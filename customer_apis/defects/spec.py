"""What a tenant is told about its defects: the (task, scenario, trial) they are drawn for, the exposure, and
which defect of which kind hits which operations and calls. It travels as JSON through the admin API."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

Kind = Literal["field_rename", "value_remap", "amount_sign", "date_to_datetime", "async_completion",
               "rate_limit", "post_commit_timeout", "pagination", "projection_lag"]


class DefectSpecError(ValueError):
    """A defect spec the API cannot apply; one line naming the defect and the problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DefectSpec(_Strict):
    """One defect: its kind, the operations (OpenAPI operation ids) and the calls of each it hits."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    kind: Kind
    operations: list[str] = Field(min_length=1)
    calls: Literal["all"] | list[PositiveInt] = "all"  # 1-based ordinals of the calls of each operation
    params: dict[str, Any] = {}


class TenantDefects(_Strict):
    """The defects of one tenant and the key of every draw they make."""

    task: str
    scenario: str = "development"
    trial: int = Field(default=0, ge=0)
    exposure: float = Field(default=1.0, ge=0.0, le=1.0)  # share of the selected calls that misbehave
    defects: list[DefectSpec] = []
