"""The CLI runner: a CLI that exits on its own, one that keeps going after submit (stopped after the grace),
one that never ends (stopped at the deadline)."""

from __future__ import annotations

import threading
import time

from orchestrator.harnesses.runner import PIDFILE, run_cli
from orchestrator.sandbox.base import ExecResult


class FakeSandbox:
    """`exec` of the CLI blocks until the stop script runs (or `exits_after` seconds pass)."""

    isolated = True

    def __init__(self, exits_after: float | None = None):
        self.exits_after = exits_after
        self.stopped = threading.Event()
        self.commands: list[list[str]] = []

    def exec(self, command, *, cwd, env, timeout, stdin=None) -> ExecResult:
        self.commands.append(command)
        if "kill -TERM" in command[-1]:
            self.stopped.set()
            return ExecResult(0, "", "")
        ended = self.stopped.wait(self.exits_after if self.exits_after is not None else timeout)
        return ExecResult(-15 if ended else 0, '{"type":"done"}\n', "")


def _run(sandbox, *, submit_after=None, deadline_s=30.0, grace_s=0.3):
    submitted = threading.Event()
    if submit_after is not None:
        threading.Timer(submit_after, submitted.set).start()
    return run_cli(sandbox, ["cli", "-p", "task"], cwd="/workspace", env={"K": "v"},
                   deadline=time.monotonic() + deadline_s, submitted=submitted, grace_s=grace_s, poll_s=0.05)


def test_exits_on_its_own():
    run = _run(FakeSandbox(exits_after=0.1))
    assert run.ended == "exited" and run.returncode == 0 and run.stdout.startswith('{"type"')


def test_stopped_after_the_grace_once_submitted():
    box = FakeSandbox()
    run = _run(box, submit_after=0.1)
    assert run.ended == "submitted" and box.stopped.is_set() and 0.3 <= run.duration_s < 5
    assert box.commands[0][:2] == ["sh", "-c"] and PIDFILE in box.commands[0][2] and box.commands[0][-3:] == [
        "cli", "-p", "task"]


def test_stopped_at_the_deadline():
    run = _run(FakeSandbox(), deadline_s=0.3)
    assert run.ended == "time_limit" and run.duration_s < 5
