"""The persistent shared memo: an LMDB environment that many processes and threads value into.

``LmdbStore(path)`` implements the evaluator's ``Memo`` (``lookup``/``insert``) plus ``flush``,
``close``, ``stats``, ``positions_with_value``, ``sample`` and ``backup``; use it as a context
manager. Design (byte formats in ``ruma.server.store_codec``; narrative in ``docs/store.md``):

* Sub-databases ``games`` (store game id → options as store ids), ``game_index`` (options → store
  game id), ``positions`` (canonical key → value and explored count), ``meta`` (schema, engine
  and ruleset versions, entry counts) and ``by_value`` ((code, version, value, complexity, key)).
* Store game ids are not ``Game.id`` (which is per process): a game is interned recursively into
  ``games``/``game_index`` inside the write transaction that first needs it, and rebuilt with
  ``Game.from_options`` when read. LMDB serialises writers and the index is consulted inside the
  write transaction, so every process agrees on every id.
* Inserts are buffered and written in one transaction when the buffer holds ``batch_size``
  entries or is ``batch_seconds`` old (a daemon thread covers idle processes). Lookups see the
  buffer. Each flush is atomic and writes games before the positions naming them, so a killed
  process loses at most its unflushed tail.
* One ``lmdb.Environment`` per path per process, shared by every ``LmdbStore`` opened on it.
* The map doubles when full (``MapFullError`` → ``set_mapsize`` → retry); a process whose map
  went stale because another grew it adopts the new size (``MapResizedError`` → ``set_mapsize(0)``).
"""

from __future__ import annotations

import atexit
import os
import random
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar, Union

import lmdb

from ruma.engine import ENGINE_VERSION
from ruma.engine.cgt import Game
from ruma.engine.errors import RumaInputError
from ruma.server import store_codec as codec

Value = Union[Game, int]
T = TypeVar("T")

SCHEMA_VERSION = 1
DEFAULT_MAP_SIZE = 64 << 20
DEFAULT_BATCH_SIZE = 4096
DEFAULT_BATCH_SECONDS = 1.0
READ_TXN_USES = 4096  # lookups served by one cached read transaction before it is renewed
READ_TXN_SECONDS = 0.05  # ... or seconds: other processes' commits show within this delay
_DB_NAMES = ("games", "game_index", "positions", "meta", "by_value")
_COUNT = b"count/"  # meta: count/<code><version> -> 8-byte entry count
_RULESET = b"ruleset/"  # meta: ruleset/<code><version> -> ruleset name


class StoreError(RumaInputError):
    """A store directory that cannot be opened or used (missing, foreign schema, corrupted)."""


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
            with self._resizing:  # wait for the resize to end
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


