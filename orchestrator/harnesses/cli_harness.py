"""What every coding-agent CLI harness does: write its config into the sandbox, run it headless against the
gateway's developer seat with the kit tools registered, stop it on submit or at the time limit, keep its raw
log and session files, and normalise them into the build trajectory. Adapters say only what differs."""

from __future__ import annotations

import abc
import json
import shutil
import tempfile
from pathlib import Path

from ..sandbox.base import SandboxError
from ..workspace import SANDBOX_WORKSPACE
from .base import BuildContext, DeveloperSetup, Harness, HarnessError
from .clis import CliPin, cli_pins
from .runner import run_cli
from .settings import prompt, settings

KIT_SERVER = "hypertau-kit"          # the MCP server's name in every harness config
KIT_COMMAND = ["hypertau-kit", "mcp"]


def home_path(relative: str) -> str:
    """A path under the sandbox home, as the CLI sees it."""
    return f"{settings()['sandbox']['home']}/{relative}"


class CliHarness(Harness):
    """A coding-agent CLI in the developer sandbox. Subclasses give its files, command, environment, the
    session directories to keep, and the parser of its log into trajectory events."""

    in_sandbox = True
    session_dirs: tuple[str, ...] = ()  # under the sandbox home: copied to build/harness_sessions/ (no dot)

    @property
    def pin(self) -> CliPin:
        return cli_pins()[self.name]

    @property
    def version(self) -> str:  # type: ignore[override]
        return f"{self.pin.package}@{self.pin.version}"

    # what differs per CLI ----------------------------------------------------------------------------

    @abc.abstractmethod
    def config_files(self, setup: DeveloperSetup) -> dict[str, str]:
        """Files to write, by path relative to the sandbox home."""

    @abc.abstractmethod
    def command(self, setup: DeveloperSetup, task: str) -> list[str]:
        """The headless command line."""

    @abc.abstractmethod
    def environment(self, setup: DeveloperSetup) -> dict[str, str]:
        """Environment variables of the CLI process (the developer seat's token among them)."""

    @abc.abstractmethod
    def parse(self, stdout: str, sessions: Path) -> list[dict]:
        """Trajectory events (`type`, `ts`, ...) from the raw log and the copied session files."""

    # the common run ----------------------------------------------------------------------------------

    def develop(self, ctx: BuildContext) -> None:
        setup = ctx.developer
        if setup is None or ctx.sandbox is None or not ctx.sandbox.isolated:
            raise HarnessError(f"developer {self.name!r} runs only in the docker sandbox (--sandbox docker)")
        conf = settings()
        home = conf["sandbox"]["home"]
        files = {".hypertau/kit.json": json.dumps({"url": setup.kit_url, "token": setup.kit_token}),
                 **self.config_files(setup)}
        _install(ctx.sandbox, home, files)
        task = prompt(setup.time_limit_minutes)
        ctx.trajectory.event("message", role="user", content=task)
        run = run_cli(ctx.sandbox, self.command(setup, task), cwd=SANDBOX_WORKSPACE,
                      env=self.environment(setup), deadline=(ctx.deadline or 0) - conf["developer"]["stop_margin_s"],
                      submitted=setup.submitted, grace_s=conf["developer"]["submit_grace_s"])
        ctx.raw_log.write_text(run.stdout, encoding="utf-8")
        ctx.raw_log.with_name("harness.stderr.log").write_text(run.stderr, encoding="utf-8")
        sessions = ctx.raw_log.with_name("harness_sessions")
        _copy_sessions(ctx.sandbox, home, self.session_dirs, sessions)
        for event in self.parse(run.stdout, sessions):
            kind = event.pop("type")
            ctx.trajectory.event(kind, **event)
        ctx.outcome.update(ended=run.ended, returncode=run.returncode, duration_s=run.duration_s,
                           submitted=setup.submitted.is_set())
        ctx.trajectory.event("harness_end", **ctx.outcome)


def _install(sandbox, home: str, files: dict[str, str]) -> None:
    """Write `files` (relative to the sandbox home) into the sandbox, owned by the sandbox user."""
    with tempfile.TemporaryDirectory(prefix="hypertau-harness-") as tmp:
        root = Path(tmp)
        for relative, text in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for entry in sorted(root.iterdir()):
            sandbox.copy_in(entry, f"{home}/{entry.name}")


def _copy_sessions(sandbox, home: str, directories: tuple[str, ...], dest: Path) -> None:
    """Copy each session directory out of the sandbox (a missing one is skipped: the CLI never got there)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for directory in directories:
        try:
            target = dest / directory.lstrip(".")
            target.parent.mkdir(parents=True, exist_ok=True)
            sandbox.copy_out(f"{home}/{directory}", target)
        except SandboxError:
            continue
