"""HTTP client of the store REST API at HYPERTAU_API_URL.

Careful (expert) mode survives the production API: every write carries an Idempotency-Key and is retried
with the same key after a timeout or 5xx; 429 and 202 are waited out per Retry-After (a 202 is polled at its
status resource until done); order lists follow every cursor and start again when one expires; responses
are read in their documented shape (`tolerance`); after a write, reads of what it changed wait until they
show it. Plain (naive) mode sends each request once and takes the answer as it comes.
"""

from __future__ import annotations

import sys
import time
import uuid

import httpx

from .tolerance import normalise

RETRY_STATUSES = (429, 500, 502, 503, 504)


class ApiError(Exception):
    """A 4xx answer of the store API: `{"error": {"code", "message"}}`."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


def _path_id(order_id: str) -> str:
    return order_id.lstrip("#")


def _error(response: httpx.Response) -> ApiError:
    try:
        error = response.json()["error"]
        return ApiError(response.status_code, error.get("code", ""), error.get("message", ""))
    except (ValueError, KeyError, TypeError):
        return ApiError(response.status_code, "http_error", response.text[:200])


def _resource(path: str) -> str | None:
    """The entity a write path changes (`orders/W1/cancel` → `orders/W1`), or None."""
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) >= 2 and parts[0] in ("orders", "users") else None


class StoreApi:
    """One method per store operation; `careful` turns on everything the production API needs."""

    def __init__(self, base_url: str, careful: bool = True, retries: int = 6, timeout: float = 15.0,
                 max_wait_s: float = 5.0, settle_s: float = 10.0, poll_s: float = 0.25, sleep=time.sleep):
        self._http = httpx.Client(base_url=base_url.rstrip("/") + "/", timeout=timeout)
        self.careful, self._retries, self._max_wait, self._settle = careful, retries, max_wait_s, settle_s
        self._poll, self._sleep = poll_s, sleep
        self._written: dict[str, dict] = {}  # resource -> its state as our last write left it

    # ---- transport ---------------------------------------------------------------------------------
    def _wait(self, response: httpx.Response | None, attempt: int) -> None:
        default = 0.2 * (attempt + 1)
        try:
            wait = float(response.headers.get("Retry-After", default)) if response is not None else default
        except ValueError:
            wait = default
        self._sleep(min(max(wait, 0.0), self._max_wait))

    def _send(self, method: str, path: str, headers: dict, **kwargs) -> httpx.Response:
        """One request; careful mode retries transport errors, 429 and 5xx with the same headers."""
        for attempt in range(self._retries + 1):
            last = attempt == self._retries or not self.careful
            try:
                response = self._http.request(method, path, headers=headers, **kwargs)
            except httpx.TransportError as err:
                print(f"api {method} {path}: {err!r}", file=sys.stderr)
                if last:
                    raise
                self._wait(None, attempt)
                continue
            if response.status_code in RETRY_STATUSES and not last:
                self._wait(response, attempt)
                continue
            return response
        raise AssertionError("unreachable")

    def _call(self, method: str, path: str, **kwargs):
        headers = {"Idempotency-Key": uuid.uuid4().hex} if self.careful and method != "GET" else {}
        response = self._send(method, path, headers, **kwargs)
        if response.status_code >= 400:
            raise _error(response)
        if not self.careful:
            return response.json()
        body = self._completed(response) if response.status_code == 202 else response.json()
        body = normalise(body)
        resource = _resource(path)
        if method != "GET" and resource and isinstance(body, dict):
            self._written[resource] = body
            self._read(resource)
        return body

    def _completed(self, accepted: httpx.Response):
        """Poll the status resource of an accepted write until it is done; its result (or its error)."""
        status_url = accepted.json()["status_url"].lstrip("/")
        response = accepted
        for _ in range(60):
            self._wait(response, 0)
            response = self._send("GET", status_url, {})
            if response.status_code >= 400:
                raise _error(response)
            status = response.json()
            if status["status"] == "succeeded":
                return status["result"]
            if status["status"] == "failed":
                error = (status.get("result") or {}).get("error", {})
                raise ApiError(status.get("http_status", 409), error.get("code", ""), error.get("message", ""))
        raise ApiError(504, "unfinished", f"{status_url} did not finish")

    def _read(self, path: str):
        """GET a resource; after our own write to it, wait until the read shows that write."""
        polls = int(self._settle / self._poll)
        for attempt in range(polls + 1):
            body = self._get(path)
            expected = self._written.get(path)
            if expected is None or body == expected or attempt == polls:
                return body
            self._sleep(self._poll)
        raise AssertionError("unreachable")

    def _get(self, path: str, **kwargs):
        response = self._send("GET", path, {}, **kwargs)
        if response.status_code >= 400:
            raise _error(response)
        return normalise(response.json()) if self.careful else response.json()

    # ---- operations --------------------------------------------------------------------------------
    def find_user_id_by_email(self, email: str) -> str:
        """The user id of the account with this email (404 if none)."""
        return self._get("users/by-email", params={"email": email})["user_id"]

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """The user id of the account with this name and zip code (404 if none)."""
        params = {"first_name": first_name, "last_name": last_name, "zip": zip}
        return self._get("users/by-name-zip", params=params)["user_id"]

    def get_user_details(self, user_id: str) -> dict:
        """A user's profile, payment methods and order ids."""
        return self._read(f"users/{user_id}")

    def list_user_orders(self, user_id: str) -> list[dict]:
        """The user's order lines, newest first: every page (careful) or the first page (plain)."""
        if not self.careful:
            return self._get(f"users/{user_id}/orders")["orders"]
        for _ in range(self._retries):
            lines, cursor = {}, None
            while True:
                params = {"limit": 50, **({"cursor": cursor} if cursor else {})}
                response = self._send("GET", f"users/{user_id}/orders", {}, params=params)
                if response.status_code == 410:
                    break  # the cursor expired: read the list again from the start
                if response.status_code >= 400:
                    raise _error(response)
                page = normalise(response.json())
                lines.update((line["order_id"], line) for line in page["orders"])
                cursor = page.get("next_cursor")
                if not cursor:
                    return sorted(lines.values(), key=lambda line: (line["placed_on"], line["order_id"]),
                                  reverse=True)
        raise ApiError(503, "unavailable", f"could not read the orders of {user_id}")

    def get_order_details(self, order_id: str) -> dict:
        """An order with items, status, fulfillments and payments."""
        return self._read(f"orders/{_path_id(order_id)}")

    def get_product_details(self, product_id: str) -> dict:
        """A product type with all its variants."""
        return self._get(f"products/{product_id}")

    def list_all_product_types(self) -> dict:
        """Product type name -> product id."""
        return self._get("products")

    def get_business_date(self) -> str:
        """The store's business date (ISO)."""
        return self._get("meta")["business_date"]

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
