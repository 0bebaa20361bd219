"""Sweeps on this machine's cores through one table of values in shared memory.

The worker processes of a local sweep (``LocalProcesses``) value a family with the compiled
engine through a ``SharedValues`` table (``engine/native/shared.c``) mapped into every process: a
worker publishes each value the moment its search finds it and reads what the others published
before it searches a position. Dependencies between positions are then resolved per position, as
they arise, and no cell order is needed. The driver drains the table into the store (only the
driver writes); the only work done twice is a position two workers searched at the same moment.
A partizan value is published as the id of its canonical form in a ``SharedGames`` table in the
same memory (``engine/native/shared_games.c``): each process translates between its own game ids
and the shared ones, so a canonical form found by one worker is read by the others (and the
driver) without being canonicalised again. (The packets of ``families.packets`` remain the way
between machines.)

Three ways in:

- ``run_family`` (``ruma sweep`` into a local store, 2+ workers): worker ``k`` of ``n`` walks its
  own part of the family (every ``n``-th group of rows of the compiled walk, ``Rules.classes``), so the
  enumeration is shared too instead of done by the driver before any worker starts, and values
  its classes in the family's order, smallest first, ``BLOCK`` at a time; the two parts advance
  together through the order, so a follower the other part holds is usually published already.
  A second table in the same memory, used as a set of class keys, gives a class with rows in two
  parts (Sowing's full pots) to the part that adds it first.
- ``run_family_inline`` (``--workers 1``): the same in the driver's own process, the table in
  its memory; drained (sorted in C) into the store while it values on.
- ``run_shared``: classes the driver has enumerated already (a census sweeping what its store
  lacks, the tables' generator), handed to every worker, which claim blocks of them from a
  counter in the table.

The memory and the tables in it: ``ruma.client.sweep.shared_memory``.
"""

from __future__ import annotations

import os
import time
from concurrent import futures
from dataclasses import dataclass
from itertools import repeat
from typing import Any, Callable, Iterator

from ruma.client.sweep.runs import OwnDrains
from ruma.client.sweep.shared_memory import attach_tables, family_layout, keys_layout, new_table
from ruma.client.sweep.summary import SweepSummary
from ruma.engine.evaluator import value_many
from ruma.engine.families.classes import ClassRows, Family, enumerate_rows, enumerate_states, raw_count
from ruma.engine.families.packets import RecordingMemo, WirePacket, pack_wire, unpack_wire
from ruma.engine.frame import frame_count
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import State
from ruma.engine.stores import open_store

#: seconds between two looks at the workers (failures, progress) of a sweep through a shared table
DRAIN_EVERY = 0.1
#: seconds from the start of a sweep through a shared table to its first commit into the store (a
#: run, for an impartial sweep closed densely: ``StoreSink.hold_packed``); the time to each next
#: commit doubles, up to ``COMMIT_MOST`` (each commit of a partizan sweep is one transaction of the
#: store's writer process spread over the whole key space: Sowing <= 12 at 2 workers cost the
#: writer 1.1-1.3 s of CPU with a commit every 0.1 s, 0.6-0.9 s every 2 s, 0.4-0.6 s in one).
#: What a killed sweep loses is what it valued since its last commit: at most ``COMMIT_MOST`` s.
COMMIT_FIRST = 0.25
#: the longest time between two commits of a sweep through a shared table
COMMIT_MOST = 8.0


#: seconds between two drains into the store of a sweep in the driver's own process (each drain
#: is a bulk write the store's writer process takes on while the driver values on; the last one
#: is written after the valuing ends: at 0.5 s the sweep of impartial Sowing <= 12 waited
#: 0.2-0.25 s for it, at 0.2 s 0.03 s)
INLINE_DRAIN_EVERY = 0.2
#: room in the values table of ``run_family``, in estimated classes of the family
VALUES_ROOM = 2.0
#: classes a worker's walk hands to the set of class keys at a time (``value_family_part``)
OWN_BLOCK = 65_536
#: classes a worker values with one search before it checks for cancellation and reports progress
BLOCK = 1024


