"""The CLI: readable help, and one clear line (exit 2) for bad input instead of a traceback."""

import shutil

from typer.testing import CliRunner

from orchestrator.cli import app

runner = CliRunner()


def test_help_lists_the_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("build", "evaluate", "run", "tasks", "compare", "report"):
        assert command in result.output


def test_tasks_list():
    result = runner.invoke(app, ["tasks", "list"])
    assert result.exit_code == 0 and "retail-01" in result.output


def _error_line(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def test_unknown_task_is_one_line(tmp_path):
    result = runner.invoke(app, ["build", "--developer", "reference", "--task", "retail-99",
                                 "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "unknown task 'retail-99'" in _error_line(result)


def test_malformed_task_file_is_one_line(tmp_path):
    spec = tmp_path / "retail-42.toml"
    spec.write_text("id = 'retail-42'\ndomain = 'retail'\n[tier\n")
    result = runner.invoke(app, ["build", "--developer", "inherited", "--task", str(spec),
                                 "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "not valid TOML" in _error_line(result)


def test_unknown_developer_is_one_line(tmp_path):
    result = runner.invoke(app, ["build", "--developer", "wizard", "--task", "retail-01",
                                 "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "unknown developer 'wizard'" in _error_line(result)


def test_submission_without_agent_toml_is_one_line(tmp_path):
    run_dir = tmp_path / "r"
    built = runner.invoke(app, ["build", "--developer", "inherited", "--task", "retail-01", "--out", str(run_dir)])
    assert built.exit_code == 0, built.output
    (run_dir / "build" / "submission" / "agent.toml").unlink()
    result = runner.invoke(app, ["evaluate", str(run_dir)])
    assert result.exit_code == 2
    assert "no agent.toml" in _error_line(result)


def test_evaluate_not_a_run_dir(tmp_path):
    result = runner.invoke(app, ["evaluate", str(tmp_path)])
    assert result.exit_code == 2
    assert "no manifest.json" in _error_line(result)


def test_build_refuses_to_overwrite(tmp_path):
    run_dir = tmp_path / "r"
    args = ["build", "--developer", "inherited", "--task", "retail-01", "--out", str(run_dir)]
    assert runner.invoke(app, args).exit_code == 0
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "--overwrite" in _error_line(result)
    assert runner.invoke(app, [*args, "--overwrite"]).exit_code == 0
    shutil.rmtree(run_dir)


def test_error_text_is_not_eaten_as_markup(tmp_path):
    run_dir = tmp_path / "r"
    assert runner.invoke(app, ["build", "--developer", "inherited", "--task", "retail-01",
                               "--out", str(run_dir)]).exit_code == 0
    (run_dir / "build" / "submission" / "agent.toml").write_text("[agent]\ncommand = 'x'\n")
    result = runner.invoke(app, ["evaluate", str(run_dir)])
    assert result.exit_code == 2
    assert "needs [agent] command" in _error_line(result)
