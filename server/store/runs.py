"""A sweep's drains kept as sorted runs beside the store until its dense rewrite merges them.

``ruma sweep`` ends by rewriting its store densely (``LmdbStore.close_dense``). Every value the
writer process puts into the B-tree before then is put once more by that rewrite, so a sweep's
values are not put at all: its processes write each drain as it is — a batch frame of nim values,
keys sorted, or a partizan sweep's shared frame (below) — to a file of its own in ``DIR/runs`` (a
*run*: ``ruma.engine.frame.write_run``, durable when it returns), and the rewrite's copy merges
every run as it goes (``_native.compact_copy``'s merge: a k-way merge in C, merge.h; the same merge
written as one frame is ``merge_frames``).

A sweep holds ``DIR/runs/lock`` (an ``flock``) for as long as it keeps runs (``Runs.open``), and
every ``*.run`` file in the folder meanwhile is its own (its workers write theirs there too). Runs
nobody holds are those of a sweep that was killed: ``adopt`` stores them (the writer process's puts)
and removes them — what a store opened for a sweep, ``ruma store compact`` and ``ruma serve`` do
first, so a killed sweep loses only what it valued since its last run, as it lost what it valued
since its last commit when every drain was put.

A partizan sweep's runs are *shared frames* (``ruma.engine.frame.pack_shared``): values as ids of
the sweep's table of canonical forms in shared memory, with the nodes they need that the process
had not written before. The rewrite first interns every node into the store's games in one
transaction (``intern_runs``: ``_native.Writer`` in C, ``games.shared_codes`` in Python) and turns
the values into the store's own codes; a killed sweep's are interned and stored run by run
(``store_payload``), each session's ids kept from one run to the next.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from ruma.engine.frame import (
    RUN_MAGIC,
    frame_count,
    is_shared,
    pack_frame,
    read_run,
    read_run_view,
    unpack_frame,
    unpack_shared,
    write_run,
)

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
        return sorted(folder.glob("*.run"), key=lambda path: (path.stat().st_mtime_ns, path.name))


def pending(directory: Path) -> dict[str, Any]:
    """The runs beside the store in ``directory`` that are not in it yet: ``files``, the ``entries``
    their heads count (checksums not read), and whether a sweep ``held`` them at this moment (its
    own, still running) — else a killed sweep's, which the next sweep, ``ruma serve`` or ``ruma
    store compact`` adopts (``ruma store stats`` shows them)."""
    folder = directory / FOLDER
    paths = sorted(folder.glob("*.run")) if folder.is_dir() else []
    entries = 0
    for path in paths:
        try:
            with open(path, "rb") as run:
                head = run.read(len(RUN_MAGIC) + 4 + 16)[len(RUN_MAGIC) + 4:]
                if is_shared(head):  # (the inner frame's count after the nodes)
                    run.seek(len(RUN_MAGIC) + 4 + 16 + 4 * int.from_bytes(head[12:16], "little"))
                    head = run.read(4)
                entries += frame_count(head) if len(head) >= 4 else 0
        except OSError:  # (stored and removed meanwhile)
            continue
    held = False
    if paths and (folder / "lock").exists():
        with open(folder / "lock", "rb") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                held = True
    return {"files": len(paths), "entries": entries, "held": held}


def adopt(directory: Path, store: Any) -> int:
    """Store the runs a killed sweep left in ``directory`` through ``store`` (an open
    ``LmdbStore`` of it: ``store_payload``) and remove them; the entries adopted. A run that is not
    whole (a damaged file), or that names a node no run before it gave (one of its process's runs
    was damaged), is left where it is, with a warning."""
    adopted = 0
    sessions: dict[int, dict[int, int]] = {}
    for path in orphans(directory):
        try:
            adopted += store_payload(store, read_run(path), sessions)
        except (OSError, ValueError) as error:  # (CodecError included)
            log.warning("a sweep's run is left as it is: %s", error)
            continue
        path.unlink()
    return adopted


def store_payload(store: Any, payload: bytes | memoryview, sessions: dict[int, dict[int, int]]) -> int:
    """Store one run's payload through ``store`` (an open ``LmdbStore``) and flush it: a batch frame
    of nim values as ``insert_packed`` stores it (one with the store's own codes of games, ``2s +
    1``, in one transaction); a shared frame by interning its nodes (``sessions``: each
    session's shared id -> store id so far, updated) and writing its values with their store
    ids. The entries it held."""
    core = store.core
    if not is_shared(payload):
        keys, codes = unpack_frame(bytes(payload))
        if not any(code & 1 for code in codes):
            store.insert_packed(bytes(payload), None, False)
            store.flush()
            return len(keys)
    else:  # (codes 2s + 1: games interned already, a partizan sweep's runs made the store's own)
        keys, codes = _interned(store, payload, sessions)
    store.flush()
    core._write(lambda txn: core.write_codes(txn, keys, codes))
    return len(keys)


def _interned(store: Any, payload: bytes | memoryview, sessions: dict[int, dict[int, int]]) -> tuple[list[bytes], list[int]]:
    """A shared frame's nodes interned through ``store`` (committed), and its keys with the store's codes."""
    from ruma.server.store.games import shared_codes

    session, nodes, frame = unpack_shared(payload)
    ids = sessions.setdefault(session, {})
    core = store.core
    keys, codes, made = core._write(lambda txn: shared_codes(txn, core.dbs, core.max_key, core.path, nodes, frame, ids))
    ids.update(made)
    return keys, codes


def intern_runs(directory: Path, payloads: Sequence[bytes | memoryview]) -> list[bytes]:
    """The batch frames of a partizan sweep's runs (shared frames, each process's in the order it
    wrote them) with the store's own codes, for its dense rewrite to merge: every node they name
    interned into the games of the store in ``directory`` first, committed — in C where the store's
    module is built (``store.interner.SharedInterner``; no environment of the store may be open in
    this process), else through py-lmdb (``games.shared_codes``). ``CodecError`` (or the C writer's
    ``WriteError``) for a value naming a node that no run gave."""
    from ruma.server.store.interner import shared_interner

    ordered = sorted(payloads, key=lambda payload: unpack_shared(payload)[0])  # (stable: each process's in order)
    interner = shared_interner(directory)
    if interner is None:
        from ruma.server.store.memo import LmdbStore

        sessions: dict[int, dict[int, int]] = {}
        with LmdbStore(directory, create=False, writer_process=False) as store:
            return [pack_frame(*_interned(store, payload, sessions)) for payload in ordered]
    try:
        return [interner(payload) for payload in ordered]
    finally:
        interner.close()


def merge_frames(frames: Sequence[bytes | memoryview]) -> bytes:
    """``frames`` (batch frames, keys sorted, no key in two) as one, keys sorted:
    ``_native.merge_frames`` where the store's compiled module is built (the merge the dense
    rewrite's copy takes its runs' records from, merge.h, written as one frame: what
    ``merge_frames_python`` checks it against), else ``merge_frames_python``."""
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
