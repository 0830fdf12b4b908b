"""Pagination defects on a cursor-paged list (`{<items>: [...], <cursor>: str | null}`), in four modes:

- `page_size`: pages are cut to this size whatever `limit` asks, so only following the cursor sees it all;
- `truncate_rate`: that share of pages come back one item short while the cursor goes on (a short page is
  not the last page);
- `lost_cursor_rate`: that share of cursors answer 410 `cursor_expired` on first use (start again);
- `limit_before_sort`: each page is cut from the unsorted list and sorted afterwards, so pages interleave.

The layer reads the whole list through the real API (internal calls) and pages it with its own cursors.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict, Field

from customer_apis.defects.base import Call, DefectLayer, error
from customer_apis.hashing import state_hash
from customer_apis.pipeline import Handler, TenantRequest, TenantResponse


class Pagination(DefectLayer):
    """Serve hit list calls, and every cursor it issued, from its own paging."""

    kind = "pagination"

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        items_field: str = "items"
        cursor_field: str = "next_cursor"
        default_limit: int = Field(default=10, ge=1)  # the API's default page size
        max_limit: int = Field(default=50, ge=1)  # the API's largest page size
        page_size: int | None = Field(default=None, ge=1)
        truncate_rate: float = Field(default=0.0, ge=0, le=1)
        lost_cursor_rate: float = Field(default=0.0, ge=0, le=1)
        limit_before_sort: bool = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._cursors: dict[str, tuple[str, int, int]] = {}  # token -> (list path, offset, page number)
        self._used: set[str] = set()

    async def __call__(self, tenant: Any, request: TenantRequest, call_next: Handler) -> TenantResponse:
        call = self.select(request)
        if call is None:
            return await call_next(request)
        query = request.query()
        token = query.get("cursor")
        if token is not None and token in self._cursors:
            path, offset, page = self._cursors[token]
            if path != request.path:
                return error(422, "invalid_request", "cursor does not belong to this list")
            if token not in self._used:
                self._used.add(token)
                if self.draws.unit(page, f"lost:{token}") < self.params.lost_cursor_rate:
                    return self.mark(error(410, "cursor_expired", "the cursor has expired; start from the first "
                                                                  "page again"), page=page)
        elif token is None and call.hit:
            offset, page = 0, 1
        else:
            return await call_next(request)
        limit = self._limit(query)
        if limit is None:
            return await call_next(request)  # the API explains what is wrong with `limit`
        return await self._page(request, call, call_next, offset, page, limit)

    def _limit(self, query: dict[str, str]) -> int | None:
        raw = query.get("limit")
        if raw is None:
            return self.params.default_limit
        try:
            limit = int(raw)
        except ValueError:
            return None
        return limit if 1 <= limit <= self.params.max_limit else None

    async def _page(self, request: TenantRequest, call: Call, call_next: Handler, offset: int, page: int,
                    limit: int) -> TenantResponse:
        items, failure = await self._everything(request, call_next)
        if failure is not None:
            return failure
        size = min(limit, self.params.page_size or limit)
        short = size > 1 and self.draws.unit(page, "truncate") < self.params.truncate_rate
        size -= 1 if short else 0
        ranked = list(enumerate(items))
        if self.params.limit_before_sort:
            ranked.sort(key=lambda pair: self.draws.token(0, "storage:" + state_hash(pair[1])))
        chunk = sorted(ranked[offset:offset + size]) if self.params.limit_before_sort else ranked[offset:offset + size]
        after = offset + size
        token = None
        if after < len(items):
            token = "c" + self.draws.token(page + 1, f"cursor:{request.path}:{after}", 20)
            self._cursors[token] = (request.path, after, page + 1)
        body = {self.params.items_field: [item for _, item in chunk], self.params.cursor_field: token}
        return self.mark(TenantResponse.from_json(200, body), page=page, returned=len(chunk), short=short)

    async def _everything(self, request: TenantRequest, call_next: Handler) -> tuple[list, TenantResponse | None]:
        """The whole list in the API's order, read page by page through the real API."""
        items: list = []
        cursor: str | None = None
        while True:
            query = {"limit": self.params.max_limit, **({"cursor": cursor} if cursor else {})}
            inner = TenantRequest(method="GET", path=request.path, raw_path=request.raw_path,
                                  query_string=urlencode(query).encode("ascii"), headers=list(request.headers),
                                  internal=True)
            response = await call_next(inner)
            if response.status != 200:
                return [], response
            body = response.json()
            items.extend(body[self.params.items_field])
            cursor = body.get(self.params.cursor_field)
            if not cursor:
                return items, None
