"""Store game ids: interning ``Game``s into the store and rebuilding them (``ruma.server.store.memo``).

``Game.id`` is per process, so the store numbers games itself. ``GameTable`` (a mixin of the
store's ``_Core``) writes a game and its followers into ``games``/``game_index`` inside a write
transaction (looking the options up first, so every process agrees on every id) and rebuilds
games from their stored options with ``Game.from_options``; both directions are memoised.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Union

from ruma.engine.cgt import Game
from ruma.server.store import codec

Value = Union[Game, int]


class GameTable:
    """Interning and rebuilding of games; the host class provides the attributes below."""

    path: Path
    dbs: dict[str, Any]
    max_key: int
    to_store: dict[int, int]  # Game.id -> store id
    from_store: dict[int, Game]  # store id -> Game

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
        native = codec.NATIVE  # (store/native.c: encode_options and seal in C, byte for byte)
        encode_options = codec.encode_options if native is None else native.encode_options
        seal = codec.seal if native is None else native.seal
        get, put, max_key, by_id = txn.get, txn.put, self.max_key, Game.by_id
        # Depth first over option ids (Game.left_ids/right_ids: no Game objects or tuples made,
        # which would also set off the cyclic collector over every Game of the process); a game
        # is pushed as its id, then again as ~id once its options are on the stack above it.
        stack = [game.id]
        while stack:
            gid = stack.pop()
            ready = gid < 0
            if ready:
                gid = ~gid
            if gid in known or gid in pending:
                continue
            g = by_id(gid)
            if not ready:
                stack.append(~gid)
                stack += [i for i in g.left_ids if i not in known and i not in pending]
                stack += [i for i in g.right_ids if i not in known and i not in pending]
                continue
            left = [known[i] if i in known else pending[i] for i in g.left_ids]
            right = [known[i] if i in known else pending[i] for i in g.right_ids]
            options = encode_options(left, right)
            ikey = options if len(options) < max_key and options[0] != 0xFF else codec.index_key(options, max_key)
            existing = get(ikey, db=index)
            if existing is not None:
                record_id = codec.unseal("game_index", ikey, existing)
                sid = codec.decode_game_id(record_id)
                if ikey != options:
                    stored = get(record_id, db=games)
                    if stored is None or codec.unseal("games", record_id, stored) != options:
                        raise codec.StoreError(f"game index collision in {str(self.path)!r} for id {sid}")
            else:
                if not next_id:
                    with txn.cursor(db=games) as cursor:
                        next_id.append(codec.decode_game_id(cursor.key()) + 1 if cursor.last() else 0)
                sid = next_id[0]
                next_id[0] += 1
                record_id = sid.to_bytes(codec.GAME_ID_BYTES, "big")  # (codec.encode_game_id)
                put(record_id, seal(record_id, options), db=games)
                put(ikey, seal(ikey, record_id), db=index)
            pending[gid] = sid
            made[sid] = g
        return pending[game.id]

    def game(self, txn: Any, store_id: int) -> Game:
        """The ``Game`` with ``store_id``, rebuilt from stored options (memoised per process)."""
        cache = self.from_store
        hit = cache.get(store_id)
        if hit is not None:
            return hit
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

        return rebuild_game(store_id, options_of, cache, self.to_store)

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



def rebuild_game(store_id: int, options_of: Callable[[int], tuple[list[int], list[int]]], cache: dict[int, Game],
                 ids: dict[int, int] | None = None) -> Game:
    """The game with ``store_id`` built from its options' store ids (``options_of(sid)``, which
    raises ``CorruptRecordError`` for a game it cannot give), followers first, without recursion;
    every game built goes into ``cache`` (store id -> Game) and ``ids`` (Game.id -> store id). An
    option that is not older than its game is damage (ids are given in order)."""
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
        g = Game.from_options([cache[i] for i in opts[0]], [cache[i] for i in opts[1]])
        cache[sid] = g
        if ids is not None:
            ids.setdefault(g.id, sid)
        stack.pop()
    return cache[store_id]
