"""Retail write routes: every success path with its exact effect, every 4xx path with no partial write."""

import pytest

from tests.customer_apis.conftest import find_order, methods_of, other_variant, path_id

NEW_ADDRESS = {"address1": "1 Infinite Loop", "address2": "", "city": "Cupertino", "state": "CA",
               "country": "USA", "zip": "95014"}


def single_card_payment(order, user):
    return len(order.payment_history) == 1 and order.payment_history[0].payment_method_id.startswith("credit_card")


# cancel -----------------------------------------------------------------------------------------


def test_cancel_refunds_each_payment(api):
    db = api.tenant.db
    order = find_order(db, "pending", single_card_payment)
    paid = order.payment_history[0]
    response = api.call("POST", f"/orders/{path_id(order.order_id)}/cancel", json={"reason": "ordered by mistake"})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "cancelled" and body["cancel_reason"] == "ordered by mistake"
    assert body["payment_history"][-1] == {"transaction_type": "refund", "amount": paid.amount,
                                           "payment_method_id": paid.payment_method_id}
    assert db.orders[order.order_id].status == "cancelled"


def test_cancel_recredits_gift_card(api):
    db = api.tenant.db
    order = find_order(db, "pending", lambda o, u: o.payment_history[0].payment_method_id.startswith("gift_card"))
    user = db.users[order.user_id]
    card_id = order.payment_history[0].payment_method_id
    balance = user.payment_methods[card_id].balance
    api.call("POST", f"/orders/{order.order_id[1:]}/cancel", json={"reason": "no longer needed"})
    expected_balance = round(balance + order.payment_history[0].amount, 2)
    assert db.users[user.user_id].payment_methods[card_id].balance == expected_balance


def test_cancel_errors(api):
    db = api.tenant.db
    pending = find_order(db, "pending")
    delivered = find_order(db, "delivered")
    api.rejected("POST", "/orders/W0000000/cancel", 404, "not_found", json={"reason": "no longer needed"})
    error = api.rejected("POST", f"/orders/{delivered.order_id[1:]}/cancel", 409, "invalid_state",
                         json={"reason": "no longer needed"})
    assert "delivered" in error["message"]
    modified = find_order(db, "pending (item modified)")
    api.rejected("POST", f"/orders/{modified.order_id[1:]}/cancel", 409, "invalid_state",
                 json={"reason": "no longer needed"})
    for bad_body in ({"reason": "found it cheaper"}, {}, {"reason": 3}, {"reason": "no longer needed", "x": 1}):
        api.rejected("POST", f"/orders/{pending.order_id[1:]}/cancel", 422, "invalid_request", json=bad_body)


def test_service_rejects_bad_cancel_reason_directly(api):
    """The rule lives in the service too (gold actions do not go through HTTP)."""
    from customer_apis.errors import ApiError

    order = find_order(api.tenant.db, "pending")
    with pytest.raises(ApiError) as error:
        api.tenant.service.cancel_pending_order(order.order_id, "changed my mind")
    assert (error.value.status, error.value.code) == (422, "invalid_request")


# modify items -----------------------------------------------------------------------------------


def test_modify_items_settles_difference_on_card(api):
    db = api.tenant.db
    order = find_order(db, "pending", lambda o, u: single_card_payment(o, u) and other_variant(db, o.items[0]))
    item = order.items[0]
    new = other_variant(db, item)
    card = order.payment_history[0].payment_method_id
    body = api.call("POST", f"/orders/{order.order_id[1:]}/items/modify",
                    json={"item_ids": [item.item_id], "new_item_ids": [new.item_id], "payment_method_id": card}).json()
    difference = round(new.price - item.price, 2)
    assert body["status"] == "pending (item modified)"
    assert body["items"][0] == {"name": item.name, "product_id": item.product_id, "item_id": new.item_id,
                                "price": new.price, "options": new.options}
    assert body["items"][1:] == [i.model_dump(mode="json") for i in order.items[1:]]
    assert body["payment_history"][-1] == {"transaction_type": "payment" if difference > 0 else "refund",
                                           "amount": abs(difference), "payment_method_id": card}
    assert len(body["payment_history"]) == 2


def test_modify_items_with_gift_card_adjusts_balance(api):
    db = api.tenant.db

    def fits(o, u):
        cards = methods_of(u, "gift_card")
        return cards and other_variant(db, o.items[0], cheaper=True)

    order = find_order(db, "pending", fits)
    user = db.users[order.user_id]
    card = methods_of(user, "gift_card")[0]
    balance = card.balance
    item = order.items[0]
    new = other_variant(db, item, cheaper=True)
    api.call("POST", f"/orders/{order.order_id[1:]}/items/modify",
             json={"item_ids": [item.item_id], "new_item_ids": [new.item_id], "payment_method_id": card.id})
    assert db.users[user.user_id].payment_methods[card.id].balance == round(balance + item.price - new.price, 2)


