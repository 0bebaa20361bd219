"""``ruma store repair``: rebuild a damaged store from every record that passes its checks.

The store is rebuilt rather than patched, so that damage to LMDB's own pages is left behind too:

1. refuse while another process has the store open (LMDB keeps a shared ``fcntl`` lock on
   ``lock.mdb`` for as long as an environment is open; repair must get the exclusive one);
2. read the old ``data.mdb`` page by page (``store.page_file.PageFile``: never through LMDB, which may
   stop the process on a damaged page; a truncated file or one with a damaged meta page is read
   as far as it goes, from its newest sound meta page), with the pages of subtrees whose branch
   page is damaged found as orphans;
3. keep every game whose record passes (``store.scan.Scan``) and whose options are kept, with its
   store id, every position whose record passes and whose game is kept, and the ``unverified``
   marks of kept positions; rebuild ``game_index`` and the entry counts from them (a schema-2 store
   comes out as schema 3: its ``by_value`` index is left behind);
4. with ``sample``, re-evaluate that many kept positions and drop those whose value is wrong;
5. move the old file to ``DIR/damaged-<time>/data.mdb`` and the new one into place.

Dropped positions are simply recomputed when next asked for; store game ids never change.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lmdb

from ruma.engine import ENGINE_VERSION
from ruma.engine.rulesets.base import key_prefix_of
from ruma.server.store import codec
from ruma.server.store.codec import StoreError
from ruma.server.store.documents import DOC
from ruma.server.store.scan import COUNT, MAX_KEY, RULESET, TABLES, Scan
from ruma.server.store.verify import VerifyReport, open_pages

_BATCH = 50_000


@dataclass
class RepairReport:
    """What ``repair_store`` kept, what it dropped and where the old file went."""

    kept: dict[str, int] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    damaged_copy: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"kept": self.kept, "problems": self.problems[:1000], "problems_total": len(self.problems),
                "mismatches": self.mismatches,
                "damaged_copy": self.damaged_copy}


def in_use(directory: Path) -> bool:
    """Whether another process has the LMDB environment in ``directory`` open."""
    lock = directory / "lock.mdb"
    if not lock.exists():
        return False
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0, 0)
    except OSError:
        return True
    finally:
        os.close(fd)  # (releases the test lock)
    return False


def lock_out(directory: Path) -> int:
    """Take the lock LMDB's environments share on ``directory/lock.mdb`` exclusively and return its
    file descriptor (closing it releases the lock): a process that opens the store meanwhile waits
    in LMDB's open until then (``StoreError`` if one has it open now)."""
    fd = os.open(directory / "lock.mdb", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0, 0)
    except OSError:
        os.close(fd)
        raise StoreError(f"store {str(directory)!r} is open in another process") from None
    return fd


def repair_store(directory: str | Path, sample: int = 0, seed: int | None = None) -> RepairReport:
    """Rebuild the store in ``directory`` (see the module docstring); returns what happened."""
    directory = Path(directory).resolve()
    if not (directory / "data.mdb").is_file():
        raise StoreError(f"no LMDB store in {str(directory)!r} (data.mdb missing)")
    from ruma.server.store.memo import open_in_this_process

    if open_in_this_process(directory) or in_use(directory):
        raise StoreError(f"store {str(directory)!r} is open in another process (stop the server first)")
    work = directory / f".repair-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    report = RepairReport()
    try:
        target = work / "new"
        _rebuild(directory, target, report)
        if sample:
            report.mismatches = _drop_mismatches(target, sample, seed)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        damaged = directory / f"damaged-{stamp}"
        n = 1
        while damaged.exists():
            n += 1
            damaged = directory / f"damaged-{stamp}-{n}"
        damaged.mkdir()
        os.replace(directory / "data.mdb", damaged / "data.mdb")
        os.replace(target / "data.mdb", directory / "data.mdb")
        (directory / "lock.mdb").unlink(missing_ok=True)
        report.damaged_copy = str(damaged / "data.mdb")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def _rebuild(source: Path, target: Path, report: RepairReport) -> None:
    with open_pages(source) as pages:
        target.mkdir(parents=True)
        size = (source / "data.mdb").stat().st_size
        new = lmdb.open(str(target), map_size=max(64 << 20, 4 * size), max_dbs=len(TABLES) + 2)
        try:
            scan = Scan(pages)
            _copy(scan, new, report)
        finally:
            new.close()


