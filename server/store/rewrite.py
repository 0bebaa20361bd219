"""``ruma store compact``: rewrite a store densely into a new file, verify it, then put it in place.

LMDB fills a page only halfway when it splits it, and a store written by sweeps and servers,
whose keys arrive all over the key space, ends with pages about two thirds full plus the pages
its commits freed; ``mdb_env_copy``'s compacting copy (``ruma store backup``) drops the free
pages but copies each page as it is. ``compact_store`` instead puts every record again, table by
table in key order, through LMDB's append path (``MDB_APPEND``: a page is split where the new key
goes, at its end, so every page but the last of a table is full):

1. refuse while another process has the store open (``store.repair.in_use``), and a store that
   fails the start-up check (damaged: ``ruma store repair`` first);
2. copy into ``DIR/.compact/new`` in transactions of ``CHUNK`` records; killed half-way, the next
   run goes on after the last key each table of the new file holds (``DIR/.compact/state``
   records the phase and the old store's last transaction: a store written to in between is
   copied again from the start);
3. verify the new file page by page (``verify --full``'s record checks) and compare its record
   counts with the old one's;
4. put it in place: the old ``data.mdb`` goes to ``DIR/.compact/old.mdb``, the new one to
   ``DIR/data.mdb``; only then is the old file removed. A run killed during the swap finishes it
   the next time.

A sweep's dense rewrite may *merge* its last drain (``LmdbStore.close_dense``): a batch frame of
nim values (or of games the store holds already: a partizan sweep's runs, their games interned
first), none of them stored, whose records the copy puts among the old ones in key order
(``merge_plan``, ``_native.compact_copy``'s ``merge``) instead of the writer process putting them
into the old file's B-tree first — the same new file, without those puts. Such a copy is never
resumed (killed, it is started again without the frame, whose values are then lost as the values
of any commit a kill prevents).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import lmdb

from ruma.server.store.codec import StoreDamagedError, StoreError

CHUNK = 100_000
"""Records put in one transaction of the copy (what a kill may have to put again)."""

WORK = ".compact"


@dataclass
class CompactReport:
    """What ``compact_store`` did."""

    records: dict[str, int] = field(default_factory=dict)
    bytes_before: int = 0
    bytes_after: int = 0
    resumed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"records": self.records, "bytes_before": self.bytes_before, "bytes_after": self.bytes_after,
                "resumed": self.resumed}


def _state(work: Path) -> str:
    try:
        return str(json.loads((work / "state").read_text())["phase"])
    except (OSError, ValueError, KeyError):
        return ""


def _set_state(work: Path, phase: str) -> None:
    temporary = work / "state.tmp"
    temporary.write_text(json.dumps({"phase": phase}))
    os.replace(temporary, work / "state")


Frames = bytes | memoryview | Sequence[bytes | memoryview]
"""A batch frame, or batch frames whose keys are in no two (a sweep's runs): what a copy merges in."""

Merge = tuple[list[bytes | memoryview], tuple[tuple[bytes, bytes], ...]]
"""What a copy merges in: batch frames of values and the ``meta`` records they change (``merge_plan``)."""


class MergeRefusedError(StoreError):
    """A copy cannot merge the frame it was given (``merge_plan``): the store is left as it was."""


def compact_store(directory: str | os.PathLike[str], progress: Callable[[int], None] | None = None,
                  pages: bool = True, merge: Frames | None = None) -> CompactReport:
    """Rewrite the store in ``directory`` densely (see the module docstring); returns what it did.
    ``pages=False`` checks the copy's record counts (LMDB's) instead of reading it page by page (a
    sweep's own compaction of the store it just wrote and checked); ``merge``: a batch frame (or
    frames, no key in two: a sweep's runs, merged as the copy goes) of values none stored, put in
    as well (``merge_plan``, made once the store is locked out;
    ``MergeRefusedError`` where it cannot be)."""
    directory = Path(directory).resolve()
    from ruma.server.store.memo import open_in_this_process
    from ruma.server.store.repair import in_use, lock_out

    if open_in_this_process(directory) or in_use(directory):
        raise StoreError(f"store {str(directory)!r} is open in another process (stop the server first)")
    if (directory / "data.mdb").is_file() and _state(directory / WORK) != "verified":
        _check(directory)  # (and a killed sweep's runs stored)
    # held while rewriting: a process that opens the store meanwhile waits in LMDB's open (else it
    # would write into the file being replaced)
    lock = lock_out(directory)
    try:
        return rewrite_store(directory, WORK, progress, check=last_txnid, pages=pages, merge=merge)
    finally:
        os.close(lock)


def rewrite_store(directory: Path, work_name: str, progress: Callable[[int], None] | None = None, *,
                  check: Callable[[Path], int], drop: tuple[bytes, ...] = (), schema: bytes | None = None,
                  pages: bool = True, merge: Frames | None = None) -> CompactReport:
    """Rewrite the store in ``directory`` through ``DIR/work_name`` (steps 2-4 of the module
    docstring; the caller has made sure no process has it open): ``check(directory)`` refuses a
    damaged store and returns its last transaction id;
    the tables named in ``drop`` are left out and ``schema``, if given, becomes the new file's
    ``schema_version`` (a migration, ``store.migrate``); ``merge``: a frame's values put in as well
    (``merge_plan``; never resumed)."""
    work = directory / work_name
    report = CompactReport(resumed=work.exists())
    if _state(work) == "verified":  # killed while swapping: finish it
        report.bytes_after = _swap(directory, work)
        return report
    data = directory / "data.mdb"
    if not data.is_file():
        raise StoreError(f"no LMDB store in {str(directory)!r} (data.mdb missing)")
    source = check(directory)
    plan = None if merge is None else merge_plan(directory, merge)
    if merge is not None and plan is None:
        raise MergeRefusedError(f"the copy of {str(directory)!r} cannot merge the frame given")
    phase = f"copying {source}" + (" merging" if merge is not None else "")
    if _state(work) != phase or merge is not None:  # (a store written to since a killed run: start again)
        shutil.rmtree(work, ignore_errors=True)
        report.resumed = False
    report.bytes_before = data.stat().st_size
    (work / "new").mkdir(parents=True, exist_ok=True)
    _set_state(work, phase)
    report.records = _copy(directory, work / "new", progress, drop, schema, plan)
    if merge is not None and "positions" not in report.records:
        raise StoreError(f"store {str(directory)!r} has no positions table to merge a frame into")
    problems, counted = _verify(work / "new", pages)
    counted = {table: n for table, n in counted.items() if n or table in report.records}
    if problems or any(counted.get(table, 0) != n for table, n in report.records.items()):
        raise StoreDamagedError(f"the compacted copy of {str(directory)!r} does not verify "
                                f"({problems} problems; records {counted} of {report.records}); "
                                f"the store is left as it was")
    _set_state(work, "verified")
    report.bytes_after = _swap(directory, work)
    return report


def _verify(path: Path, pages: bool) -> tuple[int, dict[str, int]]:
    """The problems and the records per table of the copy in ``path``: read page by page with every
    record's checks (``verify --full``), or LMDB's counts."""
    if pages:
        from ruma.server.store.verify import verify_directory

        checked = verify_directory(path, sample=0, full=True)
        return len(checked.problems), checked.records
    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=16)
    try:
        with env.begin() as txn:
            names = [key for key, _ in txn.cursor()]
            return 0, {name.decode(): txn.stat(env.open_db(name, txn=txn, create=False))["entries"] for name in names}
    finally:
        env.close()