@dataclass(frozen=True)
class FamilyTask:
    """A worker's share of a sweep through a shared table: the ruleset; the region's path and
    where its set of class keys starts (0: none); the local store to read (a resumed sweep), or
    ``None``; what to value — part ``part`` of ``parts`` of ``family``, which the worker walks
    itself, or the classes ``states`` (their ``keys``) the driver has, in blocks that every
    worker claims from the table's counter; classes per search; where the region's SharedGames
    starts (0: none, an impartial ruleset); ``runs``: the folder where the worker writes the values
    it published as runs of its own (``sweep.runs``: the driver then drains nothing), or ``None``;
    ``session``: the table's number, which a partizan sweep's runs carry (``drain_into``);
    ``interner``: what a partizan sweep's worker interns its drains' games with and the store's
    directory (``StoreSink.shared_interner``), or ``None`` (its runs then carry their nodes)."""

    ruleset: str
    path: str
    set_offset: int
    store_path: str | None
    family: Family | None = None
    part: int = 0
    parts: int = 1
    states: list[State] | None = None
    keys: list[bytes] | None = None
    block: int = BLOCK
    games_offset: int = 0
    runs: str | None = None
    session: int = 0
    interner: tuple[Callable[[str], Any], str] | None = None


@dataclass(frozen=True)
class FamilyResult:
    """What one worker did: the classes of its part (those no other part had first) and the raw
    positions of its part (0 for classes handed over), the classes it found stored, positions
    computed, the values the tables had no room for (a packet), its CPU seconds, the entries it
    wrote as runs of its own (``FamilyTask.runs``)."""

    classes: int
    raw_positions: int
    already_stored: int
    computed: int
    spilled: WirePacket
    cpu_seconds: float
    drained: int = 0


def value_blocks(rules: Any, states: list[State] | ClassRows, keys: list[bytes], table: Any, store: Any | None,
                 between: Callable[[], None] | None = None, block: int = BLOCK,
                 claimed: bool = False, games: Any = None) -> tuple[int, int, list[Any]]:
    """Value ``states`` (a list, with its ``keys``, read only with a ``store``; or a ``ClassRows``,
    which gives both a block at a time) ``block`` at a time with one search each, through the
    shared ``table`` (every value is published there), until done or the table is cancelled: in
    order, or (``claimed``) the blocks this process claims from the table's counter, the
    other processes claiming the rest. ``between()`` runs after each block. With a ``store`` (a
    resumed sweep: it holds part of the family) the classes it holds are skipped and the
    searches read it for followers the table lacks. ``games``: the sweep's SharedGames (a partizan
    ruleset). Returns (classes stored, positions computed, the values the tables had no room for)."""
    memo = RecordingMemo(store.lookup, store.lookup_many) if store is not None else RecordingMemo()
    memo.shared, memo.shared_games = table, games
    stored = computed = 0
    spilled: list[tuple[bytes, Any]] = []

    def firsts() -> Iterator[int]:
        if claimed:
            while 0 <= (first := table.claim(block)) < len(states):  # (-1 once cancelled)
                yield first
        else:
            for first in range(0, len(states), block):
                if table.claim(min(block, len(states) - first)) < 0:  # (counted for progress)
                    return
                yield first

    try:
        for first in firsts():
            if isinstance(states, ClassRows):
                part, part_keys = states.block(first, block)
            else:
                part, part_keys = states[first:first + block], keys[first:first + block]
            if store is not None:
                known = store.lookup_many(part_keys)
                part = [state for state, value in zip(part, known) if value is None]
                stored += len(known) - len(part)
            computed += value_many(rules, part, memo)
            new = memo.take()
            if table.stats()["full"] or (games is not None and games.stats()["full"]):  # kept to be sent
                spilled += new
            else:
                memo.entries.clear()  # (all in the table: the search reads them there)
            if between is not None:
                between()
    finally:
        memo.shared = memo.shared_games = None
        table.seal()  # (the drain passes this process's chunk of the table only once it is sealed)
    return stored, computed, spilled


