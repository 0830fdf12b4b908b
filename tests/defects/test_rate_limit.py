"""Rate limit: 429 + Retry-After after the Nth call of a read operation, until the wait is over."""

from tests.defects.conftest import first_order, order_path, spec


def test_429_after_the_nth_call_until_retry_after_has_passed(faulty):
    api = faulty([spec("throttle", "rate_limit", ["get_order_details"], limit=2, min_wait_s=1, max_wait_s=3)])
    path = order_path(first_order(api.db, "pending").order_id)
    assert [api.call("GET", path).status_code for _ in range(2)] == [200, 200]
    limited = api.call("GET", path)
    assert limited.status_code == 429 and limited.json()["error"]["code"] == "rate_limited"
    wait = int(limited.headers["retry-after"])
    assert 1 <= wait <= 3
    assert api.call("GET", "/meta").status_code == 200, "other operations are not limited"
    api.clock.advance(wait - 0.5)
    again = api.call("GET", path)
    assert again.status_code == 429 and again.headers["retry-after"] == "1"
    api.clock.advance(0.5)
    assert [api.call("GET", path).status_code for _ in range(3)] == [200, 200, 429]
    assert api.defects().count("rate_limit") == 3
