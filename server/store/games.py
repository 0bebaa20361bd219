"""Store game ids: interning ``Game``s into the store and rebuilding them (``ruma.server.store.memo``).

``Game.id`` is per process, so the store numbers games itself. ``GameTable`` (a mixin of the
store's ``_Core``) writes a game and its followers into ``games``/``game_index`` inside a write
transaction (looking the options up first, so every process agrees on every id) and rebuilds
games from their stored options; both directions are memoised. Both work on process game ids
(``option_ids``, ``canonical_id``): a ``Game`` object is made for a value read, never for the
followers of a game written or rebuilt.
"""

from __future__ import annotations

import sys
from array import array
from pathlib import Path
from typing import Any, Callable, Mapping

from ruma.engine.cgt import Game, Value
from ruma.engine.cgt.game import canonical_id, option_ids
from ruma.engine.frame import unpack_frame
from ruma.server.store import codec


class GameTable:
    """Interning and rebuilding of games; the host class provides the attributes below."""

    path: Path
    dbs: dict[str, Any]
    max_key: int
    to_store: dict[int, int]  # Game.id -> store id
    from_store: dict[int, int]  # store id -> Game.id

    def _remember_games(self, made: dict[int, int]) -> None:
        """Memoise the games a committed transaction interned (store id -> Game.id)."""
        for sid, gid in made.items():
            self.from_store.setdefault(sid, gid)
            self.to_store.setdefault(gid, sid)

    def _intern(self, txn: Any, game: Game, pending: dict[int, int], made: dict[int, int],
                next_id: list[int]) -> int:
        """The store id of ``game``, writing it and its followers into ``games`` if new (``made``:
        store id -> Game.id of each game written)."""
        known = self.to_store
        found = known.get(game.id)
        if found is None:
            found = pending.get(game.id)
        if found is not None:
            return found
        # Depth first over option ids (option_ids: no Game objects made): a game is written once
        # its options are (those missing are pushed above it, and it is looked at again).
        stack = [game.id]
        while stack:
            gid = stack[-1]
            if gid in known or gid in pending:
                stack.pop()
                continue
            left_ids, right_ids = option_ids(gid)
            missing = [i for i in left_ids + right_ids if i not in known and i not in pending]
            if missing:
                stack += missing
                continue
            stack.pop()
            left = [known[i] if i in known else pending[i] for i in left_ids]
            right = [known[i] if i in known else pending[i] for i in right_ids]
            sid = put_game(txn, self.dbs, self.max_key, self.path, left, right, next_id)
            pending[gid] = sid
            made[sid] = gid
        return pending[game.id]

    def game(self, txn: Any, store_id: int) -> Game:
        """The ``Game`` with ``store_id``, rebuilt from stored options (memoised per process)."""
        cache = self.from_store
        hit = cache.get(store_id)
        if hit is not None:
            return Game.by_id(hit)
        games = self.dbs["games"]

        def options_of(sid: int) -> tuple[list[int], list[int]]:
            gid = codec.encode_game_id(sid)
            raw = txn.get(gid, db=games)
            if raw is None:
                raise codec.CorruptRecordError("games", gid, f"game {sid} is named but not held")
            try:
                return codec.decode_options(codec.unseal("games", gid, raw))
            except codec.CodecError as error:
                raise codec.CorruptRecordError("games", gid, str(error)) from error

        return Game.by_id(rebuild_game(store_id, options_of, cache, self.to_store))

    def find_game(self, txn: Any, game: Game) -> int | None:
        """The store id of ``game`` without writing, or ``None`` if the store never held it."""
        return self._find(txn, game.id)

    def _find(self, txn: Any, gid: int) -> int | None:
        found = self.to_store.get(gid)
        if found is not None:
            return found
        ids = []
        for side in option_ids(gid):
            row = []
            for option in side:
                sid = self._find(txn, option)
                if sid is None:
                    return None
                row.append(sid)
            ids.append(row)
        options = codec.encode_options(ids[0], ids[1])
        ikey = codec.index_key(options, self.max_key)
        raw = txn.get(ikey, db=self.dbs["game_index"])
        return None if raw is None else codec.decode_game_id(codec.unseal("game_index", ikey, raw))

    def decode(self, txn: Any, key: bytes, raw: bytes) -> tuple[Value, int]:
        """The sealed ``positions`` record of ``key`` as ``(value, explored)``; a record that fails
        its checksum or does not decode raises ``CorruptRecordError`` (it is never served)."""
        try:
            is_game, number, explored = codec.decode_entry(codec.unseal("positions", key, raw))
        except codec.CodecError as error:
            raise codec.CorruptRecordError("positions", key, str(error)) from error
        return (self.game(txn, number) if is_game else number), explored

    # -- the memo ------------------------------------------------------------------------------



# (store/native.c: encode_options and seal in C, byte for byte)
_encode_options = codec.encode_options if codec.NATIVE is None else codec.NATIVE.encode_options
_seal = codec.seal if codec.NATIVE is None else codec.NATIVE.seal


