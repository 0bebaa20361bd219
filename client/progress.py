"""A progress display on stderr, drawn by ``rich``: the bulk loader's and every subcommand's.

    with progress("valuing", total=len(todo), enabled=args.progress) as bar:
        bar.advance()

Progress goes to stderr, and only when stderr is a terminal, so stdout stays clean for pipes;
``rich`` is imported only when a display is drawn.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["Progress", "progress"]


class Progress:
    """A progress display: ``advance(n)`` after each step, ``update(done, total)`` to set it."""

    def __init__(self, bar: Any = None, task: Any = None) -> None:
        self._bar = bar
        self._task = task

    @property
    def active(self) -> bool:
        """Whether a display is shown (work may then be cut into steps to report them)."""
        return self._bar is not None

    def advance(self, steps: int = 1) -> None:
        """Count ``steps`` more done."""
        if self._bar is not None:
            self._bar.advance(self._task, steps)

    def update(self, done: int, total: int | None = None) -> None:
        """Set how much is done (and the total, if it changed)."""
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total)

    def __call__(self, done: int, total: int | None = None) -> None:
        self.update(done, total)

    def describe(self, text: str) -> None:
        """Change the description shown."""
        if self._bar is not None:
            self._bar.update(self._task, description=text)


@contextmanager
def progress(description: str, total: int | None = None, *, enabled: bool | None = None,
             unit: str = "") -> Iterator[Progress]:
    """A progress display on stderr while the block runs. ``enabled``: ``None`` (or ``True``,
    the default of ``--no-progress``) shows it when stderr is a terminal, ``False`` never does;
    ``total=None`` counts without a bar."""
    if enabled is False or not sys.stderr.isatty():
        yield Progress()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar

    columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
    else:
        columns += [TextColumn("{task.completed:,} " + unit)]
    columns.append(TimeElapsedColumn())
    with Bar(*columns, console=Console(file=sys.stderr), transient=False) as bar:
        yield Progress(bar, bar.add_task(description, total=total))
