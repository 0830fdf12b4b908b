"""Workspace: "Initial import" commit, sealing without .git, provenance classes."""

import subprocess

from orchestrator.workspace import init_workspace, provenance_diff, seal_workspace


def test_initial_import_seal_and_provenance(tmp_path):
    source = tmp_path / "src"
    (source / "agent").mkdir(parents=True)
    (source / "agent" / "bot.py").write_text("print('v0')\n")
    (source / "README.md").write_text("hello\n")
    (source / "notes.txt").write_text("old\n")
    workspace = tmp_path / "ws"
    baseline = init_workspace(source, workspace)
    log = subprocess.run(["git", "log", "--format=%s"], cwd=workspace, capture_output=True, text=True, check=True)
    assert log.stdout.strip() == "Initial import"
    assert set(baseline) == {"agent/bot.py", "README.md", "notes.txt"}

    (workspace / "agent" / "bot.py").write_text("print('v1')\n")
    (workspace / "agent" / "new.py").write_text("x = 1\n")
    (workspace / "notes.txt").unlink()
    sealed = tmp_path / "sealed"
    index, digest = seal_workspace(workspace, sealed)
    assert not (sealed / ".git").exists()
    assert len(digest) == 64
    diff = provenance_diff(baseline, index)
    status = {f["path"]: f["status"] for f in diff["files"]}
    assert status == {"agent/bot.py": "modified", "agent/new.py": "new", "README.md": "baseline",
                      "notes.txt": "deleted"}
    assert diff["counts"] == {"baseline": 1, "modified": 1, "new": 1, "deleted": 1}
    # sealing again gives the same hash: the fingerprint depends on content only
    assert seal_workspace(workspace, tmp_path / "sealed2")[1] == digest
