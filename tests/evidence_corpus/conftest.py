"""A retail `core` corpus built once per test session into a temporary directory."""

import pytest

from evidence_corpus.corpus import build_corpus


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    out, manifest_path = root / "kit" / "evidence", root / "host" / "manifest.json"
    manifest = build_corpus("retail", "core", out, manifest_path=manifest_path)
    return out, manifest, manifest_path
