"""The sweep driver: value every class of a family and commit every value to one store.

``run_sweep(family, sink, workers=N, backend=...)``:

1. enumerates the family's classes (``ruma.engine.families.classes``), smallest first;
2. asks the sink which class keys are stored already and skips them (a killed sweep resumes
   where its committed values end);
3. values the rest — in this process through the store itself when ``workers == 1`` and no
   backend is given, otherwise in shards on worker slots (local processes, or Ray actors);
4. commits every value a worker computed through the sink: only the driver writes.

Workers keep their memo across shards, and the driver forwards to each worker the packets the
other workers sent back since its last shard, so work done anywhere is reused everywhere
(duplicated work is limited to shards that ran at the same time). Shards are cut in the classes'
order and sized adaptively so that each takes about ``shard_seconds``.

Sinks: ``StoreSink`` (a local store opened through the ``ruma.stores`` entry point) and
``ruma.client.sweeps_client.ServerSink`` (the ``Upload`` RPC of a server).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys
import time
import uuid
from concurrent import futures
from dataclasses import replace
from typing import Any, Callable, Protocol, Sequence

from ruma.client.sweep.shared import run_family, run_family_inline, run_inline, run_shared
from ruma.client.sweep.shared_memory import can_share
from ruma.client.sweep.summary import SweepSummary
from ruma.client.sweep.worker import Result, Task, work
from ruma.engine.evaluator import value_many
from ruma.engine.families.classes import Family, FamilyClass, enumerate_states
from ruma.engine.families.order import Cell, CellScheduler, group
from ruma.engine.families.packets import Entry, RecordingMemo, WirePacket, unpack_wire
from ruma.engine.rulesets.base import State, key_prefix_of
from ruma.engine.stores import Store, open_store

#: tasks queued on each worker slot, so that a worker never waits for the driver between two
DEPTH = 2
#: states valued with one search between two commits (and progress reports) of an inline sweep
INLINE_CHUNK = 1024
#: local processes share one table of values where the engine can (``sweep.shared``; False: cells
#: and packets, as between machines)
SHARED = os.environ.get("RUMA_SWEEP_SHARED", "1") != "0"
#: called with (classes done, classes to do, positions computed so far)
Progress = Callable[[int, int, int], None]


class Sink(Protocol):
    """Where a sweep commits its values."""

    #: a local store directory workers on this machine may read, or ``None``
    store_path: str | None

    def stored(self, keys: Sequence[bytes]) -> list[bool]:
        """For each key, whether the store holds it."""

    def put(self, entries: Sequence[Entry]) -> None:
        """Commit entries (keys already stored are kept as they are)."""

    def local_store(self) -> Store | None:
        """The store on this machine that valuing in the driver's own process (``workers == 1``)
        may read for followers, or ``None``."""

    def flush(self) -> None:
        """Make everything put so far durable."""


class StoreSink:
    """A local store (``DIR`` holding ``data.mdb``): the driver writes straight into it."""

    def __init__(self, path: str, create: bool = True, merge_last: bool = False) -> None:
        self.store: Store = open_store(path, create=create)
        self.store.adopt_runs()  # (a killed sweep's: stored before anything reads the store)
        #: a sweep's drains of nim values are kept as runs for a dense ``close`` (``hold_packed``):
        #: for a caller that closes the sink densely once the sweep is done and reads nothing before
        #: (``ruma sweep``)
        self.merge_last = merge_last
        self.store_path: str | None = str(self.store.path)
        store = self.store
        #: nim values packed as the store's writer process reads them (a sweep's drains of its
        #: shared table: ``sweep.shared.drain_into``), handed to the store as they are
        #: (``Store.insert_packed``; not remembered in its ``recent``: no search of this process
        #: reads them back)
        self.put_packed: Callable[[bytes], None] = lambda frame: store.insert_packed(frame, None, False)
        #: a drain of a partizan sweep's table handed to the store as it is, with the sweep's
        #: ``SharedGames`` (``Store.insert_shared``: the store's writer process interns the
        #: nodes it needs): ``put_shared(frame, games, session)``
        self.put_shared: Callable[[bytes, Any, int], None] = store.insert_shared

    def hold_packed(self, frame: bytes) -> None:
        """Keep a sweep's drain of nim values (packed as ``put_packed`` takes them) as a durable
        run beside the store (``Store.hold_run``) until ``close``: a dense close merges the runs into
        its rewrite, so the store's writer process never puts them into the B-tree the rewrite then
        copies; any other close, and any read through this sink (``stored``, ``holds``,
        ``local_store``), stores them first. A killed sweep's runs are stored by the next process
        that opens the store for a sweep, a compaction or a server."""
        self.store.hold_run(frame)

    def shared_interner(self) -> tuple[Callable[[str], Any], str] | None:
        """What a partizan sweep's workers on this machine intern their drains' games with, and the
        store's directory (``Store.shared_interner``): their runs then hold the store's own codes,
        not shared frames; ``None`` where the store has none."""
        factory = self.store.shared_interner()
        return None if factory is None else (factory, str(self.store.path))

    def runs_folder(self) -> str | None:
        """Where a sweep's worker processes on this machine write their drains (nim values, or a
        partizan sweep's shared frames: ``ruma.engine.frame.pack_shared``) as
        runs of their own (``ruma.engine.frame.write_run``), kept like those of ``hold_packed``
        (``Store.runs_folder``); ``None`` where another sweep holds the store's runs."""
        return self.store.runs_folder()

    def holds(self, prefix: bytes) -> bool:
        """Whether the store holds an entry of the ruleset of key ``prefix`` (``Ruleset.key_prefix``)."""
        return prefix in self._held()

    def _held(self) -> set[bytes]:
        self.store.store_runs()
        self.store.flush()
        return {bytes.fromhex(r["prefix"]) for r in self.store.admin.stats()["rulesets"] if r["entries"]}

    def stored(self, keys: Sequence[bytes]) -> list[bool]:
        """Lookups, one per key (none for a ruleset the store holds no entry of), in one read."""
        held = self._held()
        asked = [key for key in keys if key_prefix_of(key) in held]
        found = self.store.lookup_many(asked)
        known = {key for key, value in zip(asked, found) if value is not None}
        return [key in known for key in keys]

    def put(self, entries: Sequence[Entry]) -> None:
        """Inserts in bulk (one transaction per large batch, the rest buffered)."""
        self.store.insert_many(entries)

    def local_store(self) -> Store | None:
        """The store itself (the runs it holds stored first)."""
        self.store.store_runs()
        return self.store

    def flush(self) -> None:
        """Write the store's buffer (the runs stay held: ``hold_packed``)."""
        self.store.flush()

    def close(self, dense: bool = False) -> None:
        """Flush and close the store; ``dense``: then rewrite it densely where it is mostly free
        pages, or the runs it holds are many, and no other process has it open (what a completed
        ``ruma sweep`` does: ``Store.close_dense``), the runs merged in."""
        if dense:
            self.store.close_dense()
        else:
            self.store.close()


