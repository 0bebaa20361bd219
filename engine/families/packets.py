"""What a sweep worker does, and how values travel between processes.

A worker values a *shard* (a list of canonical states of one ruleset) with ``evaluator.value_many`` through
its own ``RecordingMemo``: a dict that remembers which entries the worker computed itself, so that
only those go back to the driver, and that can learn entries computed elsewhere (other workers'
results, forwarded by the driver) and consult a read-only ``fallback`` (a store the worker may
read but never writes). Nothing here depends on how the evaluator computes: a compiled engine
behind the same ``Memo`` interface is used as is.

Values cross process (and machine) boundaries as a ``Packet``: ``(keys, values, nodes)``. For an
impartial ruleset ``values`` holds the nim values; for a partizan one, indices into ``nodes``, a
table of canonical forms in topological order. Shared sub-games are sent once per packet. Two
forms of ``nodes``:

* ``pack``/``unpack`` (the ``Upload`` RPC's, whose messages list them): each node is ``(left
  option indices, right option indices)`` into the nodes before it, rebuilt with
  ``Game.from_options``;
* ``pack_wire``/``unpack_wire`` (what sweep workers send, over Ray or between local processes):
  the compact bytes of ``ruma.engine.cgt.game_bytes`` (varints, a checksum), made and checked on
  arrival by the compiled kernel with the compiled engine, with no ``Game`` object per node.

Packets are plain tuples of bytes and ints: any serialiser (pickle, Ray, protobuf) carries them.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence, Union

from ruma.engine.cgt import Game, Value
from ruma.engine.cgt.game_bytes import pack_games, unpack_games

__all__ = ["Entry", "Packet", "WirePacket", "RecordingMemo", "pack", "unpack", "pack_wire", "unpack_wire"]

Entry = tuple[bytes, Value]
Node = tuple[tuple[int, ...], tuple[int, ...]]
Packet = tuple[list[bytes], list[int], list[Node]]
WirePacket = tuple[list[bytes], list[int], bytes]
Lookup = Callable[[bytes], Union[Value, None]]
LookupMany = Callable[[Sequence[bytes]], Sequence[Union[Value, None]]]


class RecordingMemo:
    """A ``Memo`` in a dict that records the entries inserted into it (``take`` hands them over).

    ``learn`` adds entries computed elsewhere without recording them; ``fallback`` is consulted
    on a miss (its hits are cached, not recorded). ``shared``, when set, is a sweep's table of
    values in shared memory (``native._core.SharedValues``): the compiled search reads it before
    searching a position and publishes every value it finds there; ``insert`` publishes too. For
    a partizan ruleset its values are ids of the sweep's games in shared memory,
    ``shared_games`` (``native._core.SharedGames``).
    """

    def __init__(self, fallback: Lookup | None = None, fallback_many: LookupMany | None = None) -> None:
        self.entries: dict[bytes, Value] = {}
        self.new: list[Entry] = []
        self.fallback = fallback
        self.fallback_many = fallback_many
        self.shared: Any = None
        self.shared_games: Any = None

    def lookup(self, key: bytes) -> Value | None:
        """The known value of ``key``: learned, computed here, or from the fallback."""
        value = self.entries.get(key)
        if value is None and self.fallback is not None:
            value = self.fallback(key)
            if value is not None:
                self.entries[key] = value
        return value

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """``lookup`` of every key, asking the fallback once for all the keys not known here."""
        entries = self.entries
        found = [entries.get(key) for key in keys]
        if self.fallback is None:
            return found
        missing = [i for i, value in enumerate(found) if value is None]
        if missing:
            asked = [keys[i] for i in missing]
            many = self.fallback_many
            got = many(asked) if many is not None else [self.fallback(key) for key in asked]
            for i, key, value in zip(missing, asked, got):
                if value is not None:
                    found[i] = entries[key] = value
        return found

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Record a value computed here (a key already known is not recorded again)."""
        if key not in self.entries:
            self.entries[key] = value
            self.new.append((key, value))
            if self.shared is not None:
                self._publish(key, value)

    def _publish(self, key: bytes, value: Value) -> None:
        if isinstance(value, Game):
            shared_id = self.shared_games.publish(value.id)
            if shared_id is not None:  # (None: the games table is full; the value stays recorded here)
                self.shared.add(key, shared_id)
        else:
            self.shared.add(key, value)

    def insert_many(self, items: Iterable[Entry]) -> None:
        """``insert`` of every ``(key, value)`` pair."""
        entries, new = self.entries, self.new
        for key, value in items:
            if key not in entries:
                entries[key] = value
                new.append((key, value))

    def direct_entries(self) -> tuple[dict[bytes, Value], list[Entry] | None] | None:
        """``entries`` and ``new`` when no fallback is consulted (``lookup`` is then ``entries.get``,
        and ``insert_many`` puts new keys in ``entries`` and ``new``: the compiled search does so
        itself); ``None`` otherwise, and for a subclass."""
        if type(self) is RecordingMemo and self.fallback is None and self.fallback_many is None:
            return self.entries, self.new
        return None

    def learn(self, entries: Iterable[Entry]) -> None:
        """Know values computed elsewhere (not recorded)."""
        known = self.entries
        for key, value in entries:
            known.setdefault(key, value)

    def take(self) -> list[Entry]:
        """The entries computed here since the last ``take``. (``new`` stays the same list
        object, emptied: the compiled search appends to it directly — ``native.search``.)"""
        new = self.new[:]
        self.new.clear()
        return new

    def __len__(self) -> int:
        return len(self.entries)


