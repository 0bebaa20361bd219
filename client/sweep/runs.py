"""A sweep's workers drain the values they published themselves, as runs the store merges later.

A ``ruma sweep`` into a local store, closed densely at its end, has its values merged
into the store's dense rewrite rather than put into its B-tree (``Store.runs_folder``). Its driver
then drains nothing: each worker takes the values it published into the shared table since its
last drain (``SharedValues.drain_own``: the records in its own chunks of the table's arena,
sorted, in C) and writes them as a run of its own into the store's runs folder
(``ruma.engine.frame.write_run``: durable when it returns) — at the intervals at which the driver
committed (``shared.COMMIT_FIRST``, doubling up to ``COMMIT_MOST``), between two blocks of its
classes (when no search of its own holds a claim), and once when it is done. The drains' reads and
sort, which grow with the family, so run on every worker at once instead of on the driver alone.

A partizan sweep's values are ids of its table of canonical forms in shared memory (``SharedGames``):
each run is then a shared frame (``ruma.engine.frame.pack_shared``), its values with the nodes they
need that this worker did not write in a run before (``SharedGames.export``: the worker's own
record of what it exported), so a worker's runs, in the order written, name every node their values
need; the store interns them into its games when it merges or adopts the runs — or the worker
interns them itself as it drains (``Store.shared_interner``: its store's C writer, under LMDB's
write lock, committed before the run is written), and its runs hold the store's own codes: the
interning, which grows with the family, then runs on every worker, not at the end in the driver.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable

from ruma.engine.frame import frame_codes, frame_count, pack_shared, write_run


class OwnDrains:
    """One worker's drains of its own values into runs in ``folder`` (see the module docstring);
    ``games``: the sweep's ``SharedGames`` (a partizan ruleset), ``session``: its table's number,
    ``interner``: what turns a shared frame into one of the store's own codes, interning its
    nodes (``Store.shared_interner``), or ``None``."""

    def __init__(self, table: Any, folder: str, first: float, most: float, games: Any = None, session: int = 0,
                 interner: Callable[[bytes], bytes] | None = None) -> None:
        self.table, self.folder, self.most = table, Path(folder), most
        self.games, self.session, self.interner = games, session, interner
        self.gap = first
        self.due = time.monotonic() + first
        #: the runs written, and the entries in them
        self.runs = self.entries = 0

    def when_due(self) -> None:
        """Drain if the interval since the last drain has passed (between two blocks)."""
        if time.monotonic() >= self.due:
            self.drain()
            self.gap = min(2 * self.gap, self.most)
            self.due = time.monotonic() + self.gap

    def drain(self) -> None:
        """Write the values this process published since its last drain as a run (none if none)."""
        frame = self.table.drain_own()
        count = frame_count(frame)
        if count:
            self.runs += 1
            if self.games is not None:
                frame = pack_shared(self.session, self.games.export(frame_codes(frame, count)), frame)
                if self.interner is not None:
                    frame = self.interner(frame)
            write_run(self.folder / f"{os.getpid()}-w{self.runs:08d}.run", frame)
            self.entries += count
