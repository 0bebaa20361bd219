"""The memory a sweep's processes on this machine share, and the SharedValues tables in it.

``SharedRegion`` is a file in ``/dev/shm`` (tmpfs; the system's temporary directory where there is
none) with its size reserved up front by ``posix_fallocate``, so that a full tmpfs is an error at
the start (the sweep then goes the packet way) and never a ``SIGBUS`` in a worker. The tables are
``engine/native/shared.c``'s ``SharedValues``: one of values, optionally a second one after it used
as a set of keys (see ``ruma.client.sweep.shared``), and for a partizan ruleset, last, the
``SharedGames`` whose node ids the values are (``engine/native/shared_games.c``).
"""

from __future__ import annotations

import mmap
import os
import tempfile
from typing import Any, NamedTuple

#: the header of a SharedValues table (shared.c)
HEADER = 128


class SharedRegion:
    """A file mapped into memory, shared by this machine's processes by its path."""

    def __init__(self, path: str, fd: int, size: int) -> None:
        self.path, self.fd, self.size = path, fd, size
        self.map = mmap.mmap(fd, size)

    @classmethod
    def create(cls, size: int) -> "SharedRegion | None":
        """A new zeroed region of ``size`` bytes, or ``None`` when the memory cannot be reserved."""
        directory = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
        fd, path = tempfile.mkstemp(prefix="ruma-sweep-", dir=directory)
        try:
            os.posix_fallocate(fd, 0, size)
            region = cls(path, fd, size)
        except (OSError, ValueError):
            os.close(fd)
            os.unlink(path)
            return None
        # Where the system names open files (Linux), the other processes open the file through
        # this process's descriptor and its name goes at once: nothing is left in /dev/shm even
        # when this process is killed (a sweep killed with SIGKILL leaked its table before).
        named = f"/proc/{os.getpid()}/fd/{fd}"
        if os.path.exists(named):
            os.unlink(path)
            region.path = named
        return region

    @classmethod
    def attach(cls, path: str) -> "SharedRegion":
        """The region another process created at ``path``."""
        fd = os.open(path, os.O_RDWR)
        return cls(path, fd, os.fstat(fd).st_size)

    def close(self) -> None:
        """Unmap (once no table uses the memory any more) and close the file."""
        try:
            self.map.close()
        except BufferError:  # a table still holds it: unmapped when that goes
            pass
        os.close(self.fd)

    def unlink(self) -> None:
        """Remove the file (the memory goes when the last process unmaps it; a name under /proc
        is gone already)."""
        if self.path.startswith("/proc/"):
            return
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class Layout(NamedTuple):
    """The bytes of a SharedValues table, its general slots and its packed slots (shared.c)."""

    size: int
    slots: int
    packed: int


#: the longest row a packed key holds (table.h's TABLE_PACKED_POTS)
PACKED_POTS = 16


def packable(body: bytes) -> bool:
    """Whether a key body (the key without its two-byte prefix) goes to a table's packed part:
    0x00, then 1..16 pots, the first nonzero, each 0..14 or 255 (table.h's ``table_pack``)."""
    return (2 <= len(body) <= PACKED_POTS + 1 and body[0] == 0 and body[1] != 0
            and all(b < 15 or b == 255 for b in body[1:]))


