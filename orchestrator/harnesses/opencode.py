"""OpenCode (`opencode run`, OpenAI Chat Completions wire): an openai-compatible provider in its JSON config
(`OPENCODE_CONFIG`), the kit as a local MCP server, offline switches; it may not exit by itself, so the
runner stops it after submit. Its stdout JSON events carry timestamps, tool input and output, and tokens."""

from __future__ import annotations

import json
from pathlib import Path

from . import parsers
from .base import DeveloperSetup
from .cli_harness import KIT_COMMAND, KIT_SERVER, CliHarness, home_path

CONFIG = ".hypertau/opencode.json"
TOKEN_ENV = "HYPERTAU_DEVELOPER_TOKEN"
PROVIDER = "hypertau"
OFFLINE = ("OPENCODE_DISABLE_MODELS_FETCH", "OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_DEFAULT_PLUGINS",
           "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_SHARE")


class OpenCodeHarness(CliHarness):
    """SST's OpenCode CLI, `run` mode with JSON events, every permission allowed."""

    name = "opencode"
    session_dirs = tuple(f".local/share/opencode/{name}" for name in ("opencode.db", "opencode.db-wal", "log"))

    def config_files(self, setup: DeveloperSetup) -> dict[str, str]:
        model = f"{PROVIDER}/{setup.model}"
        config = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {PROVIDER: {"npm": "@ai-sdk/openai-compatible", "name": "hypertau gateway",
                                    "options": {"baseURL": setup.gateway_url + "/v1", "apiKey": f"{{env:{TOKEN_ENV}}}"},
                                    "models": {setup.model: {}}}},
            "model": model, "small_model": model, "autoupdate": False, "share": "disabled",
            "permission": "allow",  # the sandbox is the boundary, as for the other CLIs
            "mcp": {KIT_SERVER: {"type": "local", "command": KIT_COMMAND, "enabled": True}},
        }
        return {CONFIG: json.dumps(config, indent=2)}

    def command(self, setup: DeveloperSetup, task: str) -> list[str]:
        return [self.pin.bin, "run", "--format", "json", task]

    def environment(self, setup: DeveloperSetup) -> dict[str, str]:
        return {"OPENCODE_CONFIG": home_path(CONFIG), TOKEN_ENV: setup.token, **{name: "1" for name in OFFLINE}}

    def parse(self, stdout: str, sessions: Path) -> list[dict]:
        return parsers.opencode(stdout, sessions)
