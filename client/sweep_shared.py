"""Sweeps on this machine's cores through one table of values in shared memory.

The worker processes of a local sweep (``LocalProcesses``) value an impartial family with the
compiled engine through a ``SharedValues`` table (``engine/native/shared.c``) mapped into every
process: a worker publishes each nim value the moment its search finds it and reads what the
others published before it searches a position. Dependencies between positions are then
resolved per position, as they arise, and the driver needs no cell order: it hands the classes
out in shards in the family's order (smallest first), and drains the table into the store
(only the driver writes). The only work done twice is a position two workers searched at the same
moment. (The packets of ``sweep_values`` remain the way between machines, and the way for
partizan values, whose canonical forms live in each process's own table of games.)

``SharedRegion`` is the memory: a file in ``/dev/shm`` (tmpfs; the system's temporary directory
where there is none) with its size reserved up front by ``posix_fallocate``, so that a full tmpfs
is an error at the start (the sweep then goes the packet way) and never a ``SIGBUS`` in a worker.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import time
from concurrent import futures
from typing import Any, Callable

from ruma.client.sweep_worker import Result, Task
from ruma.engine.rulesets.base import State
from ruma.engine.sweep_values import unpack

#: the header of a SharedValues table (shared.c)
HEADER = 64


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
            return cls(path, fd, size)
        except (OSError, ValueError):
            os.close(fd)
            os.unlink(path)
            return None

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
        """Remove the file (the memory goes when the last process unmaps it)."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def table_layout(entries: int, key_length: int) -> tuple[int, int]:
    """``(bytes, slots)`` of a SharedValues table for ``entries`` keys of up to ``key_length``
    bytes (prefix included): slots at most half full, records of (value, length, body) words."""
    slots = 1024
    while slots < 2 * entries:
        slots *= 2
    words = 1 + (1 + max(0, key_length - 2) + 3) // 4
    return HEADER + slots * 8 + entries * words * 4, slots


def new_table(rules: Any, todo: list[State], keys: list[bytes]) -> tuple[SharedRegion, Any] | None:
    """A region and a fresh SharedValues table in it for sweeping ``todo`` (their ``keys``), or
    ``None`` when the compiled engine does not value this ruleset or the memory is not there."""
    native = getattr(type(rules), "native", None)
    if not rules.impartial or native is None:
        return None
    from ruma.engine.native import _core

    # a sweep values about one position per class; room for twice that (a full table only sends
    # the rest the packet way)
    size, slots = table_layout(2 * len(todo) + 4096, max(map(len, keys), default=2))
    region = SharedRegion.create(size)
    if region is None:
        return None
    return region, _core.SharedValues(region.map, native.code, native.version, slots)


def attach_table(path: str, rules: Any) -> tuple[SharedRegion, Any]:
    """A worker's view of the sweep's table at ``path``."""
    from ruma.engine.native import _core

    native = type(rules).native
    region = SharedRegion.attach(path)
    return region, _core.SharedValues(region.map, native.code, native.version)


def run_shared(rules: Any, todo: list[State], keys: list[bytes], sink: Any, backend: Any, shard_seconds: float,
               progress: Callable[[int, int, int], None] | None, store_path: str | None,
               sweep_id: str) -> tuple[int, int, float] | None:
    """Value ``todo`` on the backend's local processes through a shared table (module docstring);
    returns (positions computed, entries committed, worker CPU seconds), or ``None`` when no
    table can be made (the caller sweeps the packet way)."""
    made = new_table(rules, todo, keys)
    if made is None:
        return None
    region, table = made
    try:
        return _drive(rules, todo, sink, backend, shard_seconds, progress, store_path, sweep_id, region.path, table)
    finally:
        del table
        region.close()
        region.unlink()


DEPTH = 2  # shards queued on each worker slot
DRAIN_EVERY = 0.25  # seconds between two drains of the table into the store


def _drive(rules: Any, todo: list[State], sink: Any, backend: Any, shard_seconds: float,
           progress: Callable[[int, int, int], None] | None, store_path: str | None, sweep_id: str,
           path: str, table: Any) -> tuple[int, int, float]:
    running: dict["futures.Future[Result]", tuple[int, int]] = {}
    idle = [slot for _ in range(DEPTH) for slot in range(backend.slots)]
    at = 0  # the next class to hand out
    drained = 0  # the table's arena word the next drain starts at
    target, done, computed, committed, cpu = 64, 0, 0, 0, 0.0
    last_drain = time.monotonic()
    spilled_keys: set[bytes] = set()

    def submit() -> None:
        nonlocal at
        while idle and at < len(todo):
            slot = idle.pop(0)
            shard = todo[at:at + target]
            at += len(shard)
            task = Task(sweep_id, rules.name, shard, [], store_path, path)
            running[backend.submit(slot, task)] = (slot, len(shard))

    def drain() -> int:
        nonlocal drained
        entries, drained = table.drain(drained)
        if entries:
            sink.put(entries)
        return len(entries)

    submit()
    while running:
        # (woken every DRAIN_EVERY seconds too: the store takes the values while the workers work)
        finished, _ = futures.wait(list(running), timeout=DRAIN_EVERY, return_when=futures.FIRST_COMPLETED)
        for future in finished:
            slot, size = running.pop(future)
            result = future.result()
            idle.append(slot)
            done += size
            computed += result.computed
            cpu += result.cpu_seconds
            if result.packet[0]:  # the table ran out of room: the shard's values (those not in it)
                spilled = [(k, v) for k, v in unpack(result.packet, rules.impartial)
                           if k not in spilled_keys and table.get(k) is None]
                spilled_keys.update(k for k, _ in spilled)
                sink.put(spilled)
                committed += len(spilled)
            if result.seconds > 0:  # aim at shard_seconds per shard, growing by 2x at most
                target = max(16, min(target * 2, int(size * shard_seconds / result.seconds) or 1, 100_000))
        submit()
        if time.monotonic() - last_drain >= DRAIN_EVERY:
            committed += drain()
            last_drain = time.monotonic()
        if progress is not None:
            progress(done, len(todo), computed)
    committed += drain()  # (every worker is done: every value is published)
    return computed, committed, cpu