def pack(entries: Sequence[Entry]) -> Packet:
    """Entries as a ``Packet`` (see the module docstring)."""
    keys = [key for key, _ in entries]
    nodes: list[Node] = []
    index: dict[int, int] = {}  # Game.id -> node index
    values: list[int] = []
    for _, value in entries:
        if isinstance(value, Game):
            values.append(_node(value, nodes, index))
        else:
            values.append(value)
    return keys, values, nodes


def _node(game: Game, nodes: list[Node], index: dict[int, int]) -> int:
    """The node index of ``game``, adding it and its unseen followers (options first)."""
    found = index.get(game.id)
    if found is not None:
        return found
    stack: list[Game] = [game]
    while stack:
        g = stack[-1]
        if g.id in index:
            stack.pop()
            continue
        lefts, rights = g.left_options, g.right_options
        missing = [o for o in (*lefts, *rights) if o.id not in index]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        index[g.id] = len(nodes)
        nodes.append((tuple(index[o.id] for o in lefts), tuple(index[o.id] for o in rights)))
    return index[game.id]


def unpack(packet: Packet, impartial: bool) -> list[Entry]:
    """The entries of a ``Packet``; raises ``ValueError`` on a malformed one."""
    keys, values, nodes = packet
    if len(keys) != len(values):
        raise ValueError(f"packet of {len(keys)} keys and {len(values)} values")
    if impartial:
        if nodes:
            raise ValueError("an impartial packet carries no games")
        for v in values:
            if type(v) is not int or v < 0:
                raise ValueError(f"a nim value is a non-negative int, not {v!r}")
        return list(zip(keys, values))
    games: list[Game] = []
    from_options = Game.from_options
    for lefts, rights in nodes:
        n = len(games)
        if any(not 0 <= i < n for i in (*lefts, *rights)):
            raise ValueError(f"game node {len(games)} names a node that is not before it")
        games.append(from_options([games[i] for i in lefts], [games[i] for i in rights]))
    out: list[Entry] = []
    for key, v in zip(keys, values):
        if type(v) is not int or not 0 <= v < len(games):
            raise ValueError(f"value index {v!r} is not a game node of the packet")
        out.append((key, games[v]))
    return out


def pack_wire(entries: Sequence[Entry]) -> WirePacket:
    """Entries as a ``WirePacket``: nim values as they are, games as node indices into the
    ``ruma.engine.cgt.game_bytes`` bytes of their canonical forms (``b""`` when there is none)."""
    keys = [key for key, _ in entries]
    games = {value.id: value for _, value in entries if isinstance(value, Game)}
    if not games:
        return keys, [value for _, value in entries if not isinstance(value, Game)], b""
    data, at = pack_games(list(games))
    node = dict(zip(games, at))
    return keys, [node[value.id] if isinstance(value, Game) else value for _, value in entries], data


def unpack_wire(packet: WirePacket, impartial: bool) -> list[Entry]:
    """The entries of a ``WirePacket``; raises ``ValueError`` on a malformed or damaged one."""
    keys, values, data = packet
    if len(keys) != len(values):
        raise ValueError(f"packet of {len(keys)} keys and {len(values)} values")
    if impartial or not data:
        if data:
            raise ValueError("an impartial packet carries no games")
        if not impartial and values:
            raise ValueError("a partizan packet carries its games")
        for v in values:
            if type(v) is not int or v < 0:
                raise ValueError(f"a nim value is a non-negative int, not {v!r}")
        return list(zip(keys, values))
    ids = unpack_games(data)
    out: list[Entry] = []
    by_id = Game.by_id
    for key, v in zip(keys, values):
        if type(v) is not int or not 0 <= v < len(ids):
            raise ValueError(f"value index {v!r} is not a game node of the packet")
        out.append((key, by_id(ids[v])))
    return out
