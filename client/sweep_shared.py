"""Sweeps on this machine's cores through one table of values in shared memory.

The worker processes of a local sweep (``LocalProcesses``) value an impartial family with the
compiled engine through a ``SharedValues`` table (``engine/native/shared.c``) mapped into every
process: a worker publishes each nim value the moment its search finds it and reads what the
others published before it searches a position. Dependencies between positions are then
resolved per position, as they arise, and no cell order is needed. The driver drains the table
into the store (only the driver writes); the only work done twice is a position two workers
searched at the same moment. (The packets of ``sweep_values`` remain the way between machines,
and the way for partizan values, whose canonical forms live in each process's own table of
games.)

Two ways in: ``run_family`` (a family swept into a local store: each worker enumerates the whole
family itself — the compiled walk, at the same time in every worker instead of before any of
them starts — then values blocks of ``BLOCK`` classes it claims from a counter in the table, in
the family's order, smallest first) and ``run_shared`` (classes the driver has already: handed
out in shards).

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
from dataclasses import dataclass
from typing import Any, Callable

from ruma.client.sweep_worker import Result, Task, open_store
from ruma.engine.evaluator import value_many
from ruma.engine.family_enum import Family, enumerate_states, raw_count
from ruma.engine.rulesets.base import State
from ruma.engine.sweep_values import Packet, RecordingMemo, pack, unpack

#: the header of a SharedValues table (shared.c)
HEADER = 128
#: seconds between two drains of the table into the store
DRAIN_EVERY = 0.1


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
    bytes (prefix included): slots at most half full, records of (value, length, body) words."""
    slots = 1024
    while slots < 2 * entries:
        slots *= 2
    words = 1 + (1 + max(0, key_length - 2) + 3) // 4
    return HEADER + slots * 8 + entries * words * 4, slots


def new_table(rules: Any, entries: int, key_length: int) -> tuple[SharedRegion, Any] | None:
    """A region and a fresh SharedValues table in it for about ``entries`` keys of up to
    ``key_length`` bytes, or ``None`` when the compiled engine does not value this ruleset or the
    memory is not there."""
    native = getattr(type(rules), "native", None)
    if not rules.impartial or native is None:
        return None
    from ruma.engine.native import _core

    size, slots = table_layout(entries, key_length)
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


#: classes a worker claims at a time (``run_family``): small enough that the two workers stay
#: close in the family's order (a class the other worker is valuing at that moment is searched
#: twice), large enough that a claim and a search cost little beside the valuing
BLOCK = 1024


@dataclass(frozen=True)
class FamilyTask:
    """A worker's part of ``run_family``: the family, the table's path, the local store to read
    when the sweep resumes (else ``None``), classes per claim."""

    family: Family
    path: str
    store_path: str | None
    block: int = BLOCK


@dataclass(frozen=True)
class FamilyResult:
    """What one worker of ``run_family`` did: the family's classes and raw positions (its own
    enumeration), the classes it found stored and valued, positions computed, the values the
    table had no room for (a packet), its seconds and CPU seconds."""

    classes: int
    raw_positions: int
    already_stored: int
    classes_valued: int
    computed: int
    spilled: Packet
    seconds: float
    cpu_seconds: float


def value_family_part(task: FamilyTask) -> FamilyResult:
    """(In a worker.) Enumerate the family, then value the blocks of its classes claimed from the
    table's counter until there are none left (or the sweep is cancelled)."""
    started, cpu = time.perf_counter(), time.process_time()
    rules = task.family.rules
    region, table = attach_table(task.path, rules)
    store = open_store(task.store_path, create=False) if task.store_path else None
    memo = RecordingMemo()
    memo.shared = table
    try:
        states, keys, raw = enumerate_states(task.family, lambda: bool(table.stats()["cancelled"]))
        table.set_total(len(states))
        stored = valued = computed = 0
        spilled: list[tuple[bytes, Any]] = []
        while True:
            first = table.claim(task.block)
            if not 0 <= first < len(states):
                break
            block = states[first:first + task.block]
            if store is not None:  # (a resumed sweep: what is stored is skipped)
                found = store.lookup_many(keys[first:first + task.block])
                block = [state for state, value in zip(block, found) if value is None]
                stored += len(found) - len(block)
            computed += value_many(rules, block, memo)
            valued += len(block)
            new = memo.take()
            if table.stats()["full"]:  # values the table may not hold: sent back
                spilled += new
            else:
                memo.entries.clear()  # (all in the table: the search reads them there)
        return FamilyResult(len(states), raw, stored, valued, computed, pack(spilled),
                            time.perf_counter() - started, time.process_time() - cpu)
    finally:
        memo.shared = None
        del table
        region.close()
        if store is not None:
            store.close()


