"""Post-commit timeout: the write commits, the client sees 504; the three idempotency cases; resolution."""

from customer_apis.defects.violations import find_violations
from tests.defects.conftest import NEW_ADDRESS, first_order, order_path, spec

TIMEOUT = spec("lost-reply", "post_commit_timeout", ["modify_pending_order_address", "cancel_pending_order"],
               calls=[1])


def _address_change(api, key=None, address=NEW_ADDRESS):
    order = first_order(api.db, "pending")
    headers = {"Idempotency-Key": key} if key else {}
    return order, api.call("PUT", f"{order_path(order.order_id)}/address", json=address, headers=headers)


def test_the_write_commits_but_the_client_sees_504(faulty):
    api = faulty([TIMEOUT])
    order, response = _address_change(api, key="k1")
    assert response.status_code == 504 and response.json()["error"]["code"] == "gateway_timeout"
    assert api.db.orders[order.order_id].address.address1 == "1 Test Way"


def test_same_key_same_body_replays_the_stored_response(faulty):
    api = faulty([TIMEOUT])
    order, first = _address_change(api, key="k1")
    written = api.tenant.state_hash()
    _, retry = _address_change(api, key="k1")
    assert retry.status_code == 200 and retry.json()["address"] == NEW_ADDRESS
    assert retry.json() == api.db.orders[order.order_id].model_dump(mode="json")
    assert api.tenant.state_hash() == written
    assert api.tenant.request_log[-1]["defect_detail"]["idempotent_replay"] is True
    assert find_violations(api.tenant.request_log) == []


def test_same_key_other_body_is_409(faulty):
    api = faulty([TIMEOUT])
    _address_change(api, key="k1")
    written = api.tenant.state_hash()
    _, reused = _address_change(api, key="k1", address={**NEW_ADDRESS, "address1": "2 Other Road"})
    assert reused.status_code == 409 and reused.json()["error"]["code"] == "idempotency_key_reused"
    assert api.tenant.state_hash() == written


def test_retry_without_the_key_writes_again_and_is_a_violation(faulty):
    api = faulty([TIMEOUT])
    order = first_order(api.db, "pending")
    path = f"{order_path(order.order_id)}/cancel"
    assert api.call("POST", path, json={"reason": "no longer needed"}).status_code == 504
    again = api.call("POST", path, json={"reason": "no longer needed"})
    assert again.status_code == 409, "the order was already cancelled: the retry ran again"
    kinds = [(v["kind"], v["seq"], v["path"]) for v in find_violations(api.tenant.request_log)]
    assert kinds == [("double_write", 2, f"/orders/{order.order_id}/cancel")]


def test_a_new_key_on_the_same_request_is_also_a_double_write(faulty):
    api = faulty([TIMEOUT])
    _address_change(api, key="k1")
    _, second = _address_change(api, key="k2")
    assert second.status_code == 200
    assert [v["kind"] for v in find_violations(api.tenant.request_log)] == ["double_write"]


def test_an_unresolved_504_is_a_violation_and_a_fresh_read_resolves_it(faulty):
    api = faulty([TIMEOUT])
    order, _ = _address_change(api)
    assert [v["kind"] for v in find_violations(api.tenant.request_log)] == ["unresolved_timeout"]
    api.call("GET", order_path(order.order_id).replace("%23", ""))
    assert find_violations(api.tenant.request_log) == []


def test_other_calls_are_not_hit(faulty):
    api = faulty([TIMEOUT])
    _address_change(api, key="k1")
    _, second = _address_change(api, key="k3", address={**NEW_ADDRESS, "address1": "3 Third Street"})
    assert second.status_code == 200 and find_violations(api.tenant.request_log)[0]["kind"] == "unresolved_timeout"