def test_modify_items_handles_repeated_item_ids(api):
    """A repeated id replaces as many occurrences; asking for more occurrences than exist is rejected."""
    db = api.tenant.db
    order = find_order(db, "pending", lambda o, u: other_variant(db, o.items[0]) is not None)
    item, new = order.items[0], other_variant(db, order.items[0])
    user = db.users[order.user_id]
    method_id = next(iter(user.payment_methods))
    doubled = [item.model_dump(mode="json")] * 2 + [i.model_dump(mode="json") for i in order.items[1:]]
    api.tenant.service.db.orders[order.order_id].items = [type(item).model_validate(i) for i in doubled]
    api.rejected("POST", f"/orders/{order.order_id[1:]}/items/modify", 422, "invalid_request",
                 json={"item_ids": [item.item_id] * 3, "new_item_ids": [new.item_id] * 3,
                       "payment_method_id": method_id})
    body = api.call("POST", f"/orders/{order.order_id[1:]}/items/modify",
                    json={"item_ids": [item.item_id] * 2, "new_item_ids": [new.item_id] * 2,
                          "payment_method_id": method_id}).json()
    assert [i["item_id"] for i in body["items"][:2]] == [new.item_id, new.item_id]


def test_modify_items_errors(api):
    db = api.tenant.db
    order = find_order(db, "pending", lambda o, u: single_card_payment(o, u) and other_variant(db, o.items[0])
                       and other_variant(db, o.items[0], available=False))
    user = db.users[order.user_id]
    item = order.items[0]
    card = order.payment_history[0].payment_method_id
    good = {"item_ids": [item.item_id], "new_item_ids": [other_variant(db, item).item_id], "payment_method_id": card}
    foreign_product = next(p for p in db.products.values() if p.product_id != item.product_id)
    stranger_method = next(m for u in db.users.values() if u.user_id != user.user_id for m in u.payment_methods)
    path = f"/orders/{order.order_id[1:]}/items/modify"
    cases = [
        {**good, "item_ids": ["0000000000"]},                                       # not in the order
        {**good, "new_item_ids": []},                                               # length mismatch
        {**good, "item_ids": [], "new_item_ids": []},                               # nothing to modify
        {**good, "new_item_ids": [next(iter(foreign_product.variants))]},           # other product
        {**good, "new_item_ids": [other_variant(db, item, available=False).item_id]},  # unavailable
        {**good, "new_item_ids": [item.item_id]},                                   # same item
        {**good, "payment_method_id": stranger_method},                             # not the user's
        {**good, "item_ids": item.item_id},                                         # wrong type
        {k: v for k, v in good.items() if k != "payment_method_id"},               # missing field
    ]
    for body in cases:
        api.rejected("POST", path, 422, "invalid_request", json=body)
    api.rejected("POST", "/orders/W0000000/items/modify", 404, "not_found", json=good)
    processed = find_order(db, "processed")
    api.rejected("POST", f"/orders/{processed.order_id[1:]}/items/modify", 409, "invalid_state", json=good)


def test_modify_items_gift_card_must_cover_a_charge(api):
    db = api.tenant.db
    order = find_order(
        db, "pending", lambda o, u: methods_of(u, "gift_card") and other_variant(db, o.items[0], cheaper=False)
    )
    user = db.users[order.user_id]
    card = methods_of(user, "gift_card")[0]
    card.balance = 0.0
    item, new = order.items[0], other_variant(db, order.items[0], cheaper=False)
    error = api.rejected("POST", f"/orders/{order.order_id[1:]}/items/modify", 409, "invalid_state",
                         json={"item_ids": [item.item_id], "new_item_ids": [new.item_id], "payment_method_id": card.id})
    assert "gift card" in error["message"]


# modify order address ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["pending", "pending (item modified)"])
def test_modify_order_address(api, status):
    order = find_order(api.tenant.db, status)
    body = api.call("PUT", f"/orders/{order.order_id[1:]}/address", json=NEW_ADDRESS).json()
    assert body["address"] == NEW_ADDRESS and body["status"] == status
    assert api.tenant.db.orders[order.order_id].address.model_dump() == NEW_ADDRESS


