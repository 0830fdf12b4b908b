"""The harness interface: given a kit, a workspace and the client, leave a submission in the workspace."""

from __future__ import annotations

import abc
from dataclasses import dataclass
from pathlib import Path

from build_kits.taskspec import TaskSpec

from ..sandbox.base import Sandbox
from ..trajectory import TrajectoryWriter


class HarnessError(RuntimeError):
    """A developer harness could not run."""


@dataclass
class BuildContext:
    """What a developer works with during one build."""

    spec: TaskSpec
    kit_dir: Path
    workspace: Path
    client: object  # client_sim.ClientSimulator: ask(question) -> str
    trajectory: TrajectoryWriter
    raw_log: Path
    sandbox: Sandbox | None = None    # the developer's sandbox: workspace at /workspace, kit at /kit
    deadline: float | None = None     # time.monotonic() when the task's wall-clock limit is reached


class Harness(abc.ABC):
    """A developer: runs until it submits (or its time is up), working only in `ctx.workspace`."""

    name: str = "abstract"
    version: str = "builtin"
    # False: works on `ctx.workspace` on the host, handed to the sandbox afterwards (built-ins).
    # True: works inside `ctx.sandbox`, which holds the workspace from the start.
    in_sandbox: bool = False

    @abc.abstractmethod
    def develop(self, ctx: BuildContext) -> None:
        """Do the engagement; the workspace as left is sealed afterwards."""
