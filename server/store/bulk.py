"""Bulk lookups and inserts of the LMDB store: the evaluator's compiled search asks about keys in
batches (``lookup_many``, when it has stopped expecting hits) and hands its values back in batches
of thousands (``insert_many``); the store serves each batch with one transaction.

``lookup_many(keys)`` answers like ``lookup`` for each key (buffered entries and batches still with
the writer first), through one read transaction and one pass of the resize gate.

A batch of at least ``BULK_DIRECT`` entries skips the insert buffer: it is sorted (so the B-tree
puts land next to each other) and written with ``Cursor.putmulti`` — the per-entry loop runs in
py-lmdb's C code — to ``positions``, with ``overwrite=False`` as in a flush, so the first value
stored under a key is kept and a key already present changes nothing. Values are encoded by
``store.codec``; games are interned by ``GameTable`` exactly as in a flush. Smaller batches go
through the buffer like ``insert``. With the compiled record builder (``store/native.c``), a
large batch is checked here (its new games interned) and written by the store's writer process
(``store.writer``) while the caller goes on; ``flush`` waits for it.
"""

from __future__ import annotations

import bisect
import sys
import threading
from operator import itemgetter
from typing import Any, Callable, Iterable, Sequence, TypeVar

import lmdb

from ruma.engine.cgt import Game, Value
from ruma.engine.frame import frame_codes, frame_count, frame_lengths, pack_shared
from ruma.engine.memo import new_compact_memo
from ruma.engine.rulesets.base import PLUGIN_CODE, key_prefix_of
from ruma.server.store import codec
from ruma.server.store.writer import find_in, unpack_nim

T = TypeVar("T")

BULK_DIRECT = 1024
"""Batches at least this large are written directly, in their own transaction."""

WRITER_MIN = BULK_DIRECT
"""A batch at least this large starts the store's writer process (``store.writer``; the compiled
search hands its batches over mid-search, 16,384 values first and up to 32,768, and the rest at
the end of each evaluation). Its start-up (a Python process importing the store: about 0.1 s) runs
on the other core while the batches wait in its pipe (or, when the pipe has no room for them, are
written in line), and a child not up yet when the store closes is ended then and what waited for
it written in line: starting it early costs this process nothing."""

RECENT_LIMIT = 1 << 21
"""Entries of the bulk batches this process stored that ``recent`` keeps (a search that puts its
values there itself, ``insert_packed``, stops at as many: ``CACHE_LIMIT`` in search_memo.c): a ``CompactMemo``
(about 30 bytes an entry, so some 64 MB at most; no Python object an entry, so nothing for the
cyclic collector to walk — a dict of them cost a cold evaluation of impartial Sowing 0.2 s), or
``None`` without the compiled engine. The compiled search reads it in C before it asks
``lookup_many`` (``RecentMemo``: ``ruma.engine.memo.capabilities``), so a position valued by an earlier
evaluation of this process costs a table lookup, not a store call. (``lookup``/``lookup_many``
themselves never answer from it: they read the database, and a damaged record raises there.)"""


