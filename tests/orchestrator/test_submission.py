"""Submissions: a directory without a usable agent.toml gets one clear line."""

import pytest

from orchestrator.submission import SubmissionError, load_submission


def test_valid_submission(tmp_path):
    (tmp_path / "agent.toml").write_text('[agent]\ncommand = ["python", "-m", "agent"]\n')
    assert load_submission(tmp_path).command == ("python", "-m", "agent")


@pytest.mark.parametrize("content, expected", [
    (None, "no agent.toml"),
    ("[agent\n", "agent.toml is not valid TOML"),
    ("[agent]\ncommand = 'python -m agent'\n", "needs [agent] command"),
    ("[other]\nx = 1\n", "needs [agent] command"),
    ("[agent]\ncommand = []\n", "needs [agent] command"),
])
def test_broken_submission(tmp_path, content, expected):
    if content is not None:
        (tmp_path / "agent.toml").write_text(content)
    with pytest.raises(SubmissionError) as info:
        load_submission(tmp_path)
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_missing_directory(tmp_path):
    with pytest.raises(SubmissionError, match="not a directory"):
        load_submission(tmp_path / "absent")