def _check(directory: Path) -> None:
    """The start-up check of ``ruma serve`` (a damaged store is repaired first, not compacted), and
    the runs a killed sweep left stored (``store.runs``)."""
    from ruma.server.store.check import quick_check
    from ruma.server.store.memo import LmdbStore

    try:
        store = LmdbStore(directory, create=False, batch_seconds=0, writer_process=False)
    except StoreDamagedError as error:
        raise StoreDamagedError(f"{error}; repair it first ('ruma store repair')") from None
    try:
        quick_check(store.core)
        store.adopt_runs()
    finally:
        store.close()


def _copy(source: Path, target: Path, progress: Callable[[int], None] | None, drop: tuple[bytes, ...] = (),
          schema: bytes | None = None, merge: Merge | None = None) -> dict[str, int]:
    """Every record of every table of ``source`` (but those in ``drop``) put into ``target`` in key
    order by the append path, after what ``target`` holds already; ``schema``: the new
    ``schema_version``. Returns the records per table. In C where the store's compiled module is
    built (``_native.compact_copy``, server/store/compact.c: the same walk and puts, 4-5 times
    faster), else — or with ``RUMA_STORE_COPY=python`` — through py-lmdb (``_copy_python``, the
    reference the C copy is tested against)."""
    from ruma.server.store.bulk import _NATIVE

    copy = getattr(_NATIVE, "compact_copy", None)
    if copy is None or os.environ.get("RUMA_STORE_COPY") == "python":
        if merge is not None:
            raise StoreError("a copy merges a frame only in C (store._native.compact_copy)")
        return _copy_python(source, target, progress, drop, schema)
    try:
        counts: dict[str, int] = copy(str(source), str(target), tuple(drop), schema, CHUNK, progress, merge)
    except _NATIVE.WriteError as error:
        raise StoreError(str(error)) from None
    return counts