class BulkOps:
    """``lookup_many`` and ``insert_many`` of the store's ``_Core`` (a mixin; the host provides the
    attributes below)."""

    dbs: dict[str, Any]
    max_key: int
    to_store: dict[int, int]
    from_store: dict[int, int]
    generation: int
    _write: Callable[..., Any]
    _intern: Callable[..., int]
    _remember_games: Callable[[dict[int, int]], None]
    insert: Callable[..., None]
    buffer: dict[bytes, tuple[Value, int]]
    flushing: dict[bytes, tuple[Value, int]]
    lock: Any
    buffer_lock: Any
    use_writer: bool
    writer: Any
    recent: Any  # a CompactMemo, or None
    #: (writer, session) of the last shared frame sent (``insert_shared``)
    _shared_sent: tuple[Any, int] | None = None
    _bulk_writer: Callable[[], Any]
    _reader: Callable[[], Any]
    _adopt: Callable[[], None]
    decode: Callable[[Any, bytes, bytes], tuple[Value, int]]
    damaged_read: Callable[[bytes, Exception], Any]
    tls: Any

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """The stored (or buffered) value of each key, ``None`` where there is none; a record that
        fails its checksum raises ``CorruptRecordError`` as in ``lookup`` (it is never served)."""
        buffer, flushing, max_key = self.buffer, self.flushing, self.max_key
        writer = self.writer
        jobs = writer.snapshot() if writer is not None and writer.pending else None  # (before the reads)
        if not buffer and not flushing and keys and min(map(len, keys)) >= 3 and max(map(len, keys)) <= max_key:
            return self._read_many(keys, jobs)  # (the compiled search's batches: nothing buffered, every key valid)
        found: list[Value | None] = [None] * len(keys)
        todo = []
        for i, key in enumerate(keys):
            hit = buffer.get(key) or flushing.get(key)
            if hit is not None:
                found[i] = hit[0]
            elif 3 <= len(key) <= max_key:  # (other keys are never stored, and LMDB refuses them)
                todo.append(i)
        if todo:
            for i, value in zip(todo, self._read_many([keys[i] for i in todo], jobs)):
                found[i] = value
        return found

    def _read_many(self, keys: Sequence[bytes], jobs: Any) -> list[Value | None]:
        """The stored values of valid keys through one read transaction, else their values in the
        writer's batches ``jobs`` (a snapshot taken before the read), else ``None``."""
        lock = self.lock
        while True:
            lock.enter()
            try:
                txn = self._reader()
                found: list[Any] = list(map(txn.get, keys))  # (one C loop: most are misses)
                if self.tls.marks:  # unverified uploads read as misses (``store.provenance``)
                    marks = self.dbs["unverified"]
                    found = [None if raw is not None and txn.get(key, db=marks) is not None else raw
                             for key, raw in zip(keys, found)]
                misses = found.count(None)
                if misses == len(found) and not jobs:
                    return found
                if _NATIVE is not None and misses < len(found):  # nim values decoded (and checked) in C
                    found = _NATIVE.decode_nim_records(keys if type(keys) is list else list(keys), found)
                decode = self.decode
                for i, raw in enumerate(found):
                    if raw is None:
                        if jobs:  # a batch the writer has not committed yet (store.writer.snapshot)
                            found[i] = find_in(jobs, keys[i])
                    elif type(raw) is bytes:
                        found[i] = decode(txn, keys[i], raw)[0]
                return found
            except lmdb.MapResizedError:
                pass
            except lmdb.Error as error:  # a damaged page: the caller asks key by key (``lookup``)
                raise self.damaged_read(keys[0] if len(keys) == 1 else b"", error) from error
            finally:
                lock.leave()
            self._adopt()

    def insert_many(self, items: Iterable[tuple[bytes, Value]]) -> None:
        """Store many ``(key, value)`` pairs: directly when there are many, else through the buffer."""
        keys, values, shortest, longest = _split(items)
        if not keys:
            return
        if len(keys) >= BULK_DIRECT and 3 <= shortest and longest <= self.max_key and self._send(keys, values):
            self._remember(keys, values)
            return
        # the distinct value *objects*, in key order, by identity (hashing a Game is Python code;
        # Games are interned, so one object per value, and 0 is never confused with ZERO; two int
        # objects of one number merely share an encoding)
        distinct = dict(zip(map(id, values), values))
        for value in distinct.values():  # a batch holds a handful of distinct values: check each once
            kind = type(value)
            if kind is int:
                if value < 0:
                    raise TypeError(f"a nim value is never negative: {value!r}")
            elif kind is not Game:
                raise TypeError(f"a store value is a Game or a nim value (int), not {value!r}")
        if shortest < 3 or longest > self.max_key:
            # a memo may forget: keys LMDB cannot hold are not stored
            kept = [i for i, k in enumerate(keys) if 3 <= len(k) <= self.max_key]
            keys, values = [keys[i] for i in kept], [values[i] for i in kept]
        if len(keys) < BULK_DIRECT:
            for key, value in zip(keys, values):
                self.insert(key, value)
            return
        self.write_batch(keys, values, distinct)
        self._remember(keys, values)

    def insert_packed(self, frame: bytes, cache: Any = None, remember: bool = True) -> None:
        """``insert_many`` of a batch of nim values as a batch frame (``ruma.engine.frame``; keys
        sorted; what the compiled search hands over for an impartial ruleset: ``search_memo.c``,
        ``pack_pending``). A batch the writer process takes goes to it as these bytes, with no
        Python object an entry; any other (small, a key LMDB cannot hold, no writer) is unpacked
        and takes ``insert_many``'s way. ``cache``: the ``CompactMemo`` the search put the values
        in already (this store's ``recent`` when the search began), which also answers this
        process's lookups of them until their commit is visible; without it they are remembered
        here as ``insert_many`` does, unless ``remember`` is false (a sweep's drains: no search
        of this process reads them back)."""
        if self._packed_count(frame) >= BULK_DIRECT:
            writer = self._bulk_writer()
            lookup = None if cache is None else cache.lookup
            if writer is not None and writer.accepts(len(frame)) and writer.submit_packed(frame, lookup):
                if cache is None and remember:
                    self._remember(*unpack_nim(frame))
                elif self.recent is not None and len(self.recent) > RECENT_LIMIT:
                    self.recent = new_compact_memo()  # (the search keeps the one it has)
                return
        keys, values = unpack_nim(frame)
        self.insert_many(list(zip(keys, values)))

    def insert_shared(self, frame: bytes, games: Any, session: int) -> None:
        """Store a drain of a sweep's partizan table: ``frame`` packed as
        ``SharedValues.drain_packed`` packs it, codes ``2s`` for the node with shared id ``s`` of
        ``games`` (the sweep's ``SharedGames``; ``session``: a number of the caller's, one per
        table, below 2^64). Where the store's writer process takes it, the frame goes to it with
        the nodes its values need that the writer was not sent yet (``SharedGames.export``;
        ``ruma.engine.frame.pack_shared``): the writer interns them and writes the positions in one
        transaction, so this process makes no ``Game`` and interns nothing (until committed, its
        values are not seen by this process's lookups; a frame the writer fails raises at the
        next ``flush``). Elsewhere — the writer off, not up with no room, gone, the pure-Python
        engine, keys LMDB cannot hold — the values become ``Game``s and take ``insert_many``'s way."""
        if not self._send_shared(frame, games, session):
            keys, ids = unpack_nim(frame)  # (codes 2s: the shared ids s)
            self.insert_many(games.games(list(zip(keys, ids))))

    def _packed_count(self, frame: bytes) -> int:
        """The entries of a batch frame (``ruma.engine.frame``) that the writer process may be
        handed as it is — it runs, with the compiled record builder, and every key is one LMDB
        holds — or 0."""
        count = frame_count(frame)
        if not count or not _LITTLE or _NATIVE is None or not self.use_writer:
            return 0
        raw = bytes(frame_lengths(frame, count))
        if not raw[1::2].strip(b"\0") and self.max_key >= 255:  # (every key shorter than 256 bytes: their
            # low bytes alone, checked at C speed — a sweep's drain of impartial Sowing <= 13 is 2.6
            # million keys, whose min and max in Python took 0.1 s of the driver)
            return 0 if raw[0::2].translate(None, _LONG_ENOUGH) else count
        lengths = memoryview(raw).cast("H")
        return count if 3 <= min(lengths) and max(lengths) <= self.max_key else 0

    def _send_shared(self, frame: bytes, games: Any, session: int) -> bool:
        count = self._packed_count(frame)
        if not count or (self.writer is None and count < WRITER_MIN):
            return False
        writer = self._bulk_writer()
        if writer is None or not writer.accepts(len(frame)):
            return False
        with _SHARED_LOCK:  # (what was sent in which session, and the order frames go in, agree)
            if self._shared_sent != (writer, session):
                games.forget()  # (a new writer, or a new table: every node its values need is sent)
                self._shared_sent = (writer, session)
            nodes = games.export(frame_codes(frame, count))
            if not writer.submit_shared(pack_shared(session, nodes, frame)):
                self._shared_sent = None
                return False
        return True

    def _remember(self, keys: list[bytes], values: Sequence[Value]) -> None:
        """Keep a bulk batch's checked values in ``recent`` (a fresh one first when it would pass
        ``RECENT_LIMIT``: a cache of what this process stored lately, never the store's truth)."""
        recent = self.recent
        if recent is None or len(recent) + len(keys) > RECENT_LIMIT:
            # made at the first bulk batch (none in the writer process, nor in a process that only
            # reads); a search under way keeps the old one
            self.recent = recent = new_compact_memo()
            if recent is None:  # (no compiled engine: no search reads it)
                return
        recent.insert_many(zip(keys, values))

    def _send(self, keys: list[bytes], values: list[Value]) -> bool:
        """Hand a sorted batch with valid keys to the store's writer process (``store.writer``),
        starting it for a batch of at least ``WRITER_MIN``: values go as their codes in the store,
        so the batch's new games are interned here first, in their own transaction (committed
        before the positions that name them). ``False`` when the batch is to be written here: no
        compiled record builder (``RUMA_ENGINE=python`` keeps the reference path), the writer
        off, not up yet with no room in its pipe, failed or gone, or a value that is not a store
        value (the caller's checks raise)."""
        if _NATIVE is None or not self.use_writer or (self.writer is None and len(keys) < WRITER_MIN):
            return False
        if any(key[0] == PLUGIN_CODE for key in keys):
            return False  # (the writer process counts entries by two-byte prefixes: an installed ruleset's go here)
        writer = self._bulk_writer()  # (started by the first large batch)
        if writer is None:
            return False
        frame = _NATIVE.pack_batch(keys, values, None)
        if frame is None:  # games (or values the checks refuse)
            distinct = dict(zip(map(id, values), values))
            if not all(type(v) is Game or (type(v) is int and 0 <= v < 1 << 63) for v in distinct.values()):
                return False
            frame = _NATIVE.pack_batch(keys, values, self._game_codes(distinct))
            if frame is None:
                return False
        if not writer.accepts(len(frame)):  # (while it starts, only what the pipe holds)
            return False
        return bool(writer.submit(keys, values, frame))

    def _game_codes(self, distinct: dict[int, Value]) -> dict[int, int]:
        """``id(game) -> 2 * store id + 1`` of the games among ``distinct`` (in key order), interning
        the new ones in one transaction, as a bulk write would."""
        known = self.to_store
        new = [v for v in distinct.values() if type(v) is Game and v.id not in known]
        if new:
            def intern_all(txn: Any) -> dict[int, int]:
                pending: dict[int, int] = {}
                made: dict[int, int] = {}
                next_id: list[int] = []
                for game in new:
                    self._intern(txn, game, pending, made, next_id)
                return made

            self._remember_games(self._write(intern_all))
            self.generation += 1
        return {ident: known[v.id] << 1 | 1 for ident, v in distinct.items() if type(v) is Game}

    def write_batch(self, keys: list[bytes], values: list[Value], distinct: dict[int, Value]) -> None:
        """Write a checked batch in one transaction (keys sorted; ``distinct``: the values by ``id``,
        in key order) and make the commit visible to this process's lookups."""
        self._remember_games(self._write(lambda txn: self._write_bulk(txn, keys, values, distinct)))
        self.generation += 1  # cached read transactions renew: lookups see the commit

    def give_back(self, keys: list[bytes], values: list[Value]) -> None:
        """Put a batch the writer failed to write into the insert buffer (a later flush writes it)."""
        with self.buffer_lock:
            buffer = self.buffer
            for key, value in zip(keys, values):
                buffer.setdefault(key, (value, 0))

    def _write_bulk(self, txn: Any, keys: list[bytes], values: list[Value], distinct: dict[int, Value]) -> dict[int, int]:
        """Write sorted, checked keys with their values in ``txn`` (``distinct``: the values by
        ``id``, in key order); returns the games interned (store id -> Game.id)."""
        pending: dict[int, int] = {}
        made: dict[int, int] = {}
        next_id: list[int] = []
        known, intern = self.to_store, self._intern
        entry_bytes: dict[int, bytes] = {}  # id(value) -> positions payload (value, explored 0)
        varint = codec.encode_varint
        for ident, value in distinct.items():  # in key order: games get the store ids a flush gives
            if type(value) is int:
                raw: int = value << 1  # (codec.encode_value(False, value), inline)
            else:
                game: Game = value  # type: ignore[assignment]
                sid = known.get(game.id)
                if sid is None:
                    sid = intern(txn, game, pending, made, next_id)
                raw = sid << 1 | 1  # (codec.encode_value(True, sid))
            entry_bytes[ident] = (bytes((raw,)) if raw < 0x80 else varint(raw)) + b"\x00"  # (explored 0)
        self._put_records(txn, keys, list(map(entry_bytes.__getitem__, map(id, values))))
        return made

    def write_codes(self, txn: Any, keys: list[bytes], codes: list[int]) -> None:
        """Write sorted, checked keys with their values given as codes in the store (``2n`` for the
        nim value ``n``, ``2s + 1`` for the game with store id ``s``, already stored) in ``txn``:
        the store's writer process (``store.writer``) writes the batches it is sent so."""
        varint = codec.encode_varint
        entry_bytes = {code: (bytes((code,)) if code < 0x80 else varint(code)) + b"\x00" for code in set(codes)}  # (explored 0)
        self._put_records(txn, keys, list(map(entry_bytes.__getitem__, codes)))

    def _put_records(self, txn: Any, keys: list[bytes], entries: list[bytes]) -> None:
        """Put the ``positions`` records of sorted keys with their payloads (``overwrite=False``),
        and add the new entries to the counts."""
        put_positions = txn.cursor(db=self.dbs["positions"]).putmulti
        counts: dict[bytes, int] = {}
        start = 0
        while start < len(keys):  # one run of keys per ruleset prefix (the keys are sorted)
            prefix = key_prefix_of(keys[start])
            following = _following(prefix)
            end = len(keys) if following is None or keys[-1].startswith(prefix) else bisect.bisect_left(
                keys, following, start)
            _, added = put_positions(_sealed_positions(keys[start:end], entries[start:end]), overwrite=False)
            counts[prefix] = counts.get(prefix, 0) + added
            start = end
        add_counts(txn, self.dbs["meta"], counts)