def value_family_part(task: FamilyTask) -> FamilyResult:
    """(In a worker.) Walk this worker's part of the family, or take the classes handed over,
    and value them (``value_blocks``)."""
    cpu = time.process_time()
    rules = get_ruleset(task.ruleset)
    region, table, classes_seen, games = attach_tables(task.path, task.set_offset, rules, task.games_offset)
    store = open_store(task.store_path, create=False) if task.store_path else None
    own: OwnDrains | None = None
    # (a resumed sweep's worker reads the store through its own environment: LMDB allows one)
    interner = task.interner[0](task.interner[1]) if task.interner and games is not None and store is None else None
    try:
        states: list[State] | ClassRows
        keys: list[bytes] = []
        if task.family is None:
            states, keys, raw = task.states or [], task.keys or [], 0
        else:
            cancelled = lambda: bool(table.stats()["cancelled"])  # noqa: E731, F821 (deleted only after the last call)
            # A class reached by rows of two parts (Sowing's full pots) is the part's that adds its
            # key first: the other drops it, so each class is counted, skipped or valued by one part.
            rows = enumerate_rows(task.family, cancelled, task.part, task.parts)  # (packed: ~20 bytes a class)
            if rows is not None:
                raw = rows.raw
                if classes_seen is not None:
                    owned = bytearray()
                    for first in range(0, len(rows), OWN_BLOCK):
                        owned.extend(map(classes_seen.add, rows.keys(first, OWN_BLOCK), repeat(0)))
                    rows.keep(owned)
                states = rows
            else:  # (no compiled walk: lists of states and keys)
                states, keys, raw = enumerate_states(task.family, cancelled, task.part, task.parts)
                if classes_seen is not None:
                    mine = list(map(classes_seen.add, keys, repeat(0)))
                    if not all(mine):
                        states = [state for state, kept in zip(states, mine) if kept]
                        keys = [key for key, kept in zip(keys, mine) if kept]
            table.add_total(len(states))
        own = OwnDrains(table, task.runs, COMMIT_FIRST, COMMIT_MOST, games, task.session, interner) if task.runs else None
        stored, computed, spilled = value_blocks(rules, states, keys, table, store, None if own is None else own.when_due,
                                                 block=task.block, claimed=task.family is None, games=games)
        if own is not None:
            own.drain()  # (the rest: the table is sealed, no search of this process holds a claim)
        return FamilyResult(len(states), raw, stored, computed, pack_wire(spilled), time.process_time() - cpu,
                            0 if own is None else own.entries)
    finally:
        del table, classes_seen, games, own
        region.close()
        if store is not None:
            store.close()
        if interner is not None:
            interner.close()