class Backend(Protocol):
    """Worker slots that run ``sweep.worker.work`` on tasks."""

    name: str
    slots: int
    #: whether the workers can read the driver's local store
    local: bool
    #: whether the workers can map a table of values in this machine's memory (``sweep.shared``)
    shares_memory: bool

    def submit(self, slot: int, task: Task) -> "futures.Future[Result]":
        """Run ``task`` on the worker of ``slot``."""

    def close(self) -> None:
        """Stop the workers."""


class LocalProcesses:
    """``slots`` worker processes on this machine, one single-process pool each (so a slot keeps
    its memo between tasks)."""

    name = "processes"
    local = True
    #: the processes can map one table of values (``sweep.shared``)
    shares_memory = True

    def __init__(self, slots: int) -> None:
        context = worker_context()
        self.slots = slots
        self.pools = [futures.ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_start_worker,
                                                  initargs=(os.getpid(),))
                      for _ in range(slots)]
        for pool in self.pools:  # start the processes now, while the driver enumerates
            pool.submit(int)

    def submit(self, slot: int, task: Task) -> "futures.Future[Result]":
        """Queue ``task`` on the slot's process."""
        return self.pools[slot].submit(work, task)

    def call(self, slot: int, function: Callable[..., Any], *args: Any) -> "futures.Future[Any]":
        """Queue ``function(*args)`` (importable by name) on the slot's process."""
        return self.pools[slot].submit(function, *args)

    def close(self) -> None:
        """Shut the processes down."""
        for pool in self.pools:
            pool.shutdown(wait=True, cancel_futures=True)


