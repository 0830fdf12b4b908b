"""`hypertau models list`: a task's menu as a table and as JSON; the CLI never imports litellm."""

import json
import subprocess
import sys

from typer.testing import CliRunner

from orchestrator.cli import app

runner = CliRunner()


def test_models_list_task_table():
    result = runner.invoke(app, ["models", "list", "--task", "retail-01"])
    assert result.exit_code == 0, result.output
    assert "budget 0.4 credits" in result.output and "gpt-5-mini" in result.output


def test_models_list_task_json():
    result = runner.invoke(app, ["models", "list", "--task", "retail-01", "--json"])
    assert result.exit_code == 0, result.output
    menu = json.loads(result.output)
    tier = menu["tiers"][0]
    assert tier["name"] == "easy" and tier["budget_credits_per_conversation"] == 0.4
    small = next(m for m in tier["models"] if m["name"] == "mock/northwind-small")
    assert (small["in_rate"], small["out_rate"]) == (0.15, 0.60)


def test_models_list_rate_card():
    result = runner.invoke(app, ["models", "list", "--json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.output)["models"]) >= 22


def test_unknown_task_is_one_line():
    result = runner.invoke(app, ["models", "list", "--task", "nope-01"])
    assert result.exit_code == 2 and "unknown task 'nope-01'" in result.output


def test_cli_start_does_not_import_litellm():
    code = ("import sys; from orchestrator.cli import app; from typer.testing import CliRunner;"
            "CliRunner().invoke(app, ['--help']); CliRunner().invoke(app, ['models', 'list', '--task', 'retail-01']);"
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