def run_family(family: Family, sink: Any, backend: Any, progress: Callable[[int, int, int], None] | None,
               resumed: bool) -> SweepSummary | None:
    """Sweep ``family`` into the local store of ``sink`` on the backend's processes, each walking
    its part of the family and valuing its classes (module docstring); ``resumed``: the store
    holds positions of the ruleset (the workers then skip the classes it holds). ``None`` when no
    table can be made."""
    started = time.perf_counter()
    rules = family.rules
    # A family has about raw / 8 classes (7.7 at 11 and at 13 seeds): room for twice that in the
    # values, keys of up to a byte a pot and a few more (a table out of room sends the rest back
    # in packets); the set of class keys after them (it must not run out: +50 %).
    classes = raw_count(family) // 8 + 4096
    values = family_layout(int(VALUES_ROOM * classes), family.pots_max)
    seen = family_layout(classes * 3 // 2, family.pots_max)
    made = new_table(rules, values, seen, int(VALUES_ROOM * classes))
    if made is None:
        return None
    region, table, classes_seen, games = made
    parts = backend.slots
    store_path = sink.store_path if resumed else None
    games_offset = values.size + seen.size if games is not None else 0
    # the values merged into the store's dense rewrite: the workers write them as runs
    runs = sink.runs_folder() if getattr(sink, "merge_last", False) else None
    session = _session()  # (the table's: a partizan sweep's runs name its nodes within it)
    interner = sink.shared_interner() if runs is not None and games is not None else None
    tasks = [FamilyTask(rules.name, region.path, values.size, store_path, family, part, parts, block=BLOCK,
                        games_offset=games_offset, runs=runs, session=session, interner=interner)
             for part in range(parts)]
    try:
        results, committed = _run_workers(tasks, backend, table, sink, progress, games, own=runs is not None)
        if classes_seen.stats()["full"]:  # (sized not to be: refuse a wrong count rather than give it)
            raise RuntimeError(f"the set of class keys of {family.describe()} ran out of room")
    finally:
        del table, classes_seen, games
        region.close()
        region.unlink()
    found = sum(r.classes for r in results)
    return _summary(family, found, sum(r.raw_positions for r in results), sum(r.already_stored for r in results),
                    sum(r.computed for r in results), committed, started, parts, backend.name,
                    sum(r.cpu_seconds for r in results))


def drain_into(sink: Any, table: Any, start: int, games: Any = None, session: int = 0,
               hold: Callable[[bytes], None] | None = None) -> tuple[int, int]:
    """Drain ``table`` from arena word ``start`` into ``sink``: as one packed batch where the sink
    takes them (``put_packed``: a local store hands the bytes to its writer process as they are,
    with no Python object a value), else as pairs. Partizan values (``games``: their SharedGames;
    ``session``: a number for this table, see ``LmdbStore.insert_shared``) go packed too, with the
    nodes they need, where the sink takes them (``put_shared``: a local store's writer process
    interns them), else as pairs of keys and ``Game``s. ``hold``: where nim values go packed
    instead (a sweep's drains kept as runs for the store's dense rewrite: ``StoreSink.hold_packed``).
    Returns (entries, where the next drain starts)."""
    put: Callable[[bytes], None] | None = hold or getattr(sink, "put_packed", None)
    if games is not None:
        put_shared = getattr(sink, "put_shared", None)
        put = None if put_shared is None else (lambda frame: put_shared(frame, games, session))
    if put is not None:
        frame, start = table.drain_packed(start)
        count = frame_count(frame)
        if count:
            put(frame)
        return count, start
    entries, start = table.drain(start)
    if games is not None:
        entries = games.games(entries)
    sink.put(entries)
    return len(entries), start


def _run_workers(tasks: list[FamilyTask], backend: Any, table: Any, sink: Any,
                 progress: Callable[[int, int, int], None] | None,
                 games: Any = None, own: bool = False) -> tuple[list[FamilyResult], int]:
    """Run ``value_family_part`` on task ``k`` in slot ``k``, draining the table into ``sink``
    meanwhile (``COMMIT_FIRST`` s after the start, then at doubling intervals up to ``COMMIT_MOST``
    s; an impartial sweep's drains into runs the sink keeps for its dense close, where it has one:
    ``StoreSink.hold_packed``), and once more when the workers are done — or, ``own``, not at all
    (the workers drain their own values into runs: ``sweep.runs``); returns the results and the entries committed
    (those the table had no room for included). On an error (or Ctrl-C) the table is cancelled
    and the workers stop at their next block."""
    committed = drained = 0
    session = _session()  # (this table's: see ``drain_into``)
    # an impartial sweep's drains kept as runs for the store's dense rewrite, where the sink is closed so
    hold = getattr(sink, "hold_packed", None) if games is None and getattr(sink, "merge_last", False) else None
    running: list["futures.Future[FamilyResult]"] = []
    gap = COMMIT_FIRST
    commit_at = time.monotonic() + gap
    try:
        running += [backend.call(slot, value_family_part, task) for slot, task in enumerate(tasks)]
        while True:
            done, _ = futures.wait(running, timeout=DRAIN_EVERY, return_when=futures.FIRST_EXCEPTION)
            failed = [f.exception() for f in done if f.exception() is not None]
            last = len(done) == len(running)
            if not own and (failed or last or time.monotonic() >= commit_at):  # (after the last worker: every value is published)
                count, drained = drain_into(sink, table, drained, games, session, hold)
                committed += count
                gap = min(2 * gap, COMMIT_MOST)
                commit_at = time.monotonic() + gap
            if failed:
                raise failed[0]  # type: ignore[misc]
            if last:
                break
            if progress is not None:
                stats = table.stats()
                progress(min(stats["claimed"], stats["total"]), stats["total"], stats["entries"])
        results = [f.result() for f in running]
        spilled: dict[bytes, Any] = {}
        for result in results:  # values the table ran out of room for (those not in it)
            spilled.update((k, v) for k, v in unpack_wire(result.spilled, games is None) if table.get(k) is None)
        sink.put(sorted(spilled.items()))
        return results, committed + sum(r.drained for r in results) + len(spilled)
    finally:
        table.cancel()  # (workers still running stop at their next block)
        for future in running:
            try:
                future.result()
            except BaseException:  # noqa: BLE001 - the first error is the one raised
                pass


def _session() -> int:
    """A number for one table's drains (``drain_into``), random: ``os.urandom`` rather than the
    ``secrets`` module, whose import (hashlib, hmac) every worker's fork server paid for."""
    return int.from_bytes(os.urandom(8), "little")


def _summary(family: Family, classes: int, raw: int, stored: int, computed: int, committed: int, started: float,
             workers: int, backend: str, cpu: float) -> SweepSummary:
    return SweepSummary(ruleset=family.ruleset, seeds=(family.seeds_min, family.seeds_max),
                        pots=(family.pots_min, family.pots_max), classes=classes, raw_positions=raw,
                        already_stored=stored, classes_valued=classes - stored, positions_valued=computed,
                        entries_committed=committed, seconds=time.perf_counter() - started, workers=workers,
                        backend=backend, worker_cpu_seconds=cpu)


def run_family_inline(family: Family, sink: Any, progress: Callable[[int, int, int], None] | None,
                      resumed: bool) -> SweepSummary | None:
    """Sweep ``family`` into ``sink`` in this process, as one worker of ``run_family`` would
    (``--workers 1``): the walk, then ``run_inline``; ``resumed``: the store holds part of the
    family (skipped, and read for followers). ``None`` when no table can be made."""
    started = time.perf_counter()
    entries = raw_count(family) // 8 + 4096
    states, keys, raw = enumerate_states(family)
    done = run_inline(family.rules, states, keys, sink, progress, sink.local_store() if resumed else None, entries,
                      family.pots_max + 8)
    if done is None:
        return None
    stored, computed, committed = done
    return _summary(family, len(states), raw, stored, computed, committed, started, 1, "inline", 0.0)


def run_inline(rules: Any, states: list[State], keys: list[bytes], sink: Any,
               progress: Callable[[int, int, int], None] | None, store: Any | None = None,
               entries: int | None = None, key_length: int | None = None) -> tuple[int, int, int] | None:
    """Value ``states`` (their ``keys``) in this process through a table in its own memory
    (``value_blocks``; with a ``store``: skip what it holds and read it for followers), drained
    into ``sink`` (sorted, in C) every ``INLINE_DRAIN_EVERY`` seconds while it values on; returns
    (classes stored, positions computed, entries committed), or ``None`` when no table can be
    made (the pure-Python engine, no memory). The table has room for ``entries`` keys of
    ``key_length`` bytes (by default twice ``states``, and their longest key)."""
    room = entries if entries is not None else len(states) + 4096
    layout = keys_layout(int(VALUES_ROOM * room), keys, key_length)
    made = new_table(rules, layout, None, int(VALUES_ROOM * room))
    if made is None:
        return None
    region, table, _, games = made
    table.add_total(len(states))
    drained = committed = 0
    session = _session()  # (this table's: see ``drain_into``)
    last = time.monotonic()
    hold = getattr(sink, "hold_packed", None) if games is None and getattr(sink, "merge_last", False) else None

    def drain() -> None:
        nonlocal drained, committed, last
        count, drained = drain_into(sink, table, drained, games, session, hold)  # noqa: F821 (deleted after the last call)
        committed += count
        last = time.monotonic()

    def between() -> None:
        if time.monotonic() - last >= INLINE_DRAIN_EVERY:
            drain()
            if progress is not None:
                stats = table.stats()  # noqa: F821 (deleted after the last call)
                progress(stats["claimed"], stats["total"], stats["entries"])

    try:
        stored, computed, spilled = value_blocks(rules, states, keys, table, store, between, games=games)
        drain()
        left = [(k, v) for k, v in spilled if table.get(k) is None]  # (the table ran out of room)
        sink.put(sorted(left))
        if progress is not None:
            progress(len(states), len(states), computed)
        return stored, computed, committed + len(left)
    finally:
        del table, games
        region.close()
        region.unlink()


def run_shared(rules: Any, todo: list[State], keys: list[bytes], sink: Any, backend: Any,
               progress: Callable[[int, int, int], None] | None,
               store_path: str | None) -> tuple[int, int, float] | None:
    """Value ``todo`` (enumerated already; their ``keys``) on the backend's processes through a
    shared table, every worker claiming blocks of the list; ``store_path``: the local store the
    workers read for followers (a sweep of what a store lacks). Returns (positions computed,
    entries committed, worker CPU seconds), or ``None`` when no table can be made."""
    # a sweep values about one position per class: room for twice that
    room = int(VALUES_ROOM * (len(todo) + 4096))
    layout = keys_layout(room, keys)
    made = new_table(rules, layout, None, room)
    if made is None:
        return None
    region, table, _, games = made
    table.add_total(len(todo))
    task = FamilyTask(rules.name, region.path, 0, store_path, states=todo, keys=keys, block=BLOCK,
                      games_offset=layout.size if games is not None else 0)
    try:
        results, committed = _run_workers([task] * backend.slots, backend, table, sink, progress, games)
    finally:
        del table, games
        region.close()
        region.unlink()
    return sum(r.computed for r in results), committed, sum(r.cpu_seconds for r in results)
