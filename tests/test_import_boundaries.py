"""DESIGN §2 "must never import": parse every module's imports and check the forbidden edges."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "customer_apis": {"heldout", "orchestrator"},
    "evidence_corpus": {"heldout", "orchestrator"},
    "client_sim": {"heldout", "orchestrator"},
    "heldout": {"orchestrator"},
    "reference_agents": {"heldout", "orchestrator", "customer_apis", "evidence_corpus", "client_sim",
                         "build_kits"},
    "build_kits": {"heldout", "orchestrator"},
}


def imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_respects_import_boundary(package):
    offenders = []
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = imported_top_levels(path) & FORBIDDEN[package]
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert not offenders, "\n".join(offenders)


def test_checker_sees_imports(tmp_path):
    sample = tmp_path / "m.py"
    sample.write_text("import heldout.x\nfrom orchestrator import cli\nfrom . import sibling\n")
    assert imported_top_levels(sample) == {"heldout", "orchestrator"}