def _copy(scan: Scan, new: lmdb.Environment, report: RepairReport) -> None:
    out = {name: new.open_db(name.encode()) for name in TABLES}
    writer = _Writer(new)
    meta = scan.meta(None)
    schema = meta.get(b"schema_version")
    if schema not in (None, b"2", b"3"):
        raise StoreError(f"store has schema {schema!r}: open it once with this ruma (which adds checksums) "
                         f"before repairing it")
    writer.put(out["meta"], b"schema_version", b"3", sealed=False)
    for key in (b"created_engine_version", b"engine_version"):
        writer.put(out["meta"], key, meta.get(key, ENGINE_VERSION.encode()))
    games = scan.games()
    for sid, options in games.items():
        gid = codec.encode_game_id(sid)
        writer.put(out["games"], gid, options)
        writer.put(out["game_index"], codec.index_key(options, MAX_KEY), gid)
    counts: dict[bytes, int] = {}
    kept: set[int] = set()
    for key, value, data in scan.records("positions"):
        entry = None if data is None else scan.position(key, data)
        if entry is None or not writer.put(out["positions"], key, value, sealed=None):
            continue  # damaged (reported), or read twice (an orphan page's copy of a record)
        prefix = key_prefix_of(key)
        counts[prefix] = counts.get(prefix, 0) + 1
        kept.add(hash(key))
    for key, value, data in scan.records("unverified"):
        if data is not None and hash(key) in kept:
            writer.put(out["unverified"], key, value, sealed=None)
    names = {k[len(RULESET):]: v for k, v in meta.items() if k.startswith(RULESET)}
    for key, payload in meta.items():
        if key.startswith(DOC):  # named documents (``store.documents``), the sound ones kept as they were
            writer.put(out["meta"], key, payload)
    for prefix, total in counts.items():
        writer.put(out["meta"], COUNT + prefix, total.to_bytes(8, "big"))
        writer.put(out["meta"], RULESET + prefix, names.get(prefix, b""))
    writer.commit()
    report.kept = {"games": len(games), "positions": sum(counts.values())}
    scan.page_problems()
    # problems of derived tables (game_index, counts) are mended by the rebuild: keep only those of
    # records that were dropped, and of pages that could not be read
    report.problems = [p for p in scan.problems if p["table"] not in ("game_index", "meta")
                       or p["problem"].startswith("page ") or str(p.get("key") or "").startswith(DOC.hex())]


class _Writer:
    """Sealed puts into a new environment, committed every ``_BATCH`` records."""

    def __init__(self, env: lmdb.Environment) -> None:
        self.env = env
        self.txn = env.begin(write=True)
        self.pending = 0

    def put(self, db: Any, key: bytes, payload: bytes, sealed: bool | None = True) -> bool:
        """Put ``payload`` (sealed here; ``sealed=False``: as it is; ``None``: a sealed record, kept
        as it is, unless the key is held already); whether it was put."""
        if sealed is None:
            done = self.txn.put(key, payload, db=db, overwrite=False)
        else:
            done = self.txn.put(key, codec.seal(key, payload) if sealed else payload, db=db)
        self.pending += 1
        if self.pending >= _BATCH:
            self.commit()
            self.txn = self.env.begin(write=True)
        return bool(done)

    def commit(self) -> None:
        self.txn.commit()
        self.pending = 0


def _drop_mismatches(target: Path, sample: int, seed: int | None) -> list[dict[str, Any]]:
    """Re-evaluate ``sample`` positions of the rebuilt store and delete those with a wrong value."""
    from ruma.server.store.memo import LmdbStore
    from ruma.server.store.verify import _reevaluate

    report = VerifyReport()
    with open_pages(target) as pages:
        _reevaluate(pages, sample, seed, report)
    with LmdbStore(target, create=False, batch_seconds=0) as store:
        if report.mismatches:
            store.admin.delete_positions([bytes.fromhex(m["key"]) for m in report.mismatches])
    return report.mismatches
