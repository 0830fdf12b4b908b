"""Built-in developers: `reference` (ships the domain's expert agent), `naive` (ships the no-policy
baseline) and `inherited` (submits the inherited workspace unchanged). They calibrate the benchmark."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .base import BuildContext, Harness

# What the reference developer asks the client before shipping: it exercises the client dialogue path.
REFERENCE_QUESTIONS = (
    "Is there an order value above which agents must not cancel an order themselves?",
    "Are there product types that cannot be returned once delivered?",
    "How long does a refund take to arrive?",
)


def _ship(ctx: BuildContext, submission_name: str) -> None:
    """Replace the workspace's agent with a materialised reference submission."""
    from reference_agents import materialize_submission

    with tempfile.TemporaryDirectory(prefix="hypertau-ref-") as tmp:
        built = materialize_submission(submission_name, Path(tmp) / "submission")
        for entry in built.iterdir():
            target = ctx.workspace / entry.name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
            if entry.is_dir():
                shutil.copytree(entry, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(entry, target)
            ctx.trajectory.event("tool_call", name="write", path=entry.name)


class ReferenceDeveloper(Harness):
    """Asks the client its few questions, then ships the domain's expert agent."""

    name = "reference"

    def develop(self, ctx: BuildContext) -> None:
        ctx.trajectory.event("message", role="developer", content="Reading the brief and the record.")
        for question in REFERENCE_QUESTIONS:
            ctx.trajectory.event("tool_call", name="talk-to-client", arguments={"message": question})
            answer = ctx.client.ask(question)
            ctx.trajectory.event("tool_result", name="talk-to-client", content=answer)
        _ship(ctx, f"{ctx.spec.domain}_expert")
        ctx.trajectory.event("submit")


class NaiveDeveloper(Harness):
    """Ships the no-policy baseline: understands requests and does whatever is asked."""

    name = "naive"

    def develop(self, ctx: BuildContext) -> None:
        _ship(ctx, f"{ctx.spec.domain}_naive")
        ctx.trajectory.event("submit")


class InheritedDeveloper(Harness):
    """Submits the inherited workspace as it was handed over."""

    name = "inherited"

    def develop(self, ctx: BuildContext) -> None:
        ctx.trajectory.event("submit")


BUILTIN_HARNESSES = {h.name: h for h in (ReferenceDeveloper, NaiveDeveloper, InheritedDeveloper)}
