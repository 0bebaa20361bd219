"""The persistent shared memo: an LMDB environment that many processes and threads value into.

``LmdbStore(path)`` is a ``ruma.engine.stores.Store``: the evaluator's memo (``lookup``/``insert``,
the bulk ``lookup_many``/``insert_many``/``insert_packed`` of ``store.bulk``, ``recent``), its
reads (``positions_with_value``, ``value_ids_many``, ``entry``, store game ids), ``flush``,
``refresh`` and ``close``; and three objects reached from it: ``admin`` (``store.admin``:
statistics, backup, verify, samples), ``documents`` (``store.documents``) and ``provenance``
(``store.provenance``: uploads not re-valued yet). Use it as a context manager. Design (byte formats
in ``ruma.server.store.codec``; narrative in ``docs/store.md``):

* Sub-databases ``games`` (store game id → options as store ids), ``game_index`` (options → store
  game id), ``positions`` (canonical key → value and explored count), ``meta`` (schema, engine
  and ruleset versions, entry counts) and ``unverified`` (uploads not re-valued yet); one B-tree
  entry a position (schema 3).
* Store game ids are not ``Game.id`` (which is per process): a game is interned recursively into
  ``games``/``game_index`` inside the write transaction that first needs it, and rebuilt from
  its options' ids by the game kernel when read (``store.games``: no ``Game`` object for a
  follower). LMDB serialises writers and the index is consulted inside the write transaction, so
  every process agrees on every id.
* Inserts are buffered and written in one transaction when the buffer holds ``batch_size``
  entries or is ``batch_seconds`` old (a daemon thread covers idle processes). Lookups see the
  buffer. Each flush is atomic and writes games before the positions naming them, so a killed
  process loses at most its unflushed tail.
* One ``lmdb.Environment`` per path per process, shared by every ``LmdbStore`` opened on it.
* The map doubles when full (``MapFullError`` → ``set_mapsize`` → retry); a process whose map
  went stale because another grew it adopts the new size (``MapResizedError`` → ``set_mapsize(0)``).

Modules: this one (the public handle, queries, the per-process registry), ``store.core`` (the
environment, buffer, flushes, lookups), ``store.bulk`` (batched lookups and inserts),
``store.games`` (store game ids), ``store.codec`` (bytes), ``store.admin``, ``store.documents``,
``store.provenance`` (the objects behind ``admin``, ``documents``, ``provenance``).
"""

from __future__ import annotations

import atexit
import heapq
import logging
import os
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ruma.engine.cgt import Game, Value
from ruma.engine.frame import frame_count, is_shared
from ruma.engine.memo import new_compact_memo
from ruma.engine.rulesets.base import PLUGIN_CODE
from ruma.server.store import codec
from ruma.server.store.admin import StoreAdmin
from ruma.server.store.codec import StoreError
from ruma.server.store.core import (
    _COUNT,
    DEFAULT_BATCH_SECONDS,
    DEFAULT_BATCH_SIZE,
    DEFAULT_MAP_SIZE,
    SCHEMA_VERSION,
    _Core,
)
from ruma.server.store.documents import StoreDocuments
from ruma.server.store.provenance import StoreProvenance
from ruma.server.store.runs import Runs, adopt, intern_runs, store_payload

__all__ = ["LmdbStore", "StoreError", "Value", "SCHEMA_VERSION", "DEFAULT_BATCH_SIZE",
           "DEFAULT_BATCH_SECONDS", "DEFAULT_MAP_SIZE"]

log = logging.getLogger(__name__)
#: ``close_dense`` rewrites a store whose file is more than this many times its B-tree pages,
DENSE_RATIO = 1.2
#: or whose leaf pages are together less full than this,
DENSE_FILL = 0.9
#: or when the values it merges are at least this share of those it holds (the rewrite's copy puts
#: a record in order for a fraction of what a B-tree put into a large table costs)
MERGE_SHARE = 0.2
_CORES: dict[tuple[int, str], _Core] = {}
_CORES_LOCK = threading.Lock()


def _close_all() -> None:
    with _CORES_LOCK:
        cores = [core for (pid, _), core in _CORES.items() if pid == os.getpid()]
        _CORES.clear()
    for core in cores:
        try:
            core.close()
        except Exception:  # noqa: BLE001 - interpreter exit: nothing left to report to
            pass