def _copy_python(source: Path, target: Path, progress: Callable[[int], None] | None, drop: tuple[bytes, ...] = (),
                 schema: bytes | None = None) -> dict[str, int]:
    """``_copy`` through py-lmdb."""
    size = (source / "data.mdb").stat().st_size
    old = lmdb.open(str(source), readonly=True, lock=False, max_dbs=16, map_size=max(size, 1 << 20))
    new = lmdb.open(str(target), map_size=max(64 << 20, 2 * size), max_dbs=16)
    counts: dict[str, int] = {}
    done = 0
    try:
        with old.begin() as txn:
            names = [key for key, _ in txn.cursor() if key not in drop]
            for name in names:
                source_db = old.open_db(name, txn=txn, create=False)
                target_db = new.open_db(name)
                with new.begin() as reading:
                    with reading.cursor(db=target_db) as cursor:
                        last = cursor.key() if cursor.last() else None
                with txn.cursor(db=source_db) as cursor:
                    more = cursor.set_range(last) if last is not None else cursor.first()
                    if more and last is not None and cursor.key() == last:
                        more = cursor.next()
                    records = cursor.iternext() if more else iter(())
                    if schema is not None and name == b"meta":  # (no commit of the copy ever names the old schema)
                        records = ((key, schema if key == b"schema_version" else value) for key, value in records)
                    while True:
                        chunk = [item for _, item in zip(range(CHUNK), records)]
                        if not chunk:
                            break
                        with new.begin(write=True) as writing:
                            writing.cursor(db=target_db).putmulti(chunk, append=True)
                        done += len(chunk)
                        if progress is not None:
                            progress(done)
                counts[name.decode(errors="replace")] = txn.stat(source_db)["entries"]
    finally:
        old.close()
        new.close()
    return counts


def can_merge() -> bool:
    """Whether this process's copies can merge a frame in (the C copy is built and chosen)."""
    from ruma.server.store.bulk import _NATIVE

    return getattr(_NATIVE, "compact_copy", None) is not None and os.environ.get("RUMA_STORE_COPY") != "python"


def merge_plan(directory: Path, frames: Frames) -> Merge | None:
    """What a copy of the store in ``directory`` (no process has it open: it is locked out) merges
    to hold the values of ``frames`` too (batch frames, keys sorted and valid, none in two, none
    stored, their games stored already: a sweep's runs and last drain; or one frame), or ``None``
    when the copy cannot make the file their puts would have made: the copy in C missing, keys of
    more than one ruleset, another engine version recorded in ``meta``. The plan is the frames
    and the new count record. A ruleset with no
    entry yet is given the ``meta`` records its first puts write (its name, a count of 0, the
    engine version) in the old file first, so that the copy only has to replace its count."""
    from ruma.engine import ENGINE_VERSION
    from ruma.engine.frame import frame_count
    from ruma.engine.rulesets.base import key_prefix_of
    from ruma.server.store import codec
    from ruma.server.store.core import _COUNT, _RULESET, _ruleset_name

    listed = [frames] if isinstance(frames, (bytes, memoryview)) else [frame for frame in frames if frame_count(frame)]
    count = sum(map(frame_count, listed))
    if not count or not can_merge():
        return None
    prefixes = set()
    for frame in listed:
        n = frame_count(frame)
        keys_at = 4 + 10 * n
        first_length = int.from_bytes(frame[4:6], "little")
        last_length = int.from_bytes(frame[4 + 2 * (n - 1):4 + 2 * n], "little")
        if len(frame) < keys_at + last_length:
            return None
        prefix = key_prefix_of(bytes(frame[keys_at:keys_at + first_length]))
        if not bytes(frame[len(frame) - last_length:]).startswith(prefix):  # (sorted: first and last share it if all do)
            return None
        prefixes.add(prefix)
    if len(prefixes) != 1:
        return None
    prefix = prefixes.pop()
    count_key, name_key = _COUNT + prefix, _RULESET + prefix
    current = codec.seal(b"engine_version", ENGINE_VERSION.encode())
    env = lmdb.open(str(directory), lock=False, max_dbs=16)  # (locked out: no other process has it)
    try:
        with env.begin(write=True) as txn:
            meta = env.open_db(b"meta", txn=txn, create=False)
            old, named = txn.get(count_key, db=meta), txn.get(name_key, db=meta)
            version = txn.get(b"engine_version", db=meta)
            if old is None and named is None and version in (None, current):  # (the first puts' records)
                old = codec.seal(count_key, (0).to_bytes(8, "big"))
                txn.put(name_key, codec.seal(name_key, _ruleset_name(prefix).encode()), db=meta)
                txn.put(count_key, old, db=meta)
                txn.put(b"engine_version", current, db=meta)
                version = named = current
    except lmdb.Error:
        return None
    finally:
        env.close()
    if old is None or named is None or version != current:
        return None
    total = int.from_bytes(codec.unseal("meta", count_key, old), "big") + count
    return listed, ((count_key, codec.seal(count_key, total.to_bytes(8, "big"))),)


def last_txnid(directory: Path) -> int:
    """The store's last transaction, read without its lock (a rewrite stopped half-way goes on only
    if it is the same)."""
    try:
        env = lmdb.open(str(directory), readonly=True, lock=False, max_dbs=16)
    except lmdb.Error as error:
        raise StoreDamagedError(f"store {str(directory)!r} cannot be rewritten: {error}; repair it") from error
    try:
        return int(env.info()["last_txnid"])
    finally:
        env.close()


def _swap(directory: Path, work: Path) -> int:
    """Put the verified new file in place of the old one and remove the old one; its size."""
    new, old = work / "new" / "data.mdb", work / "old.mdb"
    if new.is_file():
        if (directory / "data.mdb").is_file():
            os.replace(directory / "data.mdb", old)
        os.replace(new, directory / "data.mdb")
    (directory / "lock.mdb").unlink(missing_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    return (directory / "data.mdb").stat().st_size
