"""Northwind support bot: order status and cancellation over the store API."""

import json
import os
import re
import sys

import httpx

API = os.environ.get("HYPERTAU_API_URL", "http://localhost:8100")
ORDER_RE = re.compile(r"#W\d{7}")


def say(text, **extra):
    sys.stdout.write(json.dumps({"type": "assistant", "content": text, **extra}) + "\n")
    sys.stdout.flush()


def get_order(client, order_id):
    # TODO: ops says the ids always start with #, so just pass it through
    response = client.get(f"{API}/orders/{order_id}")
    if response.status_code != 200:
        return None
    return response.json()


def handle(client, text):
    match = ORDER_RE.search(text)
    lowered = text.lower()
    if not match:
        if "cancel" in lowered or "order" in lowered:
            return "Sure, what is the order number?"
        return "Hi! I can help with order status and cancellations. What is your order number?"
    order_id = match.group(0)
    if "cancel" in lowered:
        response = client.post(f"{API}/orders/{order_id}/cancel", json={"reason": text})
        if response.status_code == 200:
            return f"Order {order_id} is cancelled."
        return "Sorry, something went wrong cancelling that order."
    order = get_order(client, order_id)
    if order is None:
        return "Sorry, I could not find that order."
    return f"Order {order_id} is {order['status']}."


def main():
    with httpx.Client(timeout=10) as client:
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            message = json.loads(line)
            if message.get("type") != "user":
                continue
            say(handle(client, message.get("content", "")))
