"""Bulk lookups and inserts of the LMDB store: the evaluator's compiled search asks about keys in
batches (``lookup_many``, when it has stopped expecting hits) and hands its values back in batches
of thousands (``insert_many``); the store serves each batch with one transaction.

``lookup_many(keys)`` answers like ``lookup`` for each key (buffered entries first), through one
read transaction and one pass of the resize gate.

A batch of at least ``BULK_DIRECT`` entries skips the insert buffer: it is sorted (so the B-tree
puts land next to each other) and written with ``Cursor.putmulti`` — the per-entry loop runs in
py-lmdb's C code — to ``positions`` and ``by_value``, with ``overwrite=False`` as in a flush, so
the first value stored under a key is kept and a key already present changes nothing (its
``by_value`` entry is the same key, so re-putting it is a no-op). Values are encoded by
``store_codec``; games are interned by ``GameTable`` exactly as in a flush. Smaller batches go
through the buffer like ``insert``.
"""

from __future__ import annotations

import bisect
import struct
from itertools import repeat
from operator import itemgetter
from typing import Any, Callable, Iterable, Sequence, TypeVar

import lmdb

from ruma.engine.cgt import Game
from ruma.server import store_codec as codec
from ruma.server.store_games import Value

T = TypeVar("T")

BULK_DIRECT = 1024
"""Batches at least this large are written directly, in their own transaction."""


