"""Wording helpers: money, payment methods, items, addresses, and the reply templates of replies.json."""

from __future__ import annotations

import json
from pathlib import Path

REPLIES: dict[str, str] = json.loads((Path(__file__).parent / "replies.json").read_text(encoding="utf-8"))
BRANDS = {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express", "discover": "Discover"}


def say(key: str, **values) -> str:
    """Fill the reply template `key`."""
    return REPLIES[key].format(**values)


def money(amount: float) -> str:
    """`$1,234.56`."""
    return f"${amount:,.2f}"


def method(pm: dict) -> str:
    """A payment method as a customer recognises it."""
    if pm["source"] == "credit_card":
        brand = BRANDS.get((pm.get("brand") or "").lower(), (pm.get("brand") or "credit").title())
        return f"{brand} card ending in {pm.get('last_four')}"
    if pm["source"] == "paypal":
        return "PayPal account"
    return f"gift card ({pm['id']}, balance {money(pm.get('balance') or 0.0)})"


def refund_time(pm: dict, policy: dict) -> str:
    """When a refund to this method arrives (policy 15)."""
    if pm["source"] == "gift_card":
        return policy["gift_card_refund_time"]
    return f"within {policy['card_refund_time']}"


def item(it: dict) -> str:
    """`T-Shirt (color: blue, size: M)`."""
    opts = ", ".join(f"{k}: {v}" for k, v in it["options"].items())
    return f"{it['name']} ({opts})" if opts else it["name"]


def items(its: list[dict]) -> str:
    """Several items joined for a sentence."""
    return "; ".join(item(i) for i in its)


def address(addr: dict) -> str:
    """One-line postal address."""
    parts = [addr["address1"], addr.get("address2") or "", addr["city"], f"{addr['state']} {addr['zip']}",
             addr["country"]]
    return ", ".join(p for p in parts if p)


def options_menu(product: dict) -> str:
    """The option values of a product's available variants, e.g. `color: black, blue; size: M, L`."""
    values: dict[str, list[str]] = {}
    for variant in product["variants"].values():
        if variant["available"]:
            for key, value in variant["options"].items():
                values.setdefault(key, [])
                if value not in values[key]:
                    values[key].append(value)
    return "; ".join(f"{k}: {', '.join(v)}" for k, v in values.items())
