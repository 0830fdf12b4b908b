"""The harness interface: given a kit, a workspace and the client, leave a submission in the workspace."""

from __future__ import annotations

import abc
from dataclasses import dataclass
from pathlib import Path

from build_kits.taskspec import TaskSpec

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


class Harness(abc.ABC):
    """A developer: runs until it submits (or its time is up), working only in `ctx.workspace`."""

    name: str = "abstract"
    version: str = "builtin"

    @abc.abstractmethod
    def develop(self, ctx: BuildContext) -> None:
        """Do the engagement; the workspace as left is sealed afterwards."""
