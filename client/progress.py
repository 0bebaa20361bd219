"""A progress display on stderr, drawn by ``rich``: the bulk loader's and every subcommand's.

    with progress("valuing", total=len(todo), enabled=args.progress) as bar:
        bar.advance()

Progress goes to stderr, and only when stderr is a terminal, so stdout stays clean for pipes;
``rich`` is imported only when a display is drawn.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["Progress", "pace_text", "progress"]


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

    def pace_from(self, done: int) -> None:
        """Measure the pace (a ``pace=True`` display's estimate) from now, ``done`` being done
        already (work counted at once, such as positions found stored, is no pace)."""
        if self._bar is not None:
            self._bar.update(self._task, completed=done, pace=(time.monotonic(), done))


def pace_text(completed: float, total: float | None, pace: tuple[float, int] | None, now: float) -> str:
    """What a ``pace=True`` display says of the time left: the rate since ``pace`` (when it was
    started, and what was done then) and the time left at that rate; nothing while too little is
    known (no step done since, or less than a second)."""
    if pace is None or total is None:
        return ""
    since, base = pace
    elapsed, steps = now - since, completed - base
    if steps < 1 or elapsed < 1.0:
        return ""
    rate = steps / elapsed
    left = max(0.0, total - completed) / rate
    if not left:
        return f"{rate:,.1f}/s"
    shown = f"{max(left, 1):.0f} s" if left < 120 else f"{left / 60:.0f} min" if left < 7200 else f"{left / 3600:.1f} h"
    return f"{rate:,.1f}/s, ~{shown} left"


@contextmanager
def progress(description: str, total: int | None = None, *, enabled: bool | None = None,
             unit: str = "", pace: bool = False) -> Iterator[Progress]:
    """A progress display on stderr while the block runs. ``enabled``: ``None`` (or ``True``,
    the default of ``--no-progress``) shows it when stderr is a terminal, ``False`` never does;
    ``total=None`` counts without a bar. ``pace``: the time left is the average rate since
    ``Progress.pace_from`` (``pace_text``, updated as time passes, so a stall shows as a slower
    pace), not rich's estimate from the last few updates (which jumps when work finishes in lumps)."""
    if enabled is False or not sys.stderr.isatty():
        yield Progress()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar
    from rich.text import Text

    class PaceColumn(ProgressColumn):
        """``pace_text`` of a task."""

        def render(self, task: Any) -> Text:
            return Text(pace_text(task.completed, task.total, task.fields.get("pace"), time.monotonic()))

    columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn(), PaceColumn() if pace else TimeRemainingColumn()]
    else:
        columns += [TextColumn("{task.completed:,} " + unit)]
    columns.append(TimeElapsedColumn())
    with Bar(*columns, console=Console(file=sys.stderr), transient=False) as bar:
        yield Progress(bar, bar.add_task(description, total=total))
