"""Fixtures for sandbox tests: current images (built if missing), unique run labels, leftover checks."""

from __future__ import annotations

import secrets

import pytest


@pytest.fixture(scope="session")
def images() -> dict[str, str]:
    """Tag of every catalog image with its current inputs (`make test` builds them beforehand)."""
    from orchestrator.images import CATALOG, resolve_images

    return resolve_images(list(CATALOG))


@pytest.fixture
def run_id() -> str:
    """A run id no other test or concurrent run uses, so that label filters see only this test's resources."""
    return f"test-{secrets.token_hex(5)}"


def leftovers(run_id: str) -> dict[str, list[str]]:
    """Our containers and networks still labelled with `run_id` (what `docker ps -a` / `network ls` show)."""
    from orchestrator.sandbox import engine

    client = engine.client()
    try:
        filters = {"label": f"{engine.LABEL_RUN}={run_id}"}
        listed = client.containers.list(all=True, filters=filters, sparse=True)  # no inspect: no race on removal
        return {"containers": [name.lstrip("/") for c in listed for name in c.attrs.get("Names", [])],
                "networks": [n.name for n in client.networks.list(filters=filters)]}
    finally:
        client.close()