class _Core:
    """One open environment of one process: the part every ``LmdbStore`` on a path shares."""

    def __init__(self, path: Path, create: bool, map_size: int, batch_size: int, batch_seconds: float) -> None:
        self.path = path
        self.pid = os.getpid()
        self.refs = 0
        self.closed = False
        if not create and not (path / "data.mdb").is_file():
            raise StoreError(f"no LMDB store in {str(path)!r} (data.mdb missing)")
        try:
            path.mkdir(parents=True, exist_ok=True)
            self.env = lmdb.open(
                str(path), map_size=map_size, max_dbs=len(_DB_NAMES) + 2, lock=True,
                subdir=True, create=create, readahead=False, max_readers=254,
            )
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
        self.from_store: dict[int, Game] = {}  # store id -> Game
        self.tls = threading.local()  # per thread: a cached read transaction for lookups
        self.read_txns: dict[int, Any] = {}  # thread ident -> that transaction (to abort on resize)
        self.txns_lock = threading.Lock()
        self.generation = 0  # bumped to make every thread begin a fresh read transaction
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
            txn.put(b"created_engine_version", ENGINE_VERSION.encode(), db=meta)
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
            tls.txn = None
            with self.txns_lock:
                if self.read_txns.get(threading.get_ident()) is txn:
                    del self.read_txns[threading.get_ident()]
            try:
                txn.abort()
            except lmdb.Error:
                pass
        txn = self.env.begin(db=self.dbs["positions"], buffers=False)
        tls.txn, tls.generation, tls.uses = txn, self.generation, 0
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
    def _intern(self, txn: Any, game: Game, pending: dict[int, int], made: dict[int, Game],
                next_id: list[int]) -> int:
        """The store id of ``game``, writing it and its followers into ``games`` if new."""
        known = self.to_store
        found = known.get(game.id)
        if found is None:
            found = pending.get(game.id)
        if found is not None:
            return found
        games, index = self.dbs["games"], self.dbs["game_index"]
        stack: list[tuple[Game, bool]] = [(game, False)]
        while stack:
            g, ready = stack.pop()
            if g.id in known or g.id in pending:
                continue
            if not ready:
                stack.append((g, True))
                stack.extend((o, False) for o in g.left_options + g.right_options
                             if o.id not in known and o.id not in pending)
                continue
            left = [known.get(o.id, pending.get(o.id)) for o in g.left_options]
            right = [known.get(o.id, pending.get(o.id)) for o in g.right_options]
            options = codec.encode_options(left, right)  # type: ignore[arg-type]
            ikey = codec.index_key(options, self.max_key)
            existing = txn.get(ikey, db=index)
            if existing is not None:
                sid = codec.decode_game_id(existing)
                if ikey != options and txn.get(existing, db=games) != options:
                    raise StoreError(f"game index collision in {str(self.path)!r} for id {sid}")
            else:
                if not next_id:
                    with txn.cursor(db=games) as cursor:
                        next_id.append(codec.decode_game_id(cursor.key()) + 1 if cursor.last() else 0)
                sid = next_id[0]
                next_id[0] += 1
                txn.put(codec.encode_game_id(sid), options, db=games)
                txn.put(ikey, codec.encode_game_id(sid), db=index)
            pending[g.id] = sid
            made[sid] = g
        return pending[game.id]

    def game(self, txn: Any, store_id: int) -> Game:
        """The ``Game`` with ``store_id``, rebuilt from stored options (memoised per process)."""
        cache = self.from_store
        hit = cache.get(store_id)
        if hit is not None:
            return hit
        games = self.dbs["games"]
        decoded: dict[int, tuple[list[int], list[int]]] = {}
        stack = [store_id]
        while stack:
            sid = stack[-1]
            if sid in cache:
                stack.pop()
                continue
            opts = decoded.get(sid)
            if opts is None:
                raw = txn.get(codec.encode_game_id(sid), db=games)
                if raw is None:
                    raise StoreError(f"store {str(self.path)!r} names game {sid}, which it does not hold")
                opts = decoded[sid] = codec.decode_options(raw)
            missing = [i for i in opts[0] + opts[1] if i not in cache]
            if missing:
                stack.extend(missing)
                continue
            g = Game.from_options([cache[i] for i in opts[0]], [cache[i] for i in opts[1]])
            cache[sid] = g
            self.to_store.setdefault(g.id, sid)
            stack.pop()
        return cache[store_id]

    def find_game(self, txn: Any, game: Game) -> int | None:
        """The store id of ``game`` without writing, or ``None`` if the store never held it."""
        found = self.to_store.get(game.id)
        if found is not None:
            return found
        ids = []
        for side in (game.left_options, game.right_options):
            row = []
            for option in side:
                sid = self.find_game(txn, option)
                if sid is None:
                    return None
                row.append(sid)
            ids.append(row)
        options = codec.encode_options(ids[0], ids[1])
        raw = txn.get(codec.index_key(options, self.max_key), db=self.dbs["game_index"])
        return None if raw is None else codec.decode_game_id(raw)

    def decode(self, txn: Any, raw: bytes) -> tuple[Value, int]:
        """A ``positions`` value as ``(value, explored)``."""
        is_game, number, explored = codec.decode_entry(raw)
        return (self.game(txn, number) if is_game else number), explored

    # -- the memo ------------------------------------------------------------------------------
    def lookup(self, key: bytes) -> Value | None:
        hit = self.buffer.get(key)
        if hit is None:
            hit = self.flushing.get(key)
        if hit is not None:
            return hit[0]
        lock = self.lock
        while True:
            lock.enter()
            try:
                txn = self._reader()
                raw = txn.get(key)
                if raw is None:
                    return None
                if raw[0] & 1 == 0 and raw[0] < 0x80:  # a one-byte nim value
                    return raw[0] >> 1  # type: ignore[no-any-return]
                return self.decode(txn, raw)[0]
            except lmdb.MapResizedError:
                pass
            finally:
                lock.leave()
            self._adopt()

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        kind = type(value)
        if kind is int:
            if value < 0:  # type: ignore[operator]
                raise TypeError(f"a nim value is never negative: {value!r}")
        elif kind is not Game and (isinstance(value, bool) or not isinstance(value, (int, Game))):
            raise TypeError(f"a store value is a Game or a nim value (int), not {value!r}")
        if not 3 <= len(key) <= self.max_key:
            return  # a memo may forget: keys LMDB cannot hold are simply not stored
        buffer = self.buffer
        with self.buffer_lock:
            buffer[key] = (value, explored)
        if len(buffer) >= self.batch_size or (
            self.batch_seconds > 0 and time.monotonic() - self.last_flush >= self.batch_seconds
        ):
            self.flush(wait=False)

    def flush(self, wait: bool = True) -> None:
        """Write the buffer in one transaction (``wait=False``: skip if a flush is under way)."""
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
            for sid, game in made.items():
                self.from_store.setdefault(sid, game)
                self.to_store.setdefault(game.id, sid)
            self.generation += 1  # before the batch leaves ``flushing``: lookups must see the commit
        finally:
            self.flushing = {}
            self.flush_lock.release()

    def _write_entries(self, txn: Any, items: list[tuple[bytes, tuple[Value, int]]]) -> dict[int, Game]:
        pending: dict[int, int] = {}
        made: dict[int, Game] = {}
        next_id: list[int] = []
        positions, by_value, meta = self.dbs["positions"], self.dbs["by_value"], self.dbs["meta"]
        counts: dict[bytes, int] = {}
        known, intern, varint, max_key = self.to_store, self._intern, codec.encode_varint, self.max_key
        put_position = txn.cursor(db=positions).put
        put_index = txn.cursor(db=by_value).put
        for key, (value, explored) in items:
            if isinstance(value, int):
                raw = value << 1
            else:
                sid = known.get(value.id)
                if sid is None:
                    sid = intern(txn, value, pending, made, next_id)
                raw = sid << 1 | 1
            encoded = bytes((raw,)) if raw < 0x80 else varint(raw)
            if put_position(key, encoded + (b"\x00" if not explored else varint(explored)), overwrite=False):
                prefix = key[:2]
                counts[prefix] = counts.get(prefix, 0) + 1
                if len(key) > 2 and key[2] == 0 and len(key) < 0xFFFF:  # the common case of codec.complexity, inline
                    index = prefix + encoded + sum(key[3:]).to_bytes(4, "big") + len(key).to_bytes(2, "big") + key
                else:
                    index = codec.by_value_key(key, encoded)
                if len(index) <= max_key:
                    put_index(index, b"")
        for prefix, added in counts.items():
            old = txn.get(_COUNT + prefix, db=meta)
            total = added + (int.from_bytes(old, "big") if old else 0)
            txn.put(_COUNT + prefix, total.to_bytes(8, "big"), db=meta)
            if old is None:
                txn.put(_RULESET + prefix, _ruleset_name(prefix[0], prefix[1]).encode(), db=meta)
        if counts:
            txn.put(b"engine_version", ENGINE_VERSION.encode(), db=meta)
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
            self.flush()
        finally:
            self.closed = True
            with self.lock.exclusive():
                self._invalidate_readers()
                self.env.close()