class BulkOps:
    """``lookup_many`` and ``insert_many`` of the store's ``_Core`` (a mixin; the host provides the
    attributes below)."""

    dbs: dict[str, Any]
    max_key: int
    to_store: dict[int, int]
    from_store: dict[int, Game]
    generation: int
    _write: Callable[..., Any]
    _intern: Callable[..., int]
    insert: Callable[..., None]
    buffer: dict[bytes, tuple[Value, int]]
    flushing: dict[bytes, tuple[Value, int]]
    lock: Any
    _reader: Callable[[], Any]
    _adopt: Callable[[], None]
    decode: Callable[[Any, bytes], tuple[Value, int]]

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """The stored (or buffered) value of each key, ``None`` where there is none; a record that
        fails its checksum raises ``CorruptRecordError`` as in ``lookup`` (it is never served)."""
        found: list[Value | None] = [None] * len(keys)
        todo: list[int] = []
        buffer, flushing, max_key = self.buffer, self.flushing, self.max_key
        for i, key in enumerate(keys):
            hit = buffer.get(key) or flushing.get(key)
            if hit is not None:
                found[i] = hit[0]
            elif 3 <= len(key) <= max_key:  # (other keys are never stored, and LMDB refuses them)
                todo.append(i)
        if not todo:
            return found
        lock = self.lock
        while True:
            lock.enter()
            try:
                txn = self._reader()
                get, decode = txn.get, self.decode
                for i in todo:
                    key = keys[i]
                    raw = get(key)
                    if raw is not None:
                        found[i] = decode(txn, key, raw)[0]
                return found
            except lmdb.MapResizedError:
                pass
            finally:
                lock.leave()
            self._adopt()

    def insert_many(self, items: Iterable[tuple[bytes, Value]]) -> None:
        """Store many ``(key, value)`` pairs: directly when there are many, else through the buffer."""
        batch = sorted(items, key=itemgetter(0))  # (the compiled search hands its batches over sorted)
        if not batch:
            return
        keys = list(map(itemgetter(0), batch))
        # values tagged with their type: a number Game equals (and hashes like) its int, 0 == ZERO
        tagged = list(zip(map(type, map(itemgetter(1), batch)), map(itemgetter(1), batch)))
        distinct = set(tagged)
        for kind, value in distinct:  # a batch holds a handful of distinct values: check each once
            if kind is int:
                if value < 0:
                    raise TypeError(f"a nim value is never negative: {value!r}")
            elif kind is not Game:
                raise TypeError(f"a store value is a Game or a nim value (int), not {value!r}")
        if min(map(len, keys)) < 3 or max(map(len, keys)) > self.max_key:
            # a memo may forget: keys LMDB cannot hold are not stored
            kept = [i for i, k in enumerate(keys) if 3 <= len(k) <= self.max_key]
            keys, tagged = [keys[i] for i in kept], [tagged[i] for i in kept]
        if len(keys) < BULK_DIRECT:
            for key, (_, value) in zip(keys, tagged):
                self.insert(key, value)
            return
        made: dict[int, Game] = self._write(lambda txn: self._write_bulk(txn, keys, tagged, distinct))
        for sid, game in made.items():
            self.from_store.setdefault(sid, game)
            self.to_store.setdefault(game.id, sid)
        self.generation += 1  # cached read transactions renew: lookups see the commit

    def _write_bulk(self, txn: Any, keys: list[bytes], tagged: list[tuple[type, Value]],
                    distinct: set[tuple[type, Value]]) -> dict[int, Game]:
        """Write sorted, checked keys with their (type, value) pairs in ``txn``; returns the games
        interned (store id -> Game)."""
        pending: dict[int, int] = {}
        made: dict[int, Game] = {}
        next_id: list[int] = []
        known, intern, max_key = self.to_store, self._intern, self.max_key
        encodings: dict[tuple[type, Value], tuple[bytes, bytes]] = {}  # (encoded value, entry)
        for kind, value in distinct:
            if kind is int:
                number: int = value  # type: ignore[assignment]
                encodings[(kind, value)] = (codec.encode_value(False, number), codec.encode_entry(False, number, 0))
        if len(encodings) < len(distinct):  # games: interned in key order, as a flush does (same store ids)
            for kind, value in tagged:
                if (kind, value) not in encodings:
                    game: Game = value  # type: ignore[assignment]
                    sid = known.get(game.id)
                    if sid is None:
                        sid = intern(txn, game, pending, made, next_id)
                    encodings[(kind, value)] = (codec.encode_value(True, sid), codec.encode_entry(True, sid, 0))
        records = {tag: entry for tag, (_, entry) in encodings.items()}
        seal, checksum = codec.seal, codec.checksum
        put_positions = txn.cursor(db=self.dbs["positions"]).putmulti
        put_index = txn.cursor(db=self.dbs["by_value"]).putmulti
        counts: dict[bytes, int] = {}
        pack = _COMPLEXITY.pack
        start = 0
        while start < len(keys):  # one run of keys per ruleset prefix (the keys are sorted)
            prefix = keys[start][:2]
            following = (int.from_bytes(prefix, "big") + 1).to_bytes(3, "big")[-2:] if prefix != b"\xff\xff" else None
            end = len(keys) if following is None or keys[-1][:2] == prefix else bisect.bisect_left(keys, following, start)
            run = tagged[start:end]
            # positions: the pairs are built by map/zip inside putmulti's C loop
            run_keys = keys[start:end]
            _, added = put_positions(zip(run_keys, map(seal, run_keys, map(records.__getitem__, run))), overwrite=False)
            counts[prefix] = counts.get(prefix, 0) + added
            # by_value keys: codec.by_value_key, its common case (tag 0: one byte a pot) inline as in a
            # flush, where the total seeds are sum(key[3:]) = sum(key) - code - version
            heads = {tag: prefix + encoded for tag, (encoded, _) in encodings.items()}
            base = prefix[0] + prefix[1]
            pairs = list(zip(keys[start:end], run))
            index = [heads[t] + pack(sum(k) - base, len(k)) + k for k, t in pairs if k[2] == 0]
            if len(index) != len(pairs):
                index += [codec.by_value_key(k, encodings[t][0]) for k, t in pairs if k[2] != 0]
            if max(map(len, index), default=0) > max_key:
                index = [entry for entry in index if len(entry) <= max_key]
            index.sort()
            put_index(zip(index, map(checksum, index, repeat(b""))), overwrite=False)
            start = end
        add_counts(txn, self.dbs["meta"], counts)
        return made


_COMPLEXITY = struct.Struct(">IH")  # codec.complexity: total seeds (4 bytes), key length (2 bytes)


def add_counts(txn: Any, meta: Any, counts: dict[bytes, int]) -> None:
    """Add newly stored entries to the per-ruleset counts in ``meta`` (sealed records, see
    ``store_core``); the same for a flush and a bulk write."""
    from ruma.engine import ENGINE_VERSION
    from ruma.server.store_core import _COUNT, _RULESET, _ruleset_name

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
            txn.put(name_key, seal(name_key, _ruleset_name(prefix[0], prefix[1]).encode()), db=meta)
    if any(counts.values()):
        txn.put(b"engine_version", seal(b"engine_version", ENGINE_VERSION.encode()), db=meta)