def _following(prefix: bytes) -> bytes | None:
    """The least bytes past every key that starts with ``prefix`` (``None``: no such bytes)."""
    kept = prefix.rstrip(b"\xff")
    return kept[:-1] + bytes((kept[-1] + 1,)) if kept else None


_SHARED_LOCK = threading.Lock()  # (``insert_shared``: two sweeps' threads on one store take turns)
_NATIVE = codec.NATIVE  # the compiled record builder (store/native.c), or None
_LONG_ENOUGH = bytes(range(3, 256))  # (the key lengths LMDB holds, below 256: deleted, what is left is too short)
_LITTLE = sys.byteorder == "little"  # (a packed batch's u16 key lengths read in place)



def _split(items: Iterable[tuple[bytes, Value]]) -> tuple[list[bytes], list[Value], int, int]:
    """The keys and values of a batch, sorted by key, with the shortest and longest key's length
    (in C when built: one pass, no sorting when the batch comes sorted, as the search's do)."""
    if _NATIVE is not None:
        batch = items if type(items) is list else list(items)
        split = _NATIVE.split_batch(batch)
        if split is not None and split[2]:
            keys, values, _, shortest, longest = split
            return keys, values, shortest, longest
        items = batch
    batch = sorted(items, key=itemgetter(0))
    keys = list(map(itemgetter(0), batch))
    return keys, list(map(itemgetter(1), batch)), min(map(len, keys), default=0), max(map(len, keys), default=0)


