"""Codex (`codex exec`, OpenAI Responses wire): a custom provider in `CODEX_HOME/config.toml` pointing at the
gateway (the key read from an environment variable), the kit as an MCP server; rollouts under CODEX_HOME."""

from __future__ import annotations

import json
from pathlib import Path

from . import parsers
from .base import DeveloperSetup
from .cli_harness import KIT_COMMAND, KIT_SERVER, CliHarness, home_path

CODEX_HOME = ".codex"
TOKEN_ENV = "HYPERTAU_DEVELOPER_TOKEN"


def _toml(value) -> str:
    return json.dumps(value)  # a JSON string or list of strings is a valid TOML value


class CodexHarness(CliHarness):
    """OpenAI's Codex CLI, `exec` mode; its own sandbox is bypassed (it cannot nest in a container)."""

    name = "codex"
    session_dirs = (f"{CODEX_HOME}/sessions",)

    def config_files(self, setup: DeveloperSetup) -> dict[str, str]:
        config = "\n".join([
            f"model = {_toml(setup.model)}",
            'model_provider = "hypertau"',
            "",
            "[model_providers.hypertau]",
            'name = "hypertau gateway"',
            f"base_url = {_toml(setup.gateway_url + '/v1')}",
            f"env_key = {_toml(TOKEN_ENV)}",
            'wire_api = "responses"',
            "",
            f"[mcp_servers.{KIT_SERVER}]",
            f"command = {_toml(KIT_COMMAND[0])}",
            f"args = {_toml(KIT_COMMAND[1:])}",
            "",
        ])
        return {f"{CODEX_HOME}/config.toml": config}

    def command(self, setup: DeveloperSetup, task: str) -> list[str]:
        return [self.pin.bin, "exec", "--skip-git-repo-check", "--json", "--dangerously-bypass-approvals-and-sandbox",
                "-m", setup.model, task]

    def environment(self, setup: DeveloperSetup) -> dict[str, str]:
        return {"CODEX_HOME": home_path(CODEX_HOME), TOKEN_ENV: setup.token}

    def parse(self, stdout: str, sessions: Path) -> list[dict]:
        return parsers.codex(stdout, sessions)
