"""The shared part of ``ruma.server.store.memo``: one LMDB environment of one process (``_Core``).

It owns the environment, the named databases, the insert buffer and its flushes, the lookups'
cached read transactions and the gate that keeps transactions out of the way of a map resize.
Game interning lives in ``ruma.server.store.games``; the public handle is ``LmdbStore``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import lmdb

from ruma.engine import ENGINE_VERSION
from ruma.engine.cgt import Game, Value
from ruma.engine.rulesets.base import key_prefix_of
from ruma.server.store import codec
from ruma.server.store.bulk import BulkOps, add_counts
from ruma.server.store.codec import StoreDamagedError, StoreError
from ruma.server.store.games import GameTable
from ruma.server.store.provenance import UploadMarks
from ruma.server.store.writer import BulkWriter, find_in

T = TypeVar("T")
log = logging.getLogger(__name__)

SCHEMA_VERSION = 3  # 3: one B-tree entry a position; 2 (by_value too) and 1 (no seals) are migrated on open
DEFAULT_MAP_SIZE = 64 << 20
DEFAULT_BATCH_SIZE = 16384
DEFAULT_BATCH_SECONDS = 2.0
READ_TXN_USES = 4096  # lookups served by one cached read transaction before it is renewed
READ_TXN_SECONDS = 0.05  # ... or seconds: other processes' commits show within this delay
_DB_NAMES = ("games", "game_index", "positions", "meta", "unverified")
_COUNT = b"count/"  # meta: count/<code><version> -> 8-byte entry count
_RULESET = b"ruleset/"  # meta: ruleset/<code><version> -> ruleset name


class _SharedExclusiveLock:
    """Many holders of the shared side (transactions) or one of the exclusive side (map resize).

    The shared side is two plain lock operations (it is on every lookup); the exclusive side is
    rare (a map resize), so it simply polls until the transactions under way have ended.
    """

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._resizing = threading.Lock()
        self._shared = 0
        self._exclusive = False

    def enter(self) -> None:
        """Take the shared side (waits while a resize is under way)."""
        mutex = self._mutex
        while True:
            with mutex:
                if not self._exclusive:
                    self._shared += 1
                    return
            with self._resizing:  # wait for the resize to end (maybe for the writer's commit)
                pass

    def leave(self) -> None:
        """Release the shared side."""
        with self._mutex:
            self._shared -= 1

    @contextmanager
    def shared(self) -> Iterator[None]:
        self.enter()
        try:
            yield
        finally:
            self.leave()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._resizing:
            with self._mutex:
                self._exclusive = True
            try:
                while True:
                    with self._mutex:
                        if not self._shared:
                            break
                    time.sleep(0.0005)
                yield
            finally:
                with self._mutex:
                    self._exclusive = False


class _Core(GameTable, BulkOps, UploadMarks):
    """One open environment of one process: the part every ``LmdbStore`` on a path shares."""

    def __init__(self, path: Path, create: bool, map_size: int, batch_size: int, batch_seconds: float,
                 use_writer: bool = False, hide_unverified: bool = False) -> None:
        self.path = path
        self.hide_unverified = hide_unverified  # marked uploads read as misses (``store.provenance``)
        self.pid = os.getpid()
        self.refs = 0
        self.closed = False
        if not create and not (path / "data.mdb").is_file():
            raise StoreError(f"no LMDB store in {str(path)!r} (data.mdb missing)")
        from ruma.server.store.check import check_files
        from ruma.server.store.migrate import migrate_if_older

        check_files(path)  # a truncated or foreign data.mdb is refused before it is mapped (no SIGBUS)
        migrate_if_older(path)  # a store of an older schema is converted first, once
        try:
            path.mkdir(parents=True, exist_ok=True)
            self.env = lmdb.open(
                str(path), map_size=map_size, max_dbs=len(_DB_NAMES) + 2, lock=True,
                subdir=True, create=create, readahead=False, max_readers=254,
            )
        except lmdb.InvalidError as error:
            raise StoreDamagedError(f"store {str(path)!r} is damaged: {error}") from error
        except (lmdb.Error, OSError) as error:
            raise StoreError(f"cannot open LMDB store {str(path)!r}: {error}") from error
        self.env.set_mapsize(0)  # adopt the size another process may have grown the map to
        if self.env.info()["map_size"] < map_size:
            self.env.set_mapsize(map_size)
        self.max_key = self.env.max_key_size()
        self.lock = _SharedExclusiveLock()
        self.dbs: dict[str, Any] = {}
        self._write(self._open_dbs)
        self.batch_size = max(1, batch_size)
        self.batch_seconds = batch_seconds
        self.buffer: dict[bytes, tuple[Value, int]] = {}
        self.flushing: dict[bytes, tuple[Value, int]] = {}
        self.buffer_lock = threading.Lock()
        self.flush_lock = threading.Lock()
        self.last_flush = time.monotonic()
        self.to_store: dict[int, int] = {}  # Game.id -> store id
        self.from_store: dict[int, int] = {}  # store id -> Game.id
        self.tls = threading.local()  # per thread: a cached read transaction for lookups
        self.read_txns: dict[int, Any] = {}  # thread ident -> that transaction (to abort on resize)
        self.txns_lock = threading.Lock()
        self.generation = 0  # bumped to make every thread begin a fresh read transaction
        self.use_writer = use_writer
        self.recent: Any = None  # the values of bulk batches stored lately (``BulkOps._remember``)
        self.writer: BulkWriter | None = None  # started by the first large insert_many of nim values
        self.writer_lock = threading.Lock()
        self.stop = threading.Event()
        self.ticker: threading.Thread | None = None
        if batch_seconds > 0:
            self.ticker = threading.Thread(target=self._tick, name=f"ruma-store-flush:{path.name}", daemon=True)
            self.ticker.start()

    # -- transactions with map growth ----------------------------------------------------------
    def _open_dbs(self, txn: Any) -> None:
        for name in _DB_NAMES:
            self.dbs[name] = self.env.open_db(name.encode(), txn=txn, create=True)
        meta = self.dbs["meta"]
        schema = txn.get(b"schema_version", db=meta)
        if schema is None:
            txn.put(b"schema_version", str(SCHEMA_VERSION).encode(), db=meta)
            txn.put(b"created_engine_version", codec.seal(b"created_engine_version", ENGINE_VERSION.encode()), db=meta)
        elif schema != str(SCHEMA_VERSION).encode():
            raise StoreError(
                f"store {str(self.path)!r} has schema version {schema.decode(errors='replace')!r}, "
                f"this ruma reads version {SCHEMA_VERSION}"
            )

    def _write(self, work: Callable[[Any], T]) -> T:
        """Run ``work(txn)`` in one write transaction, growing or re-adopting the map as needed."""
        while True:
            try:
                with self.lock.shared():
                    with self.env.begin(write=True) as txn:
                        return work(txn)
            except lmdb.MapFullError:
                self._grow()
            except lmdb.MapResizedError:
                self._adopt()

    def _read(self, work: Callable[[Any], T]) -> T:
        """Run ``work(txn)`` in one read transaction, adopting a map grown by another process."""
        while True:
            try:
                with self.lock.shared():
                    with self.env.begin(buffers=False) as txn:
                        return work(txn)
            except lmdb.MapResizedError:
                self._adopt()

    def _invalidate_readers(self) -> None:
        """Abort every thread's cached read transaction (call with the gate's exclusive side)."""
        with self.txns_lock:
            txns = list(self.read_txns.values())
            self.read_txns.clear()
        self.generation += 1
        for txn in txns:
            try:
                txn.abort()
            except lmdb.Error:
                pass

    def _reader(self) -> Any:
        """This thread's cached read transaction (call with the gate's shared side held).

        Renewed after every flush of this process, every ``READ_TXN_USES`` lookups, when older
        than ``READ_TXN_SECONDS`` and at every tick of the flusher thread: another process's
        commit is seen within ``READ_TXN_SECONDS``, and no old snapshot is pinned for long.
        """
        tls = self.tls
        txn = getattr(tls, "txn", None)
        if txn is not None:
            if tls.generation == self.generation and tls.uses < READ_TXN_USES and (
                time.monotonic() < tls.expires
            ):
                tls.uses += 1
                return txn
            self._drop_reader()
        txn = self.env.begin(db=self.dbs["positions"], buffers=False)
        tls.txn, tls.generation, tls.uses = txn, self.generation, 0
        tls.marks = txn.stat(self.dbs["unverified"])["entries"] if self.hide_unverified else 0
        tls.expires = time.monotonic() + READ_TXN_SECONDS
        with self.txns_lock:
            self.read_txns[threading.get_ident()] = txn
        return txn

    def _grow(self) -> None:
        with self.lock.exclusive():
            self._invalidate_readers()
            current = self.env.info()["map_size"]
            self.env.set_mapsize(0)  # another process may have grown it further already
            self.env.set_mapsize(max(current, self.env.info()["map_size"]) * 2)

    def _adopt(self) -> None:
        with self.lock.exclusive():
            self._invalidate_readers()
            self.env.set_mapsize(0)

    # -- games ---------------------------------------------------------------------------------
    def lookup(self, key: bytes, served: bool = False) -> Value | None:
        """The stored (or buffered) value of ``key``; in a store opened with ``hide_unverified``,
        an unverified upload reads as a miss unless ``served`` (a reply reads it; a search not)."""
        if not 3 <= len(key) <= self.max_key:
            return None  # never stored (``insert`` skips such keys), and LMDB refuses to look them up
        hit = self.buffer.get(key)
        if hit is None:
            hit = self.flushing.get(key)
        if hit is not None:
            return hit[0]
        writer = self.writer
        jobs = writer.snapshot() if writer is not None and writer.pending else None  # (before the read)
        lock = self.lock
        while True:
            lock.enter()
            try:
                txn = self._reader()
                raw = txn.get(key)
                if raw is None:
                    return find_in(jobs, key) if jobs else None
                if self.tls.marks and not served and txn.get(key, db=self.dbs["unverified"]) is not None:
                    return None  # an unverified upload, and this store is one the server computes with
                if len(raw) == 6 and raw[0] < 0x80 and raw[0] & 1 == 0 and raw[-4:] == codec.checksum(key, raw[:2]):
                    return raw[0] >> 1  # type: ignore[no-any-return]  # a one-byte nim value, sealed
                return self.decode(txn, key, raw)[0]
            except lmdb.MapResizedError:
                pass
            except lmdb.Error as error:
                raise self.damaged_read(key, error) from error
            finally:
                lock.leave()
            self._adopt()

    def damaged_read(self, key: bytes, error: Exception) -> codec.CorruptRecordError:
        """The ``CorruptRecordError`` (``DATA_LOSS``) of a read LMDB failed (a damaged page), after
        dropping this thread's cached read transaction: LMDB marks a transaction that met a damaged
        page unusable (later reads on it fail with ``MDB_BAD_TXN``), so the next read begins a
        fresh one and only the items on the damaged page fail."""
        self._drop_reader()
        return codec.CorruptRecordError("positions", key, f"LMDB cannot read it ({str(error).splitlines()[0]})")

    def _drop_reader(self) -> None:
        """Abort and forget this thread's cached read transaction."""
        tls = self.tls
        txn: Any = getattr(tls, "txn", None)
        if txn is None:
            return
        tls.txn = None
        with self.txns_lock:
            if self.read_txns.get(threading.get_ident()) is txn:
                del self.read_txns[threading.get_ident()]
        try:
            txn.abort()
        except lmdb.Error:
            pass

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        kind = type(value)
        if kind is int:
            if value < 0:
                raise TypeError(f"a nim value is never negative: {value!r}")
        elif kind is not Game and (isinstance(value, bool) or not isinstance(value, (int, Game))):
            raise TypeError(f"a store value is a Game or a nim value (int), not {value!r}")
        if not 3 <= len(key) <= self.max_key:
            return  # a memo may forget: keys LMDB cannot hold are simply not stored
        with self.buffer_lock:  # (read ``self.buffer`` under the lock: a flush swaps it)
            buffer = self.buffer
            buffer[key] = (value, explored)
        if len(buffer) >= self.batch_size or (
            self.batch_seconds > 0 and time.monotonic() - self.last_flush >= self.batch_seconds
        ):
            self.flush(wait=False)

    def _bulk_writer(self) -> BulkWriter | None:
        """The writer process of large ``insert_many`` batches (``store.writer``), started once;
        ``None`` once it has failed or is gone (the store then writes in line)."""
        with self.writer_lock:
            if self.closed:
                raise StoreError(f"store {str(self.path)!r} is closed")
            if self.writer is None and self.use_writer:
                try:
                    self.writer = BulkWriter(self.path, self.give_back, self._committed, self.env.info()["map_size"])
                except OSError as error:
                    log.warning("cannot start the store's writer process (%s); writing in line", error)
                    self.use_writer = False
            writer = self.writer
        return None if writer is None or writer.dead else writer

    def _committed(self) -> None:
        self.generation += 1  # cached read transactions renew: lookups see the writer's commit

    def flush(self, wait: bool = True) -> None:
        """Write the buffer in one transaction (``wait=False``: skip if a flush is under way).

        Waiting, it first waits for the batches handed to the writer thread and raises the error
        of one that failed (its entries are back in the buffer, which this flush then writes)."""
        writer = self.writer
        if wait and writer is not None:
            try:
                writer.drain()
            except BaseException:
                try:
                    self._flush_buffer(wait)  # the failed batch's entries, if the failure has passed
                except Exception:  # noqa: BLE001 - the same failure, most likely: they stay buffered
                    pass
                raise
        self._flush_buffer(wait)

    def _flush_buffer(self, wait: bool) -> None:
        if not self.flush_lock.acquire(blocking=wait):
            return
        try:
            with self.buffer_lock:
                if not self.buffer:
                    self.last_flush = time.monotonic()
                    return
                self.flushing, self.buffer = self.buffer, {}
                self.last_flush = time.monotonic()
            items = sorted(self.flushing.items())
            try:
                made = self._write(lambda txn: self._write_entries(txn, items))
            except BaseException:
                with self.buffer_lock:
                    for key, entry in items:
                        self.buffer.setdefault(key, entry)
                raise
            self._remember_games(made)
            self.generation += 1  # before the batch leaves ``flushing``: lookups must see the commit
        finally:
            self.flushing = {}
            self.flush_lock.release()

    def _write_entries(self, txn: Any, items: list[tuple[bytes, tuple[Value, int]]]) -> dict[int, int]:
        pending: dict[int, int] = {}
        made: dict[int, int] = {}
        next_id: list[int] = []
        positions, meta = self.dbs["positions"], self.dbs["meta"]
        counts: dict[bytes, int] = {}
        known, intern, varint, seal = self.to_store, self._intern, codec.encode_varint, codec.seal
        put_position = txn.cursor(db=positions).put
        for key, (value, explored) in items:
            if isinstance(value, int):
                raw = value << 1
            else:
                sid = known.get(value.id)
                if sid is None:
                    sid = intern(txn, value, pending, made, next_id)
                raw = sid << 1 | 1
            encoded = bytes((raw,)) if raw < 0x80 else varint(raw)
            if put_position(key, seal(key, encoded + (b"\x00" if not explored else varint(explored))), overwrite=False):
                prefix = key_prefix_of(key)
                counts[prefix] = counts.get(prefix, 0) + 1
        add_counts(txn, meta, counts)
        return made

    def _tick(self) -> None:
        while not self.stop.wait(self.batch_seconds):
            if self.buffer and time.monotonic() - self.last_flush >= self.batch_seconds:
                try:
                    self.flush(wait=False)
                except Exception:  # noqa: BLE001 - the next explicit flush reports it
                    pass
            if self.read_txns:  # release old snapshots, also those of threads gone idle
                with self.lock.exclusive():
                    self._invalidate_readers()

    def close(self) -> None:
        if self.closed:
            return
        self.stop.set()
        if self.ticker is not None and self.ticker is not threading.current_thread():
            self.ticker.join()
        try:
            with self.writer_lock:
                writer, self.writer = self.writer, None
            try:
                if writer is not None:
                    writer.close()  # commits what waits; raises a failed write's error
            finally:
                self.flush()  # (with a failed batch's entries, given back to the buffer)
        finally:
            self.closed = True
            self.recent = None
            with self.lock.exclusive():
                self._invalidate_readers()
                self.env.close()


def _ruleset_name(prefix: bytes) -> str:
    """The registered name of the ruleset whose keys start with ``prefix`` (``Ruleset.key_prefix``:
    code and version, or an installed ruleset's hash of both), else ``""``."""
    try:
        from ruma.engine.rulesets import ruleset_by_prefix

        ruleset = ruleset_by_prefix(prefix)
    except Exception:  # noqa: BLE001 - a name is informative only
        return ""
    return ruleset.name if ruleset is not None else ""