@dataclass
class FamilySweep:
    """What ``run_family`` found and did (fields of ``SweepSummary``)."""

    classes: int
    raw_positions: int
    already_stored: int
    classes_valued: int
    positions_valued: int
    entries_committed: int
    worker_cpu_seconds: float


def run_family(family: Family, sink: Any, backend: Any, progress: Callable[[int, int, int], None] | None,
               resumed: bool) -> FamilySweep | None:
    """Sweep ``family`` into the local store of ``sink`` on the backend's processes, each
    enumerating the family and valuing the blocks it claims (module docstring); ``resumed``: the
    store holds positions of the ruleset (the workers then skip the classes it holds). ``None``
    when no table can be made."""
    rules = family.rules
    # a family has about raw / 8 classes (7.7 at 11 and at 13 seeds): room for twice that, keys
    # of up to a byte a pot and a few more (a table out of room sends the rest back in packets)
    made = new_table(rules, raw_count(family) // 4 + 4096, family.pots_max + 8)
    if made is None:
        return None
    region, table = made
    task = FamilyTask(family, region.path, sink.store_path if resumed else None)
    drained = committed = 0
    running: list["futures.Future[FamilyResult]"] = []
    try:
        running += [backend.call(slot, value_family_part, task) for slot in range(backend.slots)]
        while True:
            done, _ = futures.wait(running, timeout=DRAIN_EVERY, return_when=futures.FIRST_EXCEPTION)
            entries, drained = table.drain(drained)
            if entries:
                sink.put(entries)
                committed += len(entries)
            if any(f.exception() is not None for f in done):
                raise next(f.exception() for f in done if f.exception() is not None)  # type: ignore[misc]
            if progress is not None:
                stats = table.stats()
                progress(min(stats["claimed"], stats["total"]), stats["total"], stats["entries"])
            if len(done) == len(running):
                break
        results = [f.result() for f in running]
        entries, drained = table.drain(drained)  # (every worker is done: every value is published)
        sink.put(entries)
        committed += len(entries)
        spilled: dict[bytes, Any] = {}
        for result in results:  # values the table ran out of room for (those not in it)
            spilled.update((k, v) for k, v in unpack(result.spilled, True) if table.get(k) is None)
        sink.put(sorted(spilled.items()))
        first = results[0]
        stored = sum(r.already_stored for r in results)
        return FamilySweep(first.classes, first.raw_positions, stored, first.classes - stored,
                           sum(r.computed for r in results), committed + len(spilled),
                           sum(r.cpu_seconds for r in results))
    finally:
        table.cancel()  # (workers still running stop at their next claim: an error, or Ctrl-C)
        for future in running:
            try:
                future.result()
            except BaseException:  # noqa: BLE001 - the first error is the one raised
                pass
        del table
        region.close()
        region.unlink()


def run_shared(rules: Any, todo: list[State], keys: list[bytes], sink: Any, backend: Any, shard_seconds: float,
               progress: Callable[[int, int, int], None] | None, store_path: str | None,
               sweep_id: str) -> tuple[int, int, float] | None:
    """Value ``todo`` on the backend's local processes through a shared table (module docstring);
    returns (positions computed, entries committed, worker CPU seconds), or ``None`` when no
    table can be made (the caller sweeps the packet way)."""
    # a sweep values about one position per class: room for twice that
    made = new_table(rules, 2 * len(todo) + 4096, max(map(len, keys), default=2))
    if made is None:
        return None
    region, table = made
    try:
        return _drive(rules, todo, sink, backend, shard_seconds, progress, store_path, sweep_id, region.path, table)
    finally:
        del table
        region.close()
        region.unlink()


DEPTH = 2  # shards queued on each worker slot (run_shared)


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
