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
from typing import Any

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


def table_layout(entries: int, key_length: int) -> tuple[int, int]:
    """``(bytes, slots)`` of a SharedValues table for ``entries`` keys of up to ``key_length``
    bytes (prefix included): slots at most half full, records of (value, length, body) words,
    and the words the arena's chunks leave unused (shared.c: a chunk is 1/64 of the arena and
    128 words or more; up to 4 processes each leave the rest of their last one, and every chunk
    a tail too short for a record)."""
    slots = 1024
    while slots < 2 * entries:
        slots *= 2
    words = 1 + (1 + max(0, key_length - 2) + 3) // 4
    arena = entries * words
    arena += arena // 12 + arena * (words - 1) // 128 + 4 * 128
    return HEADER + slots * 8 + -(-arena * 4 // 64) * 64, slots  # (whole cache lines: tables follow)


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


def new_table(rules: Any, size: int, slots: int, set_size: int = 0, set_slots: int = 0,
              games_room: int = 0) -> tuple[SharedRegion, Any, Any, Any] | None:
    """A region holding a fresh SharedValues table of ``size`` bytes and ``slots`` slots (see
    ``table_layout``), after it, when ``set_size`` is given, a second one used as a set of keys
    (else ``None``), and for a partizan ruleset, last, a SharedGames table for the canonical
    forms of ``games_room`` values (``games_layout``; else ``None``); ``None`` when the compiled
    engine does not value this ruleset or the memory is not there."""
    if not can_share(rules):
        return None
    from ruma.engine.native import _core

    native = type(rules).native
    games_size, games_slots = games_layout(games_room) if not rules.impartial else (0, 0)
    region = SharedRegion.create(size + set_size + games_size)
    if region is None:
        return None
    view = memoryview(region.map)
    table = _core.SharedValues(view[:size], native.code, native.version, slots)
    keys = _core.SharedValues(view[size:size + set_size], native.code, native.version, set_slots) if set_size else None
    games = _core.SharedGames(view[size + set_size:], games_slots) if games_size else None
    return region, table, keys, games


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