def table_layout(entries: int, key_length: int, packable_share: float = 0.0) -> Layout:
    """The layout of a SharedValues table for ``entries`` keys of up to ``key_length`` bytes
    (prefix included), ``packable_share`` of them packable (``packable``): general slots at most
    half full, with records of (value, length, body) words; packed slots of 16 bytes at most 3/4
    full (the table's limit), each with a one-word log record; the general part keeps room for a
    sixteenth more keys when most are packable (rows with larger counts). Plus the words the
    arena's chunks leave unused (shared.c: a chunk is 1/64 of the arena and 128 words or more;
    up to 4 processes each leave the rest of their last one, and every chunk a tail too short for
    a record)."""
    packed_keys = int(entries * packable_share)
    general = entries - packed_keys + (entries // 16 + 1024 if packed_keys else 0)
    slots = 1024
    while slots < 2 * general:
        slots *= 2
    packed = 0
    if packed_keys:
        packed = 1024
        while 3 * packed < 4 * packed_keys:
            packed *= 2
    words = 1 + (1 + max(0, key_length - 2) + 3) // 4
    arena = general * words + packed_keys
    arena += arena // 12 + arena * (words - 1) // 128 + 4 * 128
    return Layout(HEADER + slots * 8 + packed * 16 + -(-arena * 4 // 64) * 64, slots, packed)  # (whole cache lines)


def family_layout(entries: int, pots_max: int) -> Layout:
    """``table_layout`` for the keys of a family's rows of up to ``pots_max`` pots (packable when
    they fit a packed key)."""
    return table_layout(entries, pots_max + 8, 1.0 if pots_max <= PACKED_POTS else 0.0)


def keys_layout(entries: int, keys: list[bytes], key_length: int | None = None) -> Layout:
    """``table_layout`` for ``entries`` keys like ``keys`` (of up to ``key_length`` bytes: by
    default the longest of them)."""
    sample = keys[:: max(1, len(keys) // 4096)]  # (an even sample: a sweep's lists are millions long)
    share = sum(packable(k[2:]) for k in sample) / len(sample) if sample else 0.0
    return table_layout(entries, key_length or max(map(len, keys), default=2), share)


#: canonical forms a SharedGames table has room for, per value (a sweep of Sowing <= 12 seeds
#: publishes 0.20 a class, <= 10 seeds 0.17; Atomic Wari <= 12 0.006)
GAMES_PER_VALUE = 1 / 3


def games_layout(entries: int) -> tuple[int, int]:
    """``(bytes, slots)`` of a SharedGames table for the canonical forms of ``entries`` partizan
    values (``GAMES_PER_VALUE`` a value; a table out of room sends the rest in packets): slots at
    most half full, records of 7 words and their options (9.5 words a node in all for Sowing
    <= 12), and the chunks' unused tails."""
    nodes = int(entries * GAMES_PER_VALUE) + 4096
    slots = 1024
    while slots < 2 * nodes:
        slots *= 2
    words = nodes * 11 + 64 * 8192
    return HEADER + slots * 8 + -(-words * 4 // 64) * 64, slots


def can_share(rules: Any) -> bool:
    """Whether a sweep of ``rules`` can go through a SharedValues table: a ruleset valued by the
    compiled engine (nim values, or the ids of a SharedGames table for a partizan one)."""
    return getattr(type(rules), "native", None) is not None


def new_table(rules: Any, values: Layout, keys: Layout | None = None,
              games_room: int = 0) -> tuple[SharedRegion, Any, Any, Any] | None:
    """A region holding a fresh SharedValues table laid out as ``values`` (``table_layout``),
    after it, when ``keys`` is given, a second one used as a set of keys (else ``None``), and for
    a partizan ruleset, last, a SharedGames table for the canonical forms of ``games_room`` values
    (``games_layout``; else ``None``); ``None`` when the compiled engine does not value this
    ruleset or the memory is not there."""
    if not can_share(rules):
        return None
    from ruma.engine.native import _core

    native = type(rules).native
    size, set_size = values.size, keys.size if keys is not None else 0
    games_size, games_slots = games_layout(games_room) if not rules.impartial else (0, 0)
    region = SharedRegion.create(size + set_size + games_size)
    if region is None:
        return None
    view = memoryview(region.map)
    table = _core.SharedValues(view[:size], native.code, native.version, values.slots, values.packed)
    seen = (_core.SharedValues(view[size:size + set_size], native.code, native.version, keys.slots, keys.packed)
            if keys is not None else None)
    games = _core.SharedGames(view[size + set_size:], games_slots) if games_size else None
    return region, table, seen, games


def attach_tables(path: str, set_offset: int, rules: Any, games_offset: int = 0) -> tuple[SharedRegion, Any, Any, Any]:
    """A worker's view of the sweep's region at ``path``: its table of values, from
    ``set_offset`` on its set of keys (``None`` when ``set_offset`` is 0: no set), and from
    ``games_offset`` on its SharedGames (``None`` when 0: an impartial ruleset)."""
    from ruma.engine.native import _core

    native = type(rules).native
    region = SharedRegion.attach(path)
    view = memoryview(region.map)
    end = games_offset or len(view)
    games = _core.SharedGames(view[games_offset:]) if games_offset else None
    if not set_offset:
        return region, _core.SharedValues(view[:end], native.code, native.version), None, games
    return (region, _core.SharedValues(view[:set_offset], native.code, native.version),
            _core.SharedValues(view[set_offset:end], native.code, native.version), games)
