"""The four payload defects: a successful response of a hit call comes back with renamed fields, remapped
values, negative refund amounts or dates turned into datetimes. The data is right; its shape is not."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from customer_apis.defects.base import Call, DefectLayer, with_json
from customer_apis.pipeline import Handler, TenantRequest, TenantResponse

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _walk(value: Any, change: Callable[[dict], dict]) -> Any:
    """Apply `change` to every JSON object in `value`, innermost first."""
    if isinstance(value, list):
        return [_walk(item, change) for item in value]
    if isinstance(value, dict):
        return change({key: _walk(item, change) for key, item in value.items()})
    return value


class _Rewrite(DefectLayer):
    """Rewrite the JSON body of a hit call's 2xx response; note the defect only if something changed."""

    async def __call__(self, tenant: Any, request: TenantRequest, call_next: Handler) -> TenantResponse:
        call = self.select(request)
        response = await call_next(request)
        if call is None or not call.hit or not 200 <= response.status < 300:
            return response
        body = response.json()
        changed = _walk(body, lambda obj: self.change(obj, call))
        return response if changed == body else self.mark(with_json(response, changed))

    def change(self, obj: dict, call: Call) -> dict:
        raise NotImplementedError


class FieldRename(_Rewrite):
    """`status` → `orderStatus`: keys named in `renames` are renamed wherever they occur."""

    kind = "field_rename"

    class Params(_Params):
        renames: dict[str, str] = Field(min_length=1)

    def change(self, obj: dict, call: Call) -> dict:
        return {self.params.renames.get(key, key): value for key, value in obj.items()}


class ValueRemap(_Rewrite):
    """`true` → `"yes"`, `"pending"` → `"PENDING"`: values of `field` found in `values` are replaced."""

    kind = "value_remap"

    class Params(_Params):
        field: str
        values: list[tuple[Any, Any]] = Field(min_length=1)  # [original, shown] pairs

    def change(self, obj: dict, call: Call) -> dict:
        if self.params.field not in obj:
            return obj
        current = obj[self.params.field]
        for original, shown in self.params.values:
            if current == original and type(current) is type(original):
                return {**obj, self.params.field: shown}
        return obj


class AmountSign(_Rewrite):
    """Refund amounts reported negative: `field` of every object matching `where` is negated if positive."""

    kind = "amount_sign"

    class Params(_Params):
        field: str = "amount"
        where: dict[str, Any] = {"transaction_type": "refund"}

    def change(self, obj: dict, call: Call) -> dict:
        amount = obj.get(self.params.field)
        matches = all(obj.get(key) == value for key, value in self.params.where.items())
        if matches and isinstance(amount, int | float) and not isinstance(amount, bool) and amount > 0:
            return {**obj, self.params.field: -amount}
        return obj


class DateToDatetime(_Rewrite):
    """`2026-03-01` → `2026-03-01T00:00:00Z` in `fields` (every date-valued field when none are named)."""

    kind = "date_to_datetime"

    class Params(_Params):
        fields: list[str] | None = None
        suffix: str = "T00:00:00Z"

    def change(self, obj: dict, call: Call) -> dict:
        wanted = self.params.fields
        return {key: value + self.params.suffix
                if isinstance(value, str) and DATE.match(value) and (wanted is None or key in wanted) else value
                for key, value in obj.items()}