atexit.register(_close_all)


def open_in_this_process(path: str | os.PathLike[str]) -> bool:
    """Whether this process has the store in ``path`` open."""
    ident = (os.getpid(), str(Path(path).resolve()))
    with _CORES_LOCK:
        core = _CORES.get(ident)
        return core is not None and not core.closed


class LmdbStore:
    """The persistent, shared ``Memo``: see the module docstring.

    ``batch_size``/``batch_seconds``/``map_size``/``writer_process`` are taken from the first store
    opened on a path in a process; later ones share its environment and buffer.
    ``writer_process``: large batches of nim values handed to ``insert_many`` are written by a child
    process while the caller goes on (``store.writer``); ``False`` writes them in line.
    ``hide_unverified``: uploaded values the server has not re-valued yet read as misses (a store
    the server computes with; ``store.provenance``).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        batch_size: int = DEFAULT_BATCH_SIZE,
        batch_seconds: float = DEFAULT_BATCH_SECONDS,
        map_size: int = DEFAULT_MAP_SIZE,
        writer_process: bool = True,
        hide_unverified: bool = False,
    ) -> None:
        self.path = Path(path).resolve()
        ident = (os.getpid(), str(self.path))
        with _CORES_LOCK:
            core = _CORES.get(ident)
            if core is None or core.closed:
                core = _Core(self.path, create, map_size, batch_size, batch_seconds, writer_process, hide_unverified)
                _CORES[ident] = core
            core.refs += 1
        self._core: _Core | None = core
        #: the runs of a sweep this handle holds (``hold_run``), and whether another sweep held them
        self._runs: Runs | None = None
        self._runs_elsewhere = False
        # the evaluator's hot path: call the shared core directly (``close`` rebinds these)
        self.lookup = core.lookup  # type: ignore[method-assign]
        self.insert = core.insert  # type: ignore[method-assign]
        self.lookup_many = core.lookup_many  # type: ignore[method-assign]
        self.insert_many = core.insert_many  # type: ignore[method-assign]

    @property
    def admin(self) -> StoreAdmin:
        """Statistics, backup, verify, samples, deletions, the environment (``store.admin``)."""
        return StoreAdmin(self)

    @property
    def documents(self) -> StoreDocuments:
        """Named documents kept in the store (``store.documents``)."""
        return StoreDocuments(self)

    @property
    def provenance(self) -> StoreProvenance:
        """The marks of uploaded values not re-valued yet (``store.provenance``)."""
        return StoreProvenance(self)

    @property
    def core(self) -> _Core:
        """The shared environment state (raises ``StoreError`` once closed)."""
        if self._core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        return self._core

    # -- Memo ----------------------------------------------------------------------------------
    def lookup(self, key: bytes) -> Value | None:
        """The stored (or buffered) value of ``key``, or ``None``."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        return core.lookup(key)

    def lookup_served(self, key: bytes) -> Value | None:
        """``lookup`` that reads an unverified upload as stored also where this store hides them
        from searches (``hide_unverified``): what a reply, such as a census, reads."""
        return self.core.lookup(key, True)

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Buffer ``value`` under ``key``; the first value stored under a key is kept."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        core.insert(key, value, explored)

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """``lookup`` of many keys through one read transaction (the compiled search's batches)."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        return core.lookup_many(keys)

    def value_ids_many(self, keys: Sequence[bytes]) -> list[tuple[bool, int] | None]:
        """What is stored under each key without building it: ``(is_game, number)`` — a nim value,
        or a game's store id (``store_game_id``) — or ``None`` where nothing is; one read
        transaction, after a flush. A damaged record raises ``CorruptRecordError``. How a reader
        asks many positions for one value (``ruma find``) without building every other value."""
        core = self.core
        core.flush()
        positions = core.dbs["positions"]

        def read(txn: Any) -> list[tuple[bool, int] | None]:
            out: list[tuple[bool, int] | None] = []
            get, unseal, decode = txn.get, codec.unseal, codec.decode_entry
            for key in keys:
                raw = get(key, db=positions) if 3 <= len(key) <= core.max_key else None
                if raw is None:
                    out.append(None)
                    continue
                is_game, number, _ = decode(unseal("positions", key, raw))
                out.append((is_game, number))
            return out

        return core._read(read)

    def insert_many(self, items: Iterable[tuple[bytes, Value]]) -> None:
        """Store many ``(key, value)`` pairs at once (what the evaluator's compiled search hands back):
        a large batch is written in its own transaction, a small one buffered like ``insert``."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        core.insert_many(items)

    def insert_packed(self, frame: bytes, cache: Any = None, remember: bool = True) -> None:
        """``insert_many`` of nim values as one batch frame (``ruma.engine.frame``: what the
        compiled search hands over for an impartial ruleset; ``cache``: the ``CompactMemo`` it put
        them in already; ``remember=False``: not kept in ``recent`` — see
        ``store.bulk.BulkOps.insert_packed``)."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        core.insert_packed(frame, cache, remember)

    def insert_shared(self, frame: bytes, games: Any, session: int) -> None:
        """Store a drain of a sweep's partizan table (shared ids of ``games``, the sweep's
        ``SharedGames``), the store's writer process interning the games it names where it can
        (``store.bulk.BulkOps.insert_shared``)."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        core.insert_shared(frame, games, session)

    @property
    def recent(self) -> Any:
        """The values of the bulk batches this process stored lately: a ``CompactMemo`` of at most
        ``store.bulk.RECENT_LIMIT`` entries (``None`` without the compiled engine and once
        closed; made empty when first asked for: a search puts the values it hands over in it
        itself, ``insert_packed``), which the compiled search reads before it asks
        ``lookup_many``. Never consulted by ``lookup``/``lookup_many``, which read the database."""
        core = self._core
        if core is None:
            return None
        if core.recent is None:
            core.recent = new_compact_memo()
        return core.recent

    def flush(self) -> None:
        """Write every buffered entry now, in one atomic transaction."""
        self.core.flush()

    def refresh(self) -> None:
        """Make this process's next lookups read a fresh snapshot (after another process committed)."""
        self.core.generation += 1

    def close(self) -> None:
        """Store the runs this handle holds (``store_runs``), flush and release this handle; the
        environment closes with the last handle."""
        core = self._core
        if core is None:
            return
        self.store_runs()
        self._core = None
        del self.lookup, self.insert, self.lookup_many, self.insert_many  # the methods, which now raise StoreError
        with _CORES_LOCK:
            core.refs -= 1
            last = core.refs <= 0
            if last and _CORES.get((core.pid, str(self.path))) is core:
                del _CORES[(core.pid, str(self.path))]
        if last:
            core.close()
        else:
            core.flush()

    def hold_run(self, frame: bytes) -> None:
        """Keep ``frame`` (a batch frame of nim values, keys sorted: a sweep's drain) as a durable
        run beside the store instead of storing it now (``store.runs``): ``close_dense`` merges the
        runs into its rewrite; ``close`` and ``store_runs`` store them. Where another sweep holds
        the store's runs, stored now (``insert_packed``)."""
        runs = self._take_runs()
        if runs is None:
            self.insert_packed(frame, None, False)
        else:
            runs.keep(frame)

    def shared_interner(self) -> Callable[[str], Any] | None:
        """``store.interner.shared_interner`` (a sweep's workers intern their own drains' games
        with it: ``Store.shared_interner``)."""
        from ruma.server.store.interner import shared_interner

        return shared_interner

    def runs_folder(self) -> str | None:
        """Take the store's runs for this handle (as ``hold_run`` does) and return their folder,
        where a sweep's processes may write runs of their own (``ruma.engine.frame.write_run``,
        names ending in ``.run``): every run there is this handle's until it closes. ``None``
        where another sweep holds them."""
        runs = self._take_runs()
        return None if runs is None else str(runs.folder)

    def _take_runs(self) -> Runs | None:
        if self._runs is None and not self._runs_elsewhere:
            self._runs = Runs.open(self.path)
            self._runs_elsewhere = self._runs is None
        return self._runs

    def adopt_runs(self) -> int:
        """Store the runs a killed sweep left beside the store (``store.runs.adopt``); how many
        entries they held."""
        return adopt(self.path, self)

    def store_runs(self) -> None:
        """Store the runs this handle holds now (``hold_run``, and its sweep's workers'), and let go
        of them."""
        runs, self._runs = self._runs, None
        if runs is None:
            return
        try:
            sessions: dict[int, dict[int, int]] = {}
            for payload in runs.frames():
                store_payload(self, payload, sessions)
            runs.clear()
        finally:
            runs.close()

    def close_dense(self, held: bytes | None = None) -> bool:
        """``close``, then — when this was the store's last handle in this process, no other process
        has it open, and its file is more than a sixth free pages (a sweep's commits, each spread
        over the whole key space, copy most pages), or its leaf pages are less than 90% full (LMDB
        splits a full page halfway), or the runs it holds (``hold_run``) are at least
        ``MERGE_SHARE`` of its positions — rewrite it densely (``ruma store compact``, checked by
        record counts). Whether it did. ``held``: a batch frame of nim values not stored yet (a
        sweep's last drain, keys sorted). The runs and ``held`` are merged into the rewrite where
        they can be (``store.rewrite.merge_plan``: the same file, without their B-tree puts into
        the old one), else stored first as ``insert_packed`` stores them — either way stored when
        this returns (a kill before then loses ``held``, as it loses an uncommitted batch; the
        runs stay for ``store.runs.adopt``). A partizan sweep's runs have their games interned
        into the store first (``store.runs.intern_runs``)."""
        runs, self._runs = self._runs, None
        core = self._core
        try:
            payloads = [] if runs is None else runs.frames()
            frames: list[bytes | memoryview] = [p for p in payloads if not is_shared(p)]
            frames += [held] if held else []
            self.close()
            shared = [p for p in payloads if is_shared(p)]
            if shared:
                frames += self._interned_runs(shared, core)
            rewritten = self._close_dense([frame for frame in frames if frame_count(frame)], core)
            if runs is not None:
                runs.clear()
            return rewritten
        finally:
            if runs is not None:
                runs.close()

    def _interned_runs(self, shared: list[memoryview], core: Any) -> list[bytes]:
        """A partizan sweep's runs as frames of the store's own codes (``store.runs.intern_runs``)
        where no other handle of the store is open in this process; else stored now, and none."""
        if core is not None and core.closed:
            return intern_runs(self.path, shared)
        sessions: dict[int, dict[int, int]] = {}
        with LmdbStore(self.path, create=False) as store:
            for payload in shared:
                store_payload(store, payload, sessions)
        return []

    def _close_dense(self, held: list[bytes | memoryview], core: Any) -> bool:
        if core is None or not core.closed:
            self._store_held(held)
            return False
        from ruma.server.store.repair import in_use
        from ruma.server.store.rewrite import compact_store

        data = self.path / "data.mdb"
        if in_use(self.path) or not data.is_file():
            self._store_held(held)
            return False
        from ruma.server.store.page_file import PageFile

        with LmdbStore(self.path, create=False, writer_process=False, batch_seconds=0) as store:
            stats = store.admin.stats()
        stored = sum(r["entries"] for r in stats["rulesets"])
        many = sum(map(frame_count, held)) >= MERGE_SHARE * stored
        if not many and stats["bytes"] <= DENSE_RATIO * stats["data_bytes"]:  # (else rewritten: no survey)
            with PageFile(data) as pages:
                if pages.leaf_fill() >= DENSE_FILL:
                    self._store_held(held)
                    return False
        if held:
            try:
                compact_store(self.path, pages=False, merge=held)
                return True
            except StoreError as refused:  # (no plan, a key stored already: the frames' puts, then the copy)
                log.info("the dense rewrite of %s could not merge the last values: %s", self.path, refused)
        self._store_held(held)
        compact_store(self.path, pages=False)
        return True

    def _store_held(self, held: list[bytes | memoryview]) -> None:
        """Store ``close_dense``'s frames (runs, and its held frame) through a handle of its own."""
        if not held:
            return
        with LmdbStore(self.path, create=False) as store:
            for frame in held:  # (one by one: frames that share a key are stored too, the first value kept)
                store_payload(store, frame, {})

    def __enter__(self) -> "LmdbStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------------
    def entry(self, key: bytes) -> tuple[Value, int] | None:
        """``(value, explored)`` stored under ``key`` (flushed entries only), or ``None``."""
        core = self.core
        positions = core.dbs["positions"]

        def read(txn: Any) -> tuple[Value, int] | None:
            raw = txn.get(key, db=positions)
            return None if raw is None else core.decode(txn, key, raw)

        return core._read(read)

    def store_game_id(self, game: Game) -> int | None:
        """The store id of ``game`` (same in every process), or ``None`` if never stored."""
        core = self.core
        core.flush()
        return core._read(lambda txn: core.find_game(txn, game))

    def game_by_store_id(self, store_id: int) -> Game:
        """The game stored under ``store_id``; raises ``StoreError`` if there is none."""
        core = self.core
        return core._read(lambda txn: core.game(txn, store_id))

    def positions_with_value(self, ruleset_code: int, value: Value, limit: int = 100,
                             version: int | None = None, prefix: bytes | None = None) -> list[bytes]:
        """Keys of stored positions of a ruleset whose value is ``value``, simplest first.

        Simplest means fewest seeds (sum of the state), then shortest key. ``version=None``
        searches every version of the ruleset the store holds; ``prefix`` (``Ruleset.key_prefix``,
        what an installed ruleset, ``PLUGIN_CODE``, is searched by) that prefix only. The ruleset's
        positions are read in one pass (schema 3 keeps no index by value: ``docs/store.md``,
        "Searches by value").
        """
        core = self.core
        core.flush()
        positions, meta = core.dbs["positions"], core.dbs["meta"]

        def read(txn: Any) -> list[bytes]:
            if isinstance(value, int):
                encoded = codec.encode_value(False, value)
            else:
                sid = core.find_game(txn, value)
                if sid is None:
                    return []
                encoded = codec.encode_value(True, sid)
            if prefix is not None:
                return [key for _, key in _simplest_with_value(txn, positions, prefix, encoded, limit, self.path)]
            if version is not None:
                versions = [version]
            elif ruleset_code == PLUGIN_CODE:
                versions = []  # (each installed ruleset is its own prefix)
            else:
                versions = []
                with txn.cursor(db=meta) as cursor:
                    start = _COUNT + bytes((ruleset_code,))
                    if cursor.set_range(start):
                        for key in cursor.iternext(values=False):
                            if not key.startswith(start):
                                break
                            versions.append(key[len(start)])
            found: list[tuple[bytes, bytes]] = []  # (complexity, key), the ``limit`` simplest kept
            for v in versions:
                found += _simplest_with_value(txn, positions, bytes((ruleset_code, v)), encoded, limit, self.path)
            return [key for _, key in heapq.nsmallest(limit, found)]

        return core._read(read)