def put_game(txn: Any, dbs: dict[str, Any], max_key: int, path: Path, left: list[int], right: list[int],
             next_id: list[int]) -> int:
    """The store id of the game whose options have the store ids ``left`` and ``right``, writing it
    into ``games`` and ``game_index`` in ``txn`` if the store lacks it (``next_id``: ``[]``, or the
    next free id as an earlier call of this transaction left it)."""
    options = _encode_options(left, right)
    games, index = dbs["games"], dbs["game_index"]
    ikey = options if len(options) < max_key and options[0] != 0xFF else codec.index_key(options, max_key)
    existing = txn.get(ikey, db=index)
    if existing is not None:
        record_id = codec.unseal("game_index", ikey, existing)
        sid = codec.decode_game_id(record_id)
        if ikey != options:
            stored = txn.get(record_id, db=games)
            if stored is None or codec.unseal("games", record_id, stored) != options:
                raise codec.StoreError(f"game index collision in {str(path)!r} for id {sid}")
        return sid
    if not next_id:
        with txn.cursor(db=games) as cursor:
            next_id.append(codec.decode_game_id(cursor.key()) + 1 if cursor.last() else 0)
    sid = next_id[0]
    next_id[0] += 1
    record_id = sid.to_bytes(codec.GAME_ID_BYTES, "big")  # (codec.encode_game_id)
    txn.put(record_id, _seal(record_id, options), db=games)
    txn.put(ikey, _seal(ikey, record_id), db=index)
    return sid


def put_exported(txn: Any, dbs: dict[str, Any], max_key: int, path: Path, records: bytes | memoryview,
                 ids: Mapping[int, int]) -> dict[int, int]:
    """Intern the nodes of a sweep's shared table given as ``SharedGames.export`` gives them
    (little-endian u32 words ``[shared id][nl][nr][options' shared ids]``, followers first) in
    ``txn``: returns ``shared id -> store id`` of each (``ids`` holds those of earlier exports;
    a node whose option is in neither is refused). What the store's C writer does for a sweep's
    shared frames (store/lmdb.c), in Python."""
    words = memoryview(records).cast("B").cast("I") if sys.byteorder == "little" else array("I", bytes(records))
    if sys.byteorder != "little":  # pragma: no cover - a big-endian machine
        words.byteswap()  # type: ignore[union-attr]
    made: dict[int, int] = {}
    next_id: list[int] = []
    at = 0
    while at < len(words):
        if at + 3 > len(words) or at + 3 + words[at + 1] + words[at + 2] > len(words):
            raise codec.CodecError(f"a shared node cut short at word {at} of {len(words)}")
        sid, nl, nr = words[at], words[at + 1], words[at + 2]
        try:
            options = [made[o] if o in made else ids[o] for o in words[at + 3:at + 3 + nl + nr]]
        except KeyError as missing:
            raise codec.CodecError(f"shared node {sid} names node {missing} that was never sent") from None
        made[sid] = put_game(txn, dbs, max_key, path, options[:nl], options[nl:], next_id)
        at += 3 + nl + nr
    return made


def shared_codes(txn: Any, dbs: dict[str, Any], max_key: int, path: Path, nodes: bytes | memoryview,
                 frame: bytes | memoryview, ids: Mapping[int, int]) -> tuple[list[bytes], list[int], dict[int, int]]:
    """A shared frame's ``nodes`` interned in ``txn`` (``put_exported``; ``ids``: the session's
    shared id -> store id so far) and its inner ``frame``'s keys with their values as the store's
    codes (``2s + 1`` for the game with store id ``s``); returns (keys, codes, the ids interned
    now). ``CodecError`` for a value that names a node never sent."""
    made = put_exported(txn, dbs, max_key, path, nodes, ids)
    keys, codes = unpack_frame(bytes(frame))
    try:
        return keys, [(made[s] if s in made else ids[s]) << 1 | 1 for s in (code >> 1 for code in codes)], made
    except KeyError as missing:
        raise codec.CodecError(f"a value names shared node {missing}, never sent") from None


def rebuild_game(store_id: int, options_of: Callable[[int], tuple[list[int], list[int]]], cache: dict[int, int],
                 ids: dict[int, int] | None = None) -> int:
    """The process game id (``Game.id``) of the game with ``store_id``, built from its options'
    store ids (``options_of(sid)``, which raises ``CorruptRecordError`` for a game it cannot give),
    followers first, without recursion and with no ``Game`` object made; every game built goes
    into ``cache`` (store id -> Game.id) and ``ids`` (Game.id -> store id). An option that is not
    older than its game is damage (ids are given in order)."""
    decoded: dict[int, tuple[list[int], list[int]]] = {}
    stack = [store_id]
    while stack:
        sid = stack[-1]
        if sid in cache:
            stack.pop()
            continue
        opts = decoded.get(sid)
        if opts is None:
            opts = decoded[sid] = options_of(sid)
            if any(i >= sid for i in opts[0] + opts[1]):
                raise codec.CorruptRecordError("games", codec.encode_game_id(sid), f"game {sid} names a game not older")
        missing = [i for i in opts[0] + opts[1] if i not in cache]
        if missing:
            stack.extend(missing)
            continue
        made = canonical_id([cache[i] for i in opts[0]], [cache[i] for i in opts[1]])
        cache[sid] = made
        if ids is not None:
            ids.setdefault(made, sid)
        stack.pop()
    return cache[store_id]
