"""Claude Code (`claude -p`, Anthropic Messages wire): MCP config via `--mcp-config`, the gateway as
`ANTHROPIC_BASE_URL`, every model alias pinned to the developer model; session JSONL under ~/.claude/projects."""

from __future__ import annotations

import json
from pathlib import Path

from . import parsers
from .base import DeveloperSetup
from .cli_harness import KIT_COMMAND, KIT_SERVER, CliHarness, home_path

MCP_CONFIG = ".hypertau/claude-mcp.json"


class ClaudeCodeHarness(CliHarness):
    """Anthropic's Claude Code CLI, headless, permissions skipped (the sandbox is the boundary)."""

    name = "claude-code"
    session_dirs = (".claude/projects",)

    def config_files(self, setup: DeveloperSetup) -> dict[str, str]:
        servers = {KIT_SERVER: {"type": "stdio", "command": KIT_COMMAND[0], "args": KIT_COMMAND[1:]}}
        return {MCP_CONFIG: json.dumps({"mcpServers": servers})}

    def command(self, setup: DeveloperSetup, task: str) -> list[str]:
        return [self.pin.bin, "-p", task, "--output-format", "stream-json", "--verbose", "--model", setup.model,
                "--mcp-config", home_path(MCP_CONFIG), "--strict-mcp-config",
                "--dangerously-skip-permissions"]

    def environment(self, setup: DeveloperSetup) -> dict[str, str]:
        aliases = ("ANTHROPIC_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
                   "ANTHROPIC_DEFAULT_HAIKU_MODEL", "ANTHROPIC_SMALL_FAST_MODEL")
        return {"ANTHROPIC_BASE_URL": setup.gateway_url, "ANTHROPIC_AUTH_TOKEN": setup.token,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
                **{alias: setup.model for alias in aliases}}

    def parse(self, stdout: str, sessions: Path) -> list[dict]:
        return parsers.claude_code(stdout, sessions)
