"""Projection lag: reads return the old state for a while after a write; acting on a stale read is flagged."""

from customer_apis.defects.violations import find_violations
from tests.defects.conftest import NEW_ADDRESS, first_order, order_path, spec

LAG = spec("slow-reads", "projection_lag", ["modify_pending_order_address"], min_lag_s=1.0, max_lag_s=2.0)


def _change(api, order, address=NEW_ADDRESS):
    return api.call("PUT", f"{order_path(order.order_id)}/address", json=address)


def test_reads_are_stale_until_the_lag_has_passed(faulty):
    api = faulty([LAG])
    order = first_order(api.db, "pending")
    old = api.call("GET", order_path(order.order_id)).json()
    written = _change(api, order).json()
    assert written["address"] == NEW_ADDRESS
    assert api.call("GET", order_path(order.order_id)).json() == old
    lag = api.tenant.request_log[1]["defect_detail"]["lag_s"]
    assert 1.0 <= lag <= 2.0
    api.clock.advance(lag - 0.01)
    assert api.call("GET", order_path(order.order_id).replace("%23", "")).json() == old, "either spelling of the id"
    api.clock.advance(0.02)
    assert api.call("GET", order_path(order.order_id)).json() == written
    assert api.defects() == [None, "projection_lag", "projection_lag", "projection_lag", None]
    assert find_violations(api.tenant.request_log) == []


def test_writing_after_a_stale_read_is_a_violation(faulty):
    api = faulty([LAG])
    order = first_order(api.db, "pending")
    _change(api, order)
    api.call("GET", order_path(order.order_id))
    _change(api, order, {**NEW_ADDRESS, "address1": "2 Second Street"})
    violations = find_violations(api.tenant.request_log)
    assert [(v["kind"], v["seq"]) for v in violations] == [("acted_on_stale_read", 3)]


def test_waiting_for_a_fresh_read_before_writing_is_fine(faulty):
    api = faulty([LAG])
    order = first_order(api.db, "pending")
    _change(api, order)
    api.call("GET", order_path(order.order_id))
    api.clock.advance(2.5)
    api.call("GET", order_path(order.order_id))
    _change(api, order, {**NEW_ADDRESS, "address1": "2 Second Street"})
    assert find_violations(api.tenant.request_log) == []