def test_modify_order_address_errors(api):
    db = api.tenant.db
    pending = find_order(db, "pending")
    path = f"/orders/{pending.order_id[1:]}/address"
    for bad in ({**NEW_ADDRESS, "city": "  "}, {**NEW_ADDRESS, "zip": 95014},
                {k: v for k, v in NEW_ADDRESS.items() if k != "state"}, {**NEW_ADDRESS, "planet": "Earth"}):
        api.rejected("PUT", path, 422, "invalid_request", json=bad)
    api.rejected("PUT", path, 422, "invalid_request", content=b'{"address1": ',
                 headers={"content-type": "application/json"})
    api.rejected("PUT", "/orders/W0000000/address", 404, "not_found", json=NEW_ADDRESS)
    api.rejected("PUT", f"/orders/{find_order(db, 'processed').order_id[1:]}/address", 409, "invalid_state",
                 json=NEW_ADDRESS)


# modify payment ---------------------------------------------------------------------------------


def test_modify_payment_moves_the_payment_to_a_gift_card(api):
    db = api.tenant.db

    def fits(o, u):
        cards = methods_of(u, "gift_card")
        return single_card_payment(o, u) and cards and cards[0].balance >= o.payment_history[0].amount

    order = find_order(db, "pending", fits)
    user = db.users[order.user_id]
    old = order.payment_history[0]
    card = methods_of(user, "gift_card")[0]
    balance = card.balance
    body = api.call("PUT", f"/orders/{order.order_id[1:]}/payment", json={"payment_method_id": card.id}).json()
    assert body["payment_history"] == [
        old.model_dump(),
        {"transaction_type": "payment", "amount": old.amount, "payment_method_id": card.id},
        {"transaction_type": "refund", "amount": old.amount, "payment_method_id": old.payment_method_id},
    ]
    assert db.users[user.user_id].payment_methods[card.id].balance == round(balance - old.amount, 2)
    assert body["status"] == "pending"


def test_modify_payment_errors(api):
    db = api.tenant.db
    order = find_order(db, "pending", lambda o, u: single_card_payment(o, u) and len(u.payment_methods) >= 2)
    user = db.users[order.user_id]
    current = order.payment_history[0].payment_method_id
    path = f"/orders/{order.order_id[1:]}/payment"
    api.rejected("PUT", path, 422, "invalid_request", json={"payment_method_id": current})
    api.rejected("PUT", path, 422, "invalid_request", json={"payment_method_id": "credit_card_0000000"})
    api.rejected("PUT", path, 422, "invalid_request", json={"payment_method_id": None})
    api.rejected("PUT", "/orders/W0000000/payment", 404, "not_found", json={"payment_method_id": current})
    api.rejected("PUT", f"/orders/{find_order(db, 'delivered').order_id[1:]}/payment", 409, "invalid_state",
                 json={"payment_method_id": current})
    other = next(m for m in user.payment_methods.values() if m.id != current)
    db.orders[order.order_id].payment_history.append(order.payment_history[0])  # two payments: not changeable
    api.rejected("PUT", path, 409, "invalid_state", json={"payment_method_id": other.id})


def test_modify_payment_gift_card_must_cover_total(api):
    db = api.tenant.db
    order = find_order(db, "pending", lambda o, u: single_card_payment(o, u) and methods_of(u, "gift_card"))
    card = methods_of(db.users[order.user_id], "gift_card")[0]
    for balance in (round(order.payment_history[0].amount - 0.01, 2), None):
        card.balance = balance
        api.rejected("PUT", f"/orders/{order.order_id[1:]}/payment", 409, "invalid_state",
                     json={"payment_method_id": card.id})


# return -----------------------------------------------------------------------------------------


def test_return_to_original_method(api):
    db = api.tenant.db
    order = find_order(db, "delivered", lambda o, u: len(o.items) >= 2)
    ids = [order.items[1].item_id, order.items[0].item_id]
    original = order.payment_history[0].payment_method_id
    body = api.call("POST", f"/orders/{order.order_id[1:]}/return",
                    json={"item_ids": ids, "payment_method_id": original}).json()
    assert body["status"] == "return requested"
    assert body["return_items"] == sorted(ids) and body["return_payment_method_id"] == original
    assert body["payment_history"] == [e.model_dump() for e in order.payment_history]


def test_return_to_any_gift_card_of_the_user(api):
    db = api.tenant.db
    order = find_order(db, "delivered", lambda o, u: single_card_payment(o, u) and methods_of(u, "gift_card"))
    card = methods_of(db.users[order.user_id], "gift_card")[0]
    body = api.call("POST", f"/orders/{order.order_id[1:]}/return",
                    json={"item_ids": [order.items[0].item_id], "payment_method_id": card.id}).json()
    assert body["return_payment_method_id"] == card.id