def _sealed_positions(keys: list[bytes], entries: list[bytes]) -> Iterable[tuple[bytes, bytes]]:
    """``(key, sealed record)`` of each position (``store.codec.seal``; in C when built)."""
    if _NATIVE is not None:
        return _NATIVE.seal_positions(keys, entries)  # type: ignore[no-any-return]
    return zip(keys, map(codec.seal, keys, entries))


def add_counts(txn: Any, meta: Any, counts: dict[bytes, int]) -> None:
    """Add newly stored entries to the per-ruleset counts in ``meta`` (sealed records, see
    ``store.core``); the same for a flush and a bulk write."""
    from ruma.engine import ENGINE_VERSION
    from ruma.server.store.core import _COUNT, _RULESET, _ruleset_name

    seal = codec.seal
    for prefix, added in counts.items():
        if not added:
            continue
        count_key = _COUNT + prefix
        old = txn.get(count_key, db=meta)
        total = added + (int.from_bytes(codec.unseal("meta", count_key, old), "big") if old else 0)
        txn.put(count_key, seal(count_key, total.to_bytes(8, "big")), db=meta)
        if old is None:
            name_key = _RULESET + prefix
            txn.put(name_key, seal(name_key, _ruleset_name(prefix).encode()), db=meta)
    if any(counts.values()):
        txn.put(b"engine_version", seal(b"engine_version", ENGINE_VERSION.encode()), db=meta)
