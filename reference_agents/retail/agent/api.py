"""HTTP client of the store REST API at HYPERTAU_API_URL, with retries for rate limits and timeouts."""

from __future__ import annotations

import sys
import time
import uuid

import httpx


class ApiError(Exception):
    """A 4xx answer of the store API: `{"error": {"code", "message"}}`."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


def _path_id(order_id: str) -> str:
    return order_id.lstrip("#")


class StoreApi:
    """One method per store operation; writes carry an Idempotency-Key so a retry never double-writes."""

    def __init__(self, base_url: str, retries: int = 4, timeout: float = 15.0):
        self._http = httpx.Client(base_url=base_url.rstrip("/") + "/", timeout=timeout)
        self._retries = retries

    def _call(self, method: str, path: str, **kwargs):
        headers = {"Idempotency-Key": uuid.uuid4().hex} if method != "GET" else {}
        for attempt in range(self._retries + 1):
            try:
                response = self._http.request(method, path, headers=headers, **kwargs)
            except httpx.TransportError as err:
                print(f"api {method} {path}: {err!r}", file=sys.stderr)
                if attempt == self._retries:
                    raise
                time.sleep(0.2 * (attempt + 1))
                continue
            if response.status_code in (429, 502, 503, 504) and attempt < self._retries:
                wait = float(response.headers.get("Retry-After", 0.2 * (attempt + 1)) or 0.2)
                time.sleep(min(wait, 2.0))
                continue
            if response.status_code >= 400:
                try:
                    error = response.json()["error"]
                    raise ApiError(response.status_code, error.get("code", ""), error.get("message", ""))
                except (ValueError, KeyError, TypeError):
                    raise ApiError(response.status_code, "http_error", response.text[:200]) from None
            return response.json()
        raise ApiError(503, "unavailable", f"{method} {path} kept failing")

    def find_user_id_by_email(self, email: str) -> str:
        """The user id of the account with this email (404 if none)."""
        return self._call("GET", "users/by-email", params={"email": email})["user_id"]

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """The user id of the account with this name and zip code (404 if none)."""
        params = {"first_name": first_name, "last_name": last_name, "zip": zip}
        return self._call("GET", "users/by-name-zip", params=params)["user_id"]

    def get_user_details(self, user_id: str) -> dict:
        """A user's profile, payment methods and order ids."""
        return self._call("GET", f"users/{user_id}")

    def get_order_details(self, order_id: str) -> dict:
        """An order with items, status, fulfillments and payments."""
        return self._call("GET", f"orders/{_path_id(order_id)}")

    def get_product_details(self, product_id: str) -> dict:
        """A product type with all its variants."""
        return self._call("GET", f"products/{product_id}")

    def list_all_product_types(self) -> dict:
        """Product type name -> product id."""
        return self._call("GET", "products")

    def get_business_date(self) -> str:
        """The store's business date (ISO)."""
        return self._call("GET", "meta")["business_date"]

    def cancel_pending_order(self, order_id: str, reason: str) -> dict:
        """Cancel a pending order with a policy reason."""
        return self._call("POST", f"orders/{_path_id(order_id)}/cancel", json={"reason": reason})

    def modify_pending_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                   payment_method_id: str) -> dict:
        """Swap items of a pending order for other variants, settling the difference."""
        body = {"item_ids": item_ids, "new_item_ids": new_item_ids, "payment_method_id": payment_method_id}
        return self._call("POST", f"orders/{_path_id(order_id)}/items/modify", json=body)

    def modify_pending_order_address(self, order_id: str, address: dict) -> dict:
        """Change the shipping address of a pending order."""
        return self._call("PUT", f"orders/{_path_id(order_id)}/address", json=address)

    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> dict:
        """Pay a pending order with another method of the user."""
        return self._call("PUT", f"orders/{_path_id(order_id)}/payment",
                          json={"payment_method_id": payment_method_id})

    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> dict:
        """Request the return of delivered items."""
        body = {"item_ids": item_ids, "payment_method_id": payment_method_id}
        return self._call("POST", f"orders/{_path_id(order_id)}/return", json=body)

    def exchange_delivered_order_items(self, order_id: str, item_ids: list[str], new_item_ids: list[str],
                                       payment_method_id: str) -> dict:
        """Request the exchange of delivered items for other variants."""
        body = {"item_ids": item_ids, "new_item_ids": new_item_ids, "payment_method_id": payment_method_id}
        return self._call("POST", f"orders/{_path_id(order_id)}/exchange", json=body)

    def modify_user_address(self, user_id: str, address: dict) -> dict:
        """Change a user's default address."""
        return self._call("PUT", f"users/{user_id}/address", json=address)

    def transfer_to_human_agents(self, summary: str) -> dict:
        """Hand the conversation to a human agent."""
        return self._call("POST", "transfers", json={"summary": summary})