def _ruleset_name(code: int, version: int) -> str:
    """The registered name of the ruleset with ``code`` if its version is ``version``, else ``""``."""
    try:
        from ruma.engine.rulesets import ruleset_by_code

        ruleset = ruleset_by_code(code)
    except Exception:  # noqa: BLE001 - a name is informative only
        return ""
    return ruleset.name if ruleset is not None and ruleset.version == version else ""


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


class LmdbStore:
    """The persistent, shared ``Memo``: see the module docstring.

    ``batch_size``/``batch_seconds``/``map_size`` are taken from the first store opened on a path
    in a process; later ones share its environment and buffer.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        batch_size: int = DEFAULT_BATCH_SIZE,
        batch_seconds: float = DEFAULT_BATCH_SECONDS,
        map_size: int = DEFAULT_MAP_SIZE,
    ) -> None:
        self.path = Path(path).resolve()
        ident = (os.getpid(), str(self.path))
        with _CORES_LOCK:
            core = _CORES.get(ident)
            if core is None or core.closed:
                core = _Core(self.path, create, map_size, batch_size, batch_seconds)
                _CORES[ident] = core
            core.refs += 1
        self._core: _Core | None = core

    @property
    def core(self) -> _Core:
        """The shared environment state (raises ``StoreError`` once closed)."""
        if self._core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        return self._core

    @property
    def env(self) -> lmdb.Environment:
        """The underlying ``lmdb.Environment`` (for tools and tests)."""
        return self.core.env

    def db(self, name: str) -> Any:
        """A named sub-database handle (``games``, ``game_index``, ``positions``, ``meta``, ``by_value``)."""
        return self.core.dbs[name]

    # -- Memo ----------------------------------------------------------------------------------
    def lookup(self, key: bytes) -> Value | None:
        """The stored (or buffered) value of ``key``, or ``None``."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        return core.lookup(key)

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Buffer ``value`` under ``key``; the first value stored under a key is kept."""
        core = self._core
        if core is None:
            raise StoreError(f"store {str(self.path)!r} is closed")
        core.insert(key, value, explored)

    def flush(self) -> None:
        """Write every buffered entry now, in one atomic transaction."""
        self.core.flush()

    def close(self) -> None:
        """Flush and release this handle; the environment closes with the last handle."""
        core, self._core = self._core, None
        if core is None:
            return
        with _CORES_LOCK:
            core.refs -= 1
            last = core.refs <= 0
            if last and _CORES.get((core.pid, str(self.path))) is core:
                del _CORES[(core.pid, str(self.path))]
        if last:
            core.close()
        else:
            core.flush()

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
            return None if raw is None else core.decode(txn, raw)

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

    def sample(self, n: int, seed: int | None = None, prefix: bytes = b"") -> list[tuple[bytes, Value]]:
        """Up to ``n`` stored entries chosen uniformly (reservoir sampling over one snapshot)."""
        core = self.core
        core.flush()
        rng = random.Random(seed)
        positions = core.dbs["positions"]

        def read(txn: Any) -> list[tuple[bytes, Value]]:
            chosen: list[tuple[bytes, bytes]] = []
            with txn.cursor(db=positions) as cursor:
                if not cursor.set_range(prefix):
                    return []
                for seen, (key, raw) in enumerate(cursor):
                    if not key.startswith(prefix):
                        break
                    if seen < n:
                        chosen.append((key, raw))
                    else:
                        j = rng.randrange(seen + 1)
                        if j < n:
                            chosen[j] = (key, raw)
            return [(key, core.decode(txn, raw)[0]) for key, raw in chosen]

        return core._read(read)

    def positions_with_value(self, ruleset_code: int, value: Value, limit: int = 100,
                             version: int | None = None) -> list[bytes]:
        """Keys of stored positions of a ruleset whose value is ``value``, simplest first.

        Simplest means fewest seeds (sum of the state), then shortest key. ``version=None``
        searches every version of the ruleset the store holds.
        """
        core = self.core
        core.flush()
        by_value, meta = core.dbs["by_value"], core.dbs["meta"]

        def read(txn: Any) -> list[bytes]:
            if isinstance(value, int) and not isinstance(value, bool):
                encoded = codec.encode_value(False, value)
            else:
                sid = core.find_game(txn, value)
                if sid is None:
                    return []
                encoded = codec.encode_value(True, sid)
            if version is not None:
                versions = [version]
            else:
                versions = []
                with txn.cursor(db=meta) as cursor:
                    start = _COUNT + bytes((ruleset_code,))
                    if cursor.set_range(start):
                        for key in cursor.iternext(values=False):
                            if not key.startswith(start):
                                break
                            versions.append(key[len(start)])
            found: list[bytes] = []
            for v in versions:
                prefix = codec.by_value_prefix(ruleset_code, v, encoded)
                with txn.cursor(db=by_value) as cursor:
                    if not cursor.set_range(prefix):
                        continue
                    for key in cursor.iternext(values=False):
                        if not key.startswith(prefix) or len(found) >= limit * len(versions):
                            break
                        found.append(key[len(prefix):])
            found.sort()
            return [entry[codec.COMPLEXITY_BYTES:] for entry in found[:limit]]

        return core._read(read)

    def stats(self) -> dict[str, Any]:
        """Entries per ruleset, games, bytes, bytes per entry, map size, buffered entries.

        ``bytes`` is the file's high-water mark (including free pages LMDB will reuse);
        ``data_bytes`` the pages of the B-trees, on which ``bytes_per_entry`` is based.
        """
        core = self.core
        meta = core.dbs["meta"]

        def read(txn: Any) -> dict[str, Any]:
            rulesets = []
            with txn.cursor(db=meta) as cursor:
                if cursor.set_range(_COUNT):
                    for key, raw in cursor:
                        if not key.startswith(_COUNT):
                            break
                        code, version = key[len(_COUNT)], key[len(_COUNT) + 1]
                        name = txn.get(_RULESET + key[len(_COUNT):], db=meta) or b""
                        rulesets.append({"code": code, "version": version, "name": name.decode(),
                                         "entries": int.from_bytes(raw, "big")})
            pages = 0
            for db in core.dbs.values():
                st = txn.stat(db)
                pages += st["branch_pages"] + st["leaf_pages"] + st["overflow_pages"]
            return {
                "rulesets": rulesets,
                "tree_pages": pages,
                "games": txn.stat(core.dbs["games"])["entries"],
                "index_entries": txn.stat(core.dbs["by_value"])["entries"],
                "schema_version": int(txn.get(b"schema_version", db=meta)),
                "engine_version": (txn.get(b"engine_version", db=meta) or b"").decode(),
            }

        result = core._read(read)
        info = core.env.info()
        psize = core.env.stat()["psize"]
        used = (info["last_pgno"] + 1) * psize
        tree = result.pop("tree_pages") * psize
        entries = sum(r["entries"] for r in result["rulesets"])
        data = self.path / "data.mdb"
        result.update(
            path=str(self.path),
            entries=entries,
            bytes=used,  # the file's high-water mark: data pages plus free pages awaiting reuse
            data_bytes=tree,  # pages of the B-trees: what a compacted copy (backup) needs
            file_bytes=data.stat().st_size if data.exists() else 0,
            map_size=info["map_size"],
            bytes_per_entry=(tree / entries) if entries else None,
            file_bytes_per_entry=(used / entries) if entries else None,
            buffered=len(core.buffer),
        )
        return result

    def backup(self, dest: str | os.PathLike[str]) -> Path:
        """A consistent, compacted copy of the store in ``dest`` (created; must be empty)."""
        core = self.core
        core.flush()
        target = Path(dest)
        if target.exists() and any(target.iterdir()):
            raise StoreError(f"backup destination {str(target)!r} is not empty")
        target.mkdir(parents=True, exist_ok=True)
        while True:
            try:
                with core.lock.shared():
                    core.env.copy(str(target), compact=True)
                return target
            except lmdb.MapResizedError:
                core._adopt()
