"""Pagination defects on `GET /users/{id}/orders`: cursor (page cap), truncate, lost cursor, limit-before-sort."""

from tests.defects.conftest import spec

PAGED = {"items_field": "orders", "cursor_field": "next_cursor"}


def _user(api, at_least: int = 5):
    return next(u for u in api.db.users.values() if len(u.orders) >= at_least)


def _newest_first(api, user) -> list[str]:
    return sorted(user.orders, key=lambda oid: (api.db.orders[oid].placed_on, oid), reverse=True)


def _follow(api, user, limit: int = 10, restarts: int = 5) -> tuple[list[list[str]], int]:
    """Every page in order, following cursors; a 410 restarts from the first page. Returns pages and 410s."""
    lost = 0
    while True:
        pages, cursor = [], None
        while True:
            params = {"limit": limit, **({"cursor": cursor} if cursor else {})}
            response = api.call("GET", f"/users/{user.user_id}/orders", params=params)
            if response.status_code == 410:
                lost += 1
                break
            body = response.json()
            pages.append([line["order_id"] for line in body["orders"]])
            cursor = body["next_cursor"]
            if cursor is None:
                return pages, lost
        assert lost <= restarts


def test_cursor_caps_pages_so_only_following_the_cursor_sees_everything(faulty):
    api = faulty([spec("small-pages", "pagination", ["list_user_orders"], page_size=2, **PAGED)])
    user = _user(api)
    first = api.call("GET", f"/users/{user.user_id}/orders", params={"limit": 50}).json()
    assert len(first["orders"]) == 2 and first["next_cursor"]
    pages, _ = _follow(api, user)
    assert all(len(page) <= 2 for page in pages) and sum(pages, []) == _newest_first(api, user)
    assert set(api.defects()) == {"pagination"}


def test_truncate_gives_short_pages_that_are_not_the_last(faulty):
    api = faulty([spec("short-pages", "pagination", ["list_user_orders"], page_size=3, truncate_rate=1.0, **PAGED)])
    user = _user(api)
    pages, _ = _follow(api, user, limit=3)
    assert len(pages[0]) == 2 and len(pages) > 1, "a short first page still has a cursor"
    assert sum(pages, []) == _newest_first(api, user)


def test_lost_cursor_is_410_once_then_the_list_can_be_read_again(faulty):
    api = faulty([spec("lost", "pagination", ["list_user_orders"], page_size=2, lost_cursor_rate=1.0, **PAGED)])
    user = _user(api)
    first = api.call("GET", f"/users/{user.user_id}/orders").json()
    expired = api.call("GET", f"/users/{user.user_id}/orders", params={"cursor": first["next_cursor"]})
    assert expired.status_code == 410 and expired.json()["error"]["code"] == "cursor_expired"
    pages, lost = _follow(api, user)
    assert lost >= 1 and sum(pages, []) == _newest_first(api, user)


def test_limit_before_sort_interleaves_pages(faulty):
    api = faulty([spec("unsorted", "pagination", ["list_user_orders"], page_size=2, limit_before_sort=True,
                       **PAGED)])
    user = next(u for u in api.db.users.values() if len(u.orders) >= 5)
    pages, _ = _follow(api, user)
    newest = _newest_first(api, user)
    assert sorted(sum(pages, [])) == sorted(newest) and sum(pages, []) != newest
    for page in pages:
        assert page == sorted(page, key=newest.index), "each page is sorted in itself"


def test_a_foreign_cursor_is_rejected_by_the_api(faulty):
    api = faulty([spec("small-pages", "pagination", ["list_user_orders"], page_size=2, **PAGED)])
    response = api.call("GET", f"/users/{_user(api).user_id}/orders", params={"cursor": "not-ours"})
    assert response.status_code == 422