#: the modules a worker needs, imported once by the fork server (``worker_context``)
WORKER_MODULES = ["ruma.client.sweep.shared", "ruma.client.sweep.worker", "ruma.engine.native.rulesets"]


def worker_context() -> Any:
    """How local worker processes are started: forked from multiprocessing's *fork server* where
    the system has one (Linux), else spawned. Never a fork of the driver, which holds LMDB and
    gRPC state. A spawned worker starts an interpreter and imports the engine and the sweep
    itself, 0.12-0.21 s of CPU each (a 2-worker sweep of Sowing <= 12 values for 4.5 s; 2-3 s
    at 16 workers); the fork server, a clean process started once per
    driver, imports them once (``WORKER_MODULES``) and forks each worker ready to work, in a
    few milliseconds. The fork server ends when the driver does (it reads the end of a pipe
    from it), and its workers with it (``_start_worker``)."""
    if "forkserver" in multiprocessing.get_all_start_methods() and os.environ.get("RUMA_SWEEP_START") != "spawn":
        global _STOP_REGISTERED
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(WORKER_MODULES)
        if not _STOP_REGISTERED:
            atexit.register(_stop_fork_server)
            _STOP_REGISTERED = True
        return context
    return multiprocessing.get_context("spawn")


_STOP_REGISTERED = False


def _stop_fork_server() -> None:
    """(At exit.) End the fork server and wait for it, as for any child: its CPU, and that of
    the workers it waited for, then count in this process's children's (``/usr/bin/time``,
    ``RUSAGE_CHILDREN``) instead of going to whichever process adopts an orphan."""
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)
    if stop is not None:
        try:
            stop()
        except OSError:  # pragma: no cover - gone already
            pass


