"""Progress bars on stderr (rich), as a context manager yielding an `advance()` callable."""

from __future__ import annotations

import contextlib
import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

stderr_console = Console(stderr=True)


@contextlib.contextmanager
def progress_bar(label: str, total: int, enabled: bool = True):
    """Show a bar for `total` steps on stderr; yields `advance()`. Silent when disabled or not a TTY."""
    if not enabled or total == 0 or not sys.stderr.isatty():
        yield lambda: None
        return
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=stderr_console, transient=False) as progress:
        task = progress.add_task(label, total=total)
        yield lambda: progress.advance(task)
