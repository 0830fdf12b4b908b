"""Fixtures: a retail tenant with chosen defects on a manual clock, reached through the real public app."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*starlette.testclient.*")
from fastapi.testclient import TestClient  # noqa: E402

from customer_apis.defects.clock import ManualClock  # noqa: E402
from customer_apis.server import create_public_app  # noqa: E402
from customer_apis.tenancy import Tenant, TenantRegistry  # noqa: E402

SEED = 7


@dataclass
class Faulty:
    """A tenant with defects; `call` prefixes the tenant path, `wait` moves the clock as a client would."""

    client: TestClient
    tenant: Tenant
    clock: ManualClock

    def call(self, method: str, path: str, **kwargs: Any):
        return self.client.request(method, f"/t/{self.tenant.token}{path}", **kwargs)

    def wait(self, response) -> None:
        """Wait out the response's Retry-After on the virtual clock."""
        self.clock.advance(float(response.headers["retry-after"]))

    @property
    def db(self):
        return self.tenant.db

    def defects(self) -> list[str | None]:
        return [entry["defect"] for entry in self.tenant.request_log]


def spec(defect_id: str, kind: str, operations: list[str], calls: Any = "all", **params: Any) -> dict:
    """One defect entry as it appears in a deployment manifest."""
    return {"id": defect_id, "kind": kind, "operations": operations, "calls": calls, "params": params}


@pytest.fixture
def faulty() -> Callable[..., Faulty]:
    """Make a tenant: `faulty([spec(...), ...], trial=0, exposure=1.0)`."""

    def make(defects: list[dict], *, task: str = "retail-02", scenario: str = "unit", trial: int = 0,
             exposure: float = 1.0, clock: ManualClock | None = None) -> Faulty:
        clock = clock or ManualClock()
        registry = TenantRegistry(clock=clock)
        context = {"task": task, "scenario": scenario, "trial": trial, "exposure": exposure, "defects": defects}
        tenant = registry.create("retail", SEED, defects=context)
        return Faulty(TestClient(create_public_app(registry)), tenant, clock)

    return make


def order_path(order_id: str) -> str:
    return "/orders/" + order_id.replace("#", "%23")


def first_order(db, status: str, where=lambda order: True):
    return next(o for o in db.orders.values() if o.status == status and where(o))


NEW_ADDRESS = {"address1": "1 Test Way", "address2": "", "city": "Testville", "state": "CA", "country": "USA",
               "zip": "90001"}


@pytest.fixture
def registry() -> TenantRegistry:
    return TenantRegistry()


@pytest.fixture
def admin(registry) -> TestClient:
    """The orchestrator's admin app over `registry`."""
    from customer_apis.server import create_admin_app
    from tests.customer_apis.conftest import ADMIN_TOKEN

    return TestClient(create_admin_app(registry, ADMIN_TOKEN))