def _simplest_with_value(txn: Any, positions: Any, prefix: bytes, encoded: bytes, limit: int,
                         path: Path) -> list[tuple[bytes, bytes]]:
    """``(complexity, key)`` of the ``limit`` simplest positions under ``prefix`` whose sound record
    holds the value ``encoded`` (one pass over the ruleset's records; a damaged record is logged
    and skipped)."""
    best: list[tuple[bytes, bytes]] = []  # a max-heap by complexity, as negated sort keys
    worst: bytes | None = None
    with txn.cursor(db=positions) as cursor:
        if not cursor.set_range(prefix):
            return []
        for key, record in cursor:
            if not key.startswith(prefix):
                break
            if not record.startswith(encoded):
                continue
            rank = codec.complexity(key) + key
            if worst is not None and len(best) >= limit and rank >= worst:
                continue
            try:
                if codec.decode_entry(codec.unseal("positions", key, record))[:2] != codec.decode_value(encoded)[:2]:
                    continue
            except (codec.CodecError, codec.CorruptRecordError):
                log.error("skipping a damaged position record %s in %s", key.hex(), path)
                continue
            best.append((rank, key))
            if len(best) > 4 * limit:
                best = heapq.nsmallest(limit, best)
                worst = best[-1][0]
    return [(rank, key) for rank, key in heapq.nsmallest(limit, best)]
