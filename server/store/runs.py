"""A sweep's drains kept as sorted runs beside the store until its dense rewrite merges them.

``ruma sweep`` ends by rewriting its store densely (``LmdbStore.close_dense``). Every value the
writer process puts into the B-tree before then is put once more by that rewrite, so an impartial
sweep's values are not put at all: its processes write each drain as it is — a batch frame of nim
values, keys sorted — to a file of its own in ``DIR/runs`` (a *run*: ``ruma.engine.frame.write_run``,
durable when it returns), and the rewrite merges every run (``merge_frames``:
``_native.merge_frames``, a k-way merge in C) into its copy.

A sweep holds ``DIR/runs/lock`` (an ``flock``) for as long as it keeps runs (``Runs.open``), and
every ``*.run`` file in the folder meanwhile is its own (its workers write theirs there too). Runs
nobody holds are those of a sweep that was killed: ``adopt`` stores them (the writer process's puts)
and removes them — what a store opened for a sweep, ``ruma store compact`` and ``ruma serve`` do
first, so a killed sweep loses only what it valued since its last run, as it lost what it valued
since its last commit when every drain was put.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from ruma.engine.frame import frame_count, pack_frame, read_run, read_run_view, unpack_frame, write_run

log = logging.getLogger(__name__)

FOLDER = "runs"


class Runs:
    """The runs one sweep keeps in ``DIR/runs`` (their lock held from ``open`` to ``close``)."""

    def __init__(self, folder: Path, lock: IO[bytes]) -> None:
        self.folder = folder
        self._lock: IO[bytes] | None = lock
        self._kept = 0
        self._read: list[Path] = []

    @classmethod
    def open(cls, directory: Path) -> "Runs | None":
        """Take ``directory``'s runs for one sweep: ``None`` where another sweep holds them (it
        then stores its drains as they come)."""
        folder = directory / FOLDER
        folder.mkdir(exist_ok=True)
        lock = open(folder / "lock", "a+b")  # noqa: SIM115 - (held until close)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            return None
        return cls(folder, lock)

    def keep(self, frame: bytes) -> None:
        """Write ``frame`` (a batch frame of nim values, keys sorted) as a run of this process."""
        self._kept += 1
        write_run(self.folder / f"{os.getpid()}-{self._kept:08d}.run", frame)

    def frames(self) -> list[memoryview]:
        """The frames of every run in the folder (this sweep's: its own and its workers'), as
        views of the files' bytes."""
        self._read = sorted(self.folder.glob("*.run"))
        return [read_run_view(path) for path in self._read]

    def clear(self) -> None:
        """Remove the runs ``frames`` read (their values are stored)."""
        for path in self._read:
            path.unlink(missing_ok=True)
        self._read = []

    def close(self) -> None:
        """Let go of the runs' lock (runs not cleared stay for ``adopt``)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def orphans(directory: Path) -> list[Path]:
    """The runs in ``directory`` that no sweep holds (a killed sweep's), oldest first; none while
    a sweep holds them."""
    folder = directory / FOLDER
    if not folder.is_dir() or not any(folder.glob("*.run")):
        return []
    with open(folder / "lock", "a+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return []
        return sorted(folder.glob("*.run"), key=lambda path: path.stat().st_mtime_ns)


def adopt(directory: Path, store: Any) -> int:
    """Store the runs a killed sweep left in ``directory`` through ``store`` (an open
    ``LmdbStore`` of it: ``insert_packed``, then ``flush``) and remove them; the entries adopted.
    A run that is not whole (a damaged file) is left where it is, with a warning."""
    adopted = 0
    for path in orphans(directory):
        try:
            frame = read_run(path)
        except (OSError, ValueError) as error:
            log.warning("a sweep's run is left as it is: %s", error)
            continue
        store.insert_packed(frame, None, False)
        store.flush()
        path.unlink()
        adopted += frame_count(frame)
    return adopted


def merge_frames(frames: Sequence[bytes | memoryview]) -> bytes:
    """``frames`` (batch frames of nim values, keys sorted, no key in two) as one, keys sorted:
    ``_native.merge_frames`` where the store's compiled module is built, else
    ``merge_frames_python``."""
    from ruma.server.store.bulk import _NATIVE

    merge = getattr(_NATIVE, "merge_frames", None)
    if merge is None:
        return merge_frames_python(bytes(frame) for frame in frames)
    return merge(frames)  # type: ignore[no-any-return]


def merge_frames_python(frames: Iterable[bytes]) -> bytes:
    """``merge_frames`` in Python (the reference the C merge is tested against)."""
    pairs: list[tuple[bytes, int]] = []
    for frame in frames:
        keys, codes = unpack_frame(frame)
        if keys != sorted(keys):
            raise ValueError("the runs' keys are not sorted, or a key is in two of them")
        pairs.extend(zip(keys, codes))
    pairs.sort()
    if any(a[0] == b[0] for a, b in zip(pairs, pairs[1:])):
        raise ValueError("the runs' keys are not sorted, or a key is in two of them")
    return pack_frame([key for key, _ in pairs], [code for _, code in pairs])
