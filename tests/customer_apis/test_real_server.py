"""The apps served for real by uvicorn (ApiServer) and reached with httpx, including concurrent writes."""

from concurrent.futures import ThreadPoolExecutor

import httpx

from customer_apis.server import ApiServer, main
from customer_apis.tenancy import TenantRegistry
from tests.customer_apis.conftest import find_order, path_id


def test_api_server_end_to_end():
    registry = TenantRegistry()
    with ApiServer(registry) as server:
        assert server.public_url.startswith("http://127.0.0.1:") and server.public_url != server.admin_url
        auth = {"Authorization": f"Bearer {server.admin_token}"}
        with httpx.Client(timeout=10) as client:
            assert client.post(f"{server.admin_url}/tenants", json={"domain": "retail", "seed": 7}).status_code == 401
            created = client.post(
                f"{server.admin_url}/tenants", json={"domain": "retail", "seed": 7}, headers=auth
            ).json()
            base = server.public_url + created["base_path"]
            tenant = registry.get(created["tenant_id"])
            order = find_order(tenant.db, "pending")
            url = f"{base}/orders/{path_id(order.order_id)}/cancel"

            def cancel(_):
                return client.post(url, json={"reason": "no longer needed"}).status_code

            with ThreadPoolExecutor(max_workers=8) as pool:
                statuses = sorted(pool.map(cancel, range(8)))
            assert statuses == [200] + [409] * 7  # requests are serialised per tenant: exactly one cancel wins
            refunds = [e for e in tenant.db.orders[order.order_id].payment_history if e.transaction_type == "refund"]
            assert len(refunds) == 1
            log = client.get(f"{server.admin_url}/tenants/{created['tenant_id']}/requests", headers=auth).json()
            assert [e["seq"] for e in log["requests"]] == list(range(1, 9))
            assert client.get(f"{server.public_url}/t/wrong/meta").json()["error"]["code"] == "not_found"
            state_hash = client.get(f"{server.admin_url}/tenants/{created['tenant_id']}/hash", headers=auth).json()
            assert state_hash["state_hash"] == tenant.state_hash()
    with httpx.Client(timeout=2) as client:
        try:
            client.get(f"{server.public_url}/healthz")
            raise AssertionError("server still answers after stop")
        except httpx.TransportError:
            pass


def test_main_refuses_to_start_without_admin_token(monkeypatch, capsys):
    monkeypatch.delenv("HYPERTAU_ADMIN_TOKEN", raising=False)
    assert main(["--public-port", "0", "--admin-port", "0"]) == 2
    assert "HYPERTAU_ADMIN_TOKEN" in capsys.readouterr().err
