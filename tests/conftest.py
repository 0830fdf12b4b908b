"""Suite-wide: tests marked `docker` are skipped, with the reason, when no Docker engine answers."""

import pytest


def pytest_collection_modifyitems(config, items):
    docker_tests = [item for item in items if item.get_closest_marker("docker")]
    if not docker_tests:
        return
    from orchestrator.sandbox.engine import engine_available

    if engine_available():
        return
    skip = pytest.mark.skip(reason="no Docker engine answers (scripts/ensure-docker.sh starts one as root)")
    for item in docker_tests:
        item.add_marker(skip)