def test_return_errors(api):
    db = api.tenant.db
    order = find_order(db, "delivered", lambda o, u: single_card_payment(o, u) and methods_of(u, "paypal"))
    paypal = methods_of(db.users[order.user_id], "paypal")[0]
    original = order.payment_history[0].payment_method_id
    path = f"/orders/{order.order_id[1:]}/return"
    item_id = order.items[0].item_id
    api.rejected("POST", path, 422, "invalid_request", json={"item_ids": [item_id], "payment_method_id": paypal.id})
    api.rejected("POST", path, 422, "invalid_request", json={"item_ids": ["0000000000"], "payment_method_id": original})
    api.rejected("POST", path, 422, "invalid_request", json={"item_ids": [], "payment_method_id": original})
    api.rejected("POST", path, 422, "invalid_request", json=[item_id])
    api.rejected("POST", "/orders/W0000000/return", 404, "not_found",
                 json={"item_ids": [item_id], "payment_method_id": original})
    pending = find_order(db, "pending")
    api.rejected("POST", f"/orders/{pending.order_id[1:]}/return", 409, "invalid_state",
                 json={"item_ids": [pending.items[0].item_id],
                       "payment_method_id": pending.payment_history[0].payment_method_id})


# exchange ---------------------------------------------------------------------------------------


def test_exchange_records_the_request(api):
    db = api.tenant.db
    order = find_order(db, "delivered", lambda o, u: other_variant(db, o.items[0]) is not None)
    item, new = order.items[0], other_variant(db, order.items[0])
    method_id = next(iter(db.users[order.user_id].payment_methods))
    body = api.call("POST", f"/orders/{order.order_id[1:]}/exchange",
                    json={"item_ids": [item.item_id], "new_item_ids": [new.item_id],
                          "payment_method_id": method_id}).json()
    assert body["status"] == "exchange requested"
    assert (body["exchange_items"], body["exchange_new_items"]) == ([item.item_id], [new.item_id])
    assert body["exchange_payment_method_id"] == method_id
    assert body["items"] == [i.model_dump(mode="json") for i in order.items]  # items change only on completion


def test_exchange_errors(api):
    db = api.tenant.db
    order = find_order(
        db, "delivered", lambda o, u: methods_of(u, "gift_card") and other_variant(db, o.items[0], cheaper=False)
    )
    user = db.users[order.user_id]
    item, new = order.items[0], other_variant(db, order.items[0], cheaper=False)
    card = methods_of(user, "gift_card")[0]
    path = f"/orders/{order.order_id[1:]}/exchange"
    good = {"item_ids": [item.item_id], "new_item_ids": [new.item_id], "payment_method_id": card.id}
    other_product_item = next(iter(next(p for p in db.products.values() if p.product_id != item.product_id).variants))
    api.rejected("POST", path, 422, "invalid_request", json={**good, "new_item_ids": [other_product_item]})
    api.rejected("POST", path, 422, "invalid_request", json={**good, "payment_method_id": "paypal_0000000"})
    api.rejected("POST", path, 422, "invalid_request", json={**good, "new_item_ids": [new.item_id, new.item_id]})
    card.balance = 0.0
    api.rejected("POST", path, 409, "invalid_state", json=good)
    api.rejected("POST", "/orders/W0000000/exchange", 404, "not_found", json=good)
    cancelled = find_order(db, "cancelled")
    api.rejected("POST", f"/orders/{cancelled.order_id[1:]}/exchange", 409, "invalid_state", json=good)


# user address and transfers ---------------------------------------------------------------------


def test_modify_user_address(api):
    user = list(api.tenant.db.users.values())[2]
    body = api.call("PUT", f"/users/{user.user_id}/address", json={**NEW_ADDRESS, "address2": "Apt 4"}).json()
    assert body["address"] == {**NEW_ADDRESS, "address2": "Apt 4"} and body["user_id"] == user.user_id
    api.rejected("PUT", "/users/nobody_at_all_0000/address", 404, "not_found", json=NEW_ADDRESS)
    api.rejected("PUT", f"/users/{user.user_id}/address", 422, "invalid_request", json={**NEW_ADDRESS, "address1": ""})


def test_transfers_are_numbered_and_kept_out_of_the_db(api):
    before = api.tenant.state_hash()
    first = api.call("POST", "/transfers", json={"summary": "wants a manager"})
    second = api.call("POST", "/transfers", json={"summary": "damaged item"})
    assert (first.status_code, first.json()) == (200, {"transfer_id": "transfer_0001", "status": "queued"})
    assert second.json()["transfer_id"] == "transfer_0002"
    assert api.tenant.service.transfers[1] == {"transfer_id": "transfer_0002", "summary": "damaged item"}
    assert api.tenant.state_hash() == before
    api.rejected("POST", "/transfers", 422, "invalid_request", json={"summary": "   "})
    api.rejected("POST", "/transfers", 422, "invalid_request", json={})