def _start_worker(driver: int) -> None:
    """(In a worker process, first.) The worker ends with its driver, however the driver ends.

    A Ctrl-C at the terminal reaches the whole foreground group: the driver stops the sweep
    (cancels the table, shuts the pools down), so its workers leave the signal to it instead of
    dying with a traceback each. A driver killed outright (SIGKILL, the OOM killer) shuts nothing
    down: the kernel then sends the worker SIGKILL itself (Linux's ``PR_SET_PDEATHSIG``, asked for
    here), so no worker goes on computing for nobody, and once the workers are gone the pools'
    resource tracker unlinks their semaphores from /dev/shm. We chose the kernel's signal over a
    watchdog thread polling the parent, which could not run while the compiled search holds the
    GIL, and over a process group, which a SIGKILL to the driver alone does not reach. The signal
    comes when the *thread* that started the worker ends: ``LocalProcesses`` starts its workers
    in the thread that makes it, which must outlive it (``run_sweep`` closes the pools it makes
    in the thread that made them). A worker forked by the fork server (``worker_context``) is
    the fork server's child: the signal comes when the fork server ends, which it does when the
    driver does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the driver's end of the pipe whose closing tells the fork server
    # that the driver is gone: held here, the fork server would wait for its workers, which wait
    # for it to end.
    from multiprocessing import forkserver

    server: Any = forkserver._forkserver
    alive = getattr(server, "_forkserver_alive_fd", None)
    if alive is not None:
        os.close(alive)
        server._forkserver_alive_fd = None
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            pass
    if os.getppid() != parent or not _alive(driver):  # the driver (or the fork server) died before the signal was asked for
        os._exit(1)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - another user's (a reused pid): not the driver, which is ours
        return False
    return True


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def default_workers() -> int:
    """The cores this process may use: the workers a sweep gets when none are asked for. (Partizan
    rulesets too: their values cross between local workers as shared games, and two workers
    sweep Sowing <= 12 faster than one process — docs/benchmarks.md, "Sweeps".)"""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def run_sweep(family: Family, sink: Sink, *, workers: int | None = None, backend: Backend | None = None,
              shard_seconds: float = 0.2, progress: Progress | None = None,
              classes: list[FamilyClass] | None = None, speculate: bool = True) -> SweepSummary:
    """Sweep ``family`` into ``sink`` (see the module docstring); returns the summary.

    ``speculate=False`` keeps idle workers idle until cells are ready (no duplicated work; for
    measuring what speculation gains)."""
    started = time.perf_counter()
    rules = family.rules
    count = workers if workers is not None else (backend.slots if backend is not None else default_workers())
    owned = backend is None and count > 1
    if owned:
        # started first: their interpreters start up (about half a second) while this process
        # enumerates; a sweep that finds everything stored ends them unused
        backend = LocalProcesses(count)
    try:
        holds = getattr(sink, "holds", None)  # (a local store the workers may read)
        # (checked before the walk: a ruleset no table can serve is walked once, below, not twice)
        if classes is None and SHARED and holds is not None and can_share(rules) \
                and (backend is None or backend.shares_memory):
            native = getattr(type(rules), "native", None)
            resumed = native is not None and holds(bytes((native.code, native.version)))
            if backend is None:
                swept = run_family_inline(family, sink, progress, resumed)
            else:
                swept = run_family(family, sink, backend, progress, resumed)
            if swept is not None:
                sink.flush()
                return replace(swept, seconds=time.perf_counter() - started)
        if classes is None:  # (states and keys only: no FamilyClass and representatives a class)
            states, keys, raw = enumerate_states(family)
        else:
            states, keys, raw = [c.state for c in classes], [c.key for c in classes], sum(c.raw_total for c in classes)
        stored: list[bool] = []
        for i in range(0, len(keys), 8192):
            stored += sink.stored(keys[i:i + 8192])
        todo = [state for state, known in zip(states, stored) if not known]
        todo_keys = [key for key, known in zip(keys, stored) if not known]
        if owned and not todo and backend is not None:
            backend.close()
            backend, owned = None, False
        worker_cpu = 0.0
        if backend is None:
            # (the store is read for followers when it holds part of the family, as in _inline)
            through = run_inline(rules, todo, todo_keys, sink, progress,
                                 sink.local_store() if len(todo) < len(states) else None) if SHARED else None
            if through is not None:
                _, computed, committed = through
            else:
                computed, committed = _inline(rules, todo, sink, progress, len(todo) < len(states))
            name, count = "inline", 1
        else:
            # workers read the local store only when it may hold something they need (a resumed
            # sweep); a fresh family's followers are all in the family itself
            reads = backend.local and len(todo) < len(states)
            computed, committed, worker_cpu = _sharded(rules, todo, todo_keys, sink, backend, shard_seconds, progress,
                                                      reads, speculate)
            name, count = backend.name, backend.slots
    finally:
        if owned and backend is not None:
            backend.close()
    sink.flush()
    return SweepSummary(
        ruleset=rules.name, seeds=(family.seeds_min, family.seeds_max), pots=(family.pots_min, family.pots_max),
        classes=len(states), raw_positions=raw, already_stored=len(states) - len(todo),
        classes_valued=len(todo), positions_valued=computed, entries_committed=committed,
        seconds=time.perf_counter() - started, workers=count, backend=name, worker_cpu_seconds=worker_cpu,
    )


def _inline(rules: Any, todo: list[State], sink: Sink, progress: Progress | None,
            reads: bool = True) -> tuple[int, int]:
    """Value in this process; returns (positions computed, entries committed).

    As a worker does: a ``RecordingMemo`` in a dict, reading through to the sink's local store
    for what it does not hold, and the new entries committed in bulk through the sink
    every second — a dict hit instead of a store read for every follower valued earlier, and
    one bulk write per second instead of the store's per-insert path. ``reads=False`` (nothing
    of the family is stored yet, so nothing its followers need is) skips reading the store."""
    store = sink.local_store() if reads else None
    memo = RecordingMemo(store.lookup, store.lookup_many) if store is not None else RecordingMemo()
    computed = committed = 0
    last = time.monotonic()
    done = 0
    while done < len(todo):
        chunk = todo[done:done + INLINE_CHUNK]
        computed += value_many(rules, chunk, memo)
        done += len(chunk)
        now = time.monotonic()
        if now - last > 1.0 or done == len(todo):
            new = memo.take()
            sink.put(new)
            committed += len(new)
        if progress is not None and (now - last > 0.2 or done == len(todo)):
            progress(done, len(todo), computed)
        if now - last > 1.0:
            last = now
    return computed, committed


def _sharded(rules: Any, todo: list[State], keys: list[bytes], sink: Sink, backend: Backend, shard_seconds: float,
             progress: Progress | None, reads: bool = True, speculate: bool = True) -> tuple[int, int, float]:
    """Value the states (their ``keys``) on the backend's slots — through a table in shared memory
    on this machine's processes where the engine can (``sweep.shared``), else in cells whose
    values travel in packets; returns (positions computed, entries committed, worker CPU
    seconds)."""
    sweep_id = uuid.uuid4().hex
    store_path = sink.store_path if backend.local and reads else None
    if backend.shares_memory and SHARED:
        through_table = run_shared(rules, todo, keys, sink, backend, progress, store_path)
        if through_table is not None:
            return through_table
    cells = group(rules, todo)
    scheduler = CellScheduler(cells)
    pending: list[list[WirePacket]] = [[] for _ in range(backend.slots)]  # packets each slot has not seen
    running: dict["futures.Future[Result]", tuple[int, list[Cell], int]] = {}
    idle = [slot for _ in range(DEPTH) for slot in range(backend.slots)]  # DEPTH tasks queued per slot
    seen: set[bytes] = set()
    target, done, computed, committed = 16, 0, 0, 0
    cpu = 0.0

    def submit() -> None:
        while idle and scheduler:
            batch = scheduler.take(target)
            if batch:
                slot = idle.pop(0)
            else:
                # nothing is ready: a slot with no task at all values the next cells anyway
                # (``CellScheduler.take_blocked``) rather than idle until their predecessors finish
                slot = next((s for s in idle if idle.count(s) == DEPTH), -1)
                if slot < 0 or not speculate:
                    return
                batch = scheduler.take_blocked(target)
                if not batch:
                    return
                idle.remove(slot)
            shard = [state for c in batch for state in cells[c]]
            task = Task(sweep_id, rules.name, shard, pending[slot], store_path)
            pending[slot] = []
            running[backend.submit(slot, task)] = (slot, batch, len(shard))

    submit()
    while running:
        finished, _ = futures.wait(list(running), return_when=futures.FIRST_COMPLETED)
        for future in finished:
            slot, batch, shard_size = running.pop(future)
            result = future.result()
            scheduler.finish(batch)
            idle.append(slot)
            entries = unpack_wire(result.packet, rules.impartial)
            fresh = [(k, v) for k, v in entries if k not in seen]
            seen.update(k for k, _ in fresh)
            sink.put(fresh)
            committed += len(fresh)
            computed += result.computed
            cpu += result.cpu_seconds
            done += shard_size
            if result.packet[0]:
                for other in range(backend.slots):
                    if other != slot:
                        pending[other].append(result.packet)
            if result.seconds > 0:  # aim at shard_seconds per shard, growing by 2x at most
                target = max(1, min(target * 2, int(shard_size * shard_seconds / result.seconds) or 1, 100_000))
        submit()
        if progress is not None:
            progress(done, len(todo), computed)
    return computed, committed, cpu


def sweep_store(family: Family, path: str, **kwargs: Any) -> SweepSummary:
    """Sweep ``family`` into the local store at ``path`` (created if missing)."""
    sink = StoreSink(path)
    try:
        return run_sweep(family, sink, **kwargs)
    finally:
        sink.close()

