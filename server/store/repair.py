"""``ruma store repair``: rebuild a damaged store from every record that passes its checks.

The store is rebuilt rather than patched, so that damage to LMDB's own pages is left behind too:

1. refuse while another process has the store open (LMDB keeps a shared ``fcntl`` lock on
   ``lock.mdb`` for as long as an environment is open; repair must get the exclusive one);
2. read the old ``data.mdb`` — a truncated one from a copy padded with zero pages (read as damaged
   pages, never past the end of the file), one with a single damaged meta page from a copy where
   the sound meta page replaces it;
3. keep every game whose record passes (``store.verify.Scan``) and whose options are kept, with its
   store id, and every position whose record passes and whose game is kept; rebuild
   ``game_index``, ``by_value`` and the entry counts from them;
4. with ``sample``, re-evaluate that many kept positions and drop those whose value is wrong;
5. move the old file to ``DIR/damaged-<time>/data.mdb`` and the new one into place.

Dropped positions are simply recomputed when next asked for; store game ids never change.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lmdb

from ruma.engine import ENGINE_VERSION
from ruma.server.store import codec
from ruma.server.store.check import _PAGE_SIZES, _meta, check_files
from ruma.server.store.documents import DOC
from ruma.server.store.codec import StoreDamagedError, StoreError
from ruma.server.store.verify import TABLES, Scan, VerifyReport

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
        return {"kept": self.kept, "problems": self.problems, "mismatches": self.mismatches,
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


def _readable_copy(directory: Path, work: Path) -> Path:
    """The directory to read the old store from: itself if its files pass, else a mended copy."""
    try:
        check_files(directory)
        return directory
    except StoreDamagedError:
        pass
    data = directory / "data.mdb"
    with data.open("rb") as file:
        head = file.read(2 * max(_PAGE_SIZES))
    first = _meta(head)
    psize = first[0] if first is not None else next(
        (p for p in _PAGE_SIZES if _meta(head[p : 2 * p]) is not None), 0)
    if psize not in _PAGE_SIZES:
        raise StoreDamagedError(f"store {str(directory)!r} has no sound meta page: it cannot be repaired "
                                f"(restore it from a backup)")
    pages = [head[:psize], head[psize : 2 * psize]]
    metas = [_meta(page) for page in pages]
    sound = next(page for page, meta in zip(pages, metas) if meta is not None)
    source = work / "source"
    source.mkdir(parents=True)
    copy = source / "data.mdb"
    shutil.copyfile(data, copy)
    with copy.open("r+b") as file:
        for i, meta in enumerate(metas):
            if meta is None:  # the sound meta page in place of the damaged one (with its own page number)
                file.seek(i * psize)
                file.write(struct.pack("<Q", i) + sound[8:])
    needed = (max(m[1] for m in metas if m is not None) + 1) * psize
    if copy.stat().st_size < needed:
        os.truncate(copy, needed)  # the missing pages read as zeros: damaged pages, not SIGBUS
    return source


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
        source = _readable_copy(directory, work)
        target = work / "new"
        _rebuild(source, target, report)
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
    size = (source / "data.mdb").stat().st_size
    old = lmdb.open(str(source), readonly=True, lock=False, max_dbs=len(TABLES) + 2, map_size=max(size, 1 << 20))
    target.mkdir(parents=True)
    new = lmdb.open(str(target), map_size=max(64 << 20, 4 * size), max_dbs=len(TABLES) + 2)
    try:
        with old.begin(buffers=False) as txn:
            dbs: dict[str, Any] = {}
            for name in TABLES:
                try:
                    dbs[name] = old.open_db(name.encode(), txn=txn, create=False)
                except lmdb.Error as error:
                    report.problems.append({"table": name, "key": "", "problem": f"cannot open the table: {error}"})
            schema = txn.get(b"schema_version", db=dbs["meta"]) if "meta" in dbs else None
            if schema not in (None, b"2"):
                raise StoreError(f"store {str(source)!r} has schema {schema!r}: open it once with this ruma "
                                 f"(which adds checksums) before repairing it")
            scan = Scan(txn, dbs, old.max_key_size())
            _copy(scan, dbs, new, report)
            report.problems.extend(scan.problems)
    finally:
        old.close()
        new.close()


def _copy(scan: Scan, dbs: dict[str, Any], new: lmdb.Environment, report: RepairReport) -> None:
    out = {name: new.open_db(name.encode()) for name in TABLES}
    max_key = new.max_key_size()
    writer = _Writer(new)
    meta = scan.check_meta(None) if "meta" in dbs else {}
    writer.put(out["meta"], b"schema_version", b"2", sealed=False)
    for key in (b"created_engine_version", b"engine_version"):
        writer.put(out["meta"], key, meta.get(key, ENGINE_VERSION.encode()))
    games: dict[int, bytes] = {}
    scan.good_games = games
    if "games" in dbs:
        for key, value in scan.records("games"):
            options = scan.check_game(key, value)
            if options is not None:
                games[codec.decode_game_id(key)] = options
                writer.put(out["games"], key, options)
                writer.put(out["game_index"], codec.index_key(options, max_key), key)
    counts: dict[bytes, int] = {}
    if "positions" in dbs:
        for key, value in scan.records("positions"):
            entry = scan.check_position(key, value)
            if entry is None:
                continue
            writer.put(out["positions"], key, codec.unseal("positions", key, value))
            index = codec.by_value_key(key, codec.encode_value(*entry))
            if len(index) <= max_key:
                writer.put(out["by_value"], index, b"")
            counts[key[:2]] = counts.get(key[:2], 0) + 1
    names = {k[len(b"ruleset/"):]: v for k, v in meta.items() if k.startswith(b"ruleset/")}
    for key, payload in meta.items():
        if key.startswith(DOC):  # named documents (``store.documents``), kept as they were
            writer.put(out["meta"], key, payload)
    for prefix, total in counts.items():
        writer.put(out["meta"], b"count/" + prefix, total.to_bytes(8, "big"))
        writer.put(out["meta"], b"ruleset/" + prefix, names.get(prefix, b""))
    writer.commit()
    report.kept = {"games": len(games), "positions": sum(counts.values())}
    # problems of derived tables (game_index, by_value, counts) are mended by the rebuild: keep only
    # those of records that were dropped
    scan.problems = [p for p in scan.problems if p["table"] in ("games", "positions", "meta")
                     and not p["problem"].startswith("counts ")]


class _Writer:
    """Sealed puts into a new environment, committed every ``_BATCH`` records."""

    def __init__(self, env: lmdb.Environment) -> None:
        self.env = env
        self.txn = env.begin(write=True)
        self.pending = 0

    def put(self, db: Any, key: bytes, payload: bytes, sealed: bool = True) -> None:
        self.txn.put(key, codec.seal(key, payload) if sealed else payload, db=db)
        self.pending += 1
        if self.pending >= _BATCH:
            self.commit()
            self.txn = self.env.begin(write=True)

    def commit(self) -> None:
        self.txn.commit()
        self.pending = 0


def _drop_mismatches(target: Path, sample: int, seed: int | None) -> list[dict[str, Any]]:
    """Re-evaluate ``sample`` positions of the rebuilt store and delete those with a wrong value."""
    from ruma.server.store.memo import LmdbStore
    from ruma.server.store.verify import _reevaluate

    report = VerifyReport()
    with LmdbStore(target, create=False, batch_seconds=0) as store:
        _reevaluate(store, sample, seed, report)
        if report.mismatches:
            store.delete_positions([bytes.fromhex(m["key"]) for m in report.mismatches])
    return report.mismatches
