"""A submission (DESIGN §3.3): a directory with `agent.toml` naming the command that runs one conversation."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path


class SubmissionError(ValueError):
    """A submission that cannot be run; the message is one line naming the directory and the problem."""


@dataclass(frozen=True)
class Submission:
    """A validated submission directory and its agent command."""

    root: Path
    command: tuple[str, ...]


def load_submission(root: Path) -> Submission:
    """Validate `root/agent.toml` and return the submission; raise SubmissionError otherwise."""
    root = Path(root)
    if not root.is_dir():
        raise SubmissionError(f"submission {root}: not a directory")
    manifest = root / "agent.toml"
    if not manifest.is_file():
        raise SubmissionError(f"submission {root}: no agent.toml (see framework/agent_contract.md)")
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SubmissionError(f"submission {root}: agent.toml is not valid TOML ({err})") from None
    command = data.get("agent", {}).get("command") if isinstance(data.get("agent"), dict) else None
    if not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command):
        raise SubmissionError(
            f"submission {root}: agent.toml needs [agent] command = [\"program\", \"arg\", ...]"
        )
    return Submission(root=root, command=tuple(command))
