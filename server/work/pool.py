"""Worker processes for everything that touches the engine, and their admission; waiting costs no thread.

Why processes: evaluation is CPU-bound Python, and work in the server's process takes the GIL
from the event loop that answers every call; canonical forms are interned for the life of a
process, so a process that valued or merely *read* many partizan values never gets that memory
back (reading 20,000 stored values grew a server by 75 MiB); and some work (a sum of large games)
has no point at which to stop cooperatively. So the server's process holds no engine state: it
receives calls and moves bytes, and two *lanes* of worker processes do the rest —

* **evaluation** workers (``limits.workers``, at a lower priority) run anything that may compute;
* **reader** workers (``READERS``) answer stored lookups only, so they never queue behind
  computation; each keeps a bounded hot-value cache and is replaced once it has grown
  ``READER_RECYCLE_ABOVE`` past its baseline (the interned games and caches go with it).

``WorkerPool`` lives on the server's asyncio event loop (``run``/``read`` are coroutines; a
worker's pipe is watched by the loop, so a call waiting for a worker or an answer is a suspended
coroutine, not a thread):

* **admission**: an evaluation is refused at once (``LimitExceededError`` → RESOURCE_EXHAUSTED)
  when the evaluation workers' memory is at ``--max-memory`` or ``--max-queue`` calls already wait;
  otherwise it waits for an idle worker, within its budget (a wait that outlasts it ends with the
  budget's error: DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED);
* **budgets**: the worker polls the call's deadlines itself (the monotonic clock is the machine's)
  and a shared flag the server sets when the client goes away, the memory budget is exceeded or
  the server stops; the call is answered at most ``STOP_GRACE`` seconds after its budget ended
  (``KILL_GRACE`` when the memory budget stopped a batch, ``PARTIAL_TASKS``: the worker's own
  answer, naming what it valued before, is worth the wait), whether the worker stopped or not,
  and a worker that has still not stopped ``KILL_GRACE`` seconds later (a computation with no
  point at which to stop) is killed (SIGKILL) and replaced;
* **memory**: a monitor thread reads every worker's resident memory each ``MONITOR_SECONDS``;
  past the budget, the largest busy evaluation worker is stopped (its call gets
  RESOURCE_EXHAUSTED); workers being replaced do not count;
* **durability**: a worker commits what it computed before it answers (an OK reply is on disk);
* **recycling**: a worker that grew more than ``RECYCLE_ABOVE`` (a reader ``READER_RECYCLE_ABOVE``)
  past its baseline is replaced after its task, as is one that was killed or died; an evaluation
  worker that grew more than ``IDLE_SLACK`` is replaced once idle ``IDLE_RECYCLE_SECONDS``.

``ruma.server.work.inline.InlineRunner`` has the same interface and runs tasks on threads of the
server's process (``--eval-workers 0`` or a store that is not an ``LmdbStore``).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import multiprocessing
import pickle
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ruma.engine.errors import CancelledError, LimitExceededError
from ruma.server.work.budget import CANCELLED, MEMORY, SHUTDOWN, Budget
from ruma.server.work.limits import Limits
from ruma.server.work.worker import BLOB_BYTES, Blob, Worker, rss
from ruma.server.work.worker_errors import WorkerLostError, from_wire

log = logging.getLogger(__name__)

#: an evaluation worker whose resident memory grew this much past its baseline is replaced after its task
RECYCLE_ABOVE = 96 << 20
#: ... a reader, this much
READER_RECYCLE_ABOVE = 48 << 20
#: ... and an idle evaluation worker that grew more than ``IDLE_SLACK`` past it, after this long
IDLE_RECYCLE_SECONDS = 2.0
IDLE_SLACK = 8 << 20
#: seconds after its budget ends within which a call is answered, whether its worker stopped or not
STOP_GRACE = 0.75
#: seconds a worker gets to stop by itself (and commit what it computed) before it is killed
KILL_GRACE = 5.0
#: tasks whose answer after a memory stop gives each item its own outcome (worth ``KILL_GRACE``)
PARTIAL_TASKS = frozenset({"evaluate_batch", "sweep_verify"})
#: how often the monitor reads the workers' memory
MONITOR_SECONDS = 0.1
#: seconds a new worker has to open the store and say it is ready
START_SECONDS = 120.0
#: reader workers (stored lookups)
READERS = 2
#: stored lookups that may wait for a reader; more are refused
MAX_READS_WAITING = 1024
_FLAGS = {CANCELLED: 1, MEMORY: 2, SHUTDOWN: 3}


class _Call:
    """One task handed to a worker: its budget, the worker's answer, a nudge when it must stop early."""

    __slots__ = ("budget", "answer", "nudge")

    def __init__(self, budget: Budget, loop: asyncio.AbstractEventLoop) -> None:
        self.budget = budget
        self.answer: asyncio.Future[Any] = loop.create_future()
        self.nudge: asyncio.Future[None] = loop.create_future()

    def settle(self, result: Any = None, error: BaseException | None = None) -> None:
        """Resolve the answer once (an answer nobody waits for any more is dropped quietly)."""
        if self.answer.done():
            return
        if error is not None:
            self.answer.set_exception(error)
            self.answer.add_done_callback(lambda f: f.exception())  # (retrieved: no "never retrieved" log)
        else:
            self.answer.set_result(result)

    def poke(self) -> None:
        """Wake the coroutine waiting for the answer (the budget says why)."""
        if not self.nudge.done():
            self.nudge.set_result(None)


class _Lane:
    """Workers of one kind and the calls waiting for one of them."""

    def __init__(self, kind: str, size: int, max_waiting: int, recycle_above: int) -> None:
        self.kind, self.size, self.max_waiting, self.recycle_above = kind, size, max_waiting, recycle_above
        self.workers: list[Worker] = []  # every worker not yet gone (starting, idle, busy, retiring)
        self.idle: list[Worker] = []
        self.waiters: collections.deque[asyncio.Future[Worker]] = collections.deque()

    def serving(self) -> list[Worker]:
        """Workers that take or will take calls."""
        return [w for w in self.workers if w.state in ("starting", "idle", "busy")]


class WorkerPool:
    """Evaluation and reader worker processes over the LMDB store in ``store_path`` (see the module doc).

    Make it on the event loop that will use it."""

    def __init__(self, store_path: Path, limits: Limits, size: int, readers: int = READERS,
                 on_kill: Callable[[], None] | None = None) -> None:
        self.store_path, self.limits, self.size = store_path, limits, size
        self.loop = asyncio.get_running_loop()
        self.memory_budget = limits.memory_budget
        if self.memory_budget and self.memory_budget < size * 96 << 20:
            log.warning("--max-memory %d MiB counts the evaluation workers' whole memory (each uses 40-60 MiB idle): "
                        "with %d workers little is left for evaluations", self.memory_budget >> 20, size)
        self.on_kill = on_kill
        self.context = multiprocessing.get_context("spawn")  # never fork a process running gRPC threads
        self.eval = _Lane("eval", size, limits.max_queue, RECYCLE_ABOVE)
        self.reads = _Lane("read", readers, MAX_READS_WAITING, READER_RECYCLE_ABOVE)
        self.large_reads = 0  # large reads running (``read``)
        self.large_waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self.refused = 0
        self.recycled = 0
        self.closed = False
        self._started = 0
        self._reap: list[Worker] = []  # processes that were told to stop or killed, to be reaped
        self._reap_lock = threading.Lock()
        for lane in (self.eval, self.reads):
            for _ in range(lane.size):
                self._spawn(lane)
        self._monitor = threading.Thread(target=self._watch, name="ruma-worker-monitor", daemon=True)
        self._monitor.start()

    @property
    def workers(self) -> list[Worker]:
        """The evaluation workers."""
        return self.eval.workers

    # -- workers (on the loop) -----------------------------------------------------------------------
    def _spawn(self, lane: _Lane) -> None:
        self._started += 1
        worker = Worker(self.context, self.store_path, self.limits, lane.kind, self._started)
        lane.workers.append(worker)
        self.loop.add_reader(worker.conn.fileno(), self._readable, lane, worker)
        self.loop.call_later(START_SECONDS, self._check_started, lane, worker)

    def _check_started(self, lane: _Lane, worker: Worker) -> None:
        if worker.state == "starting":
            log.error("worker %s did not start in %.0f s", worker.process.name, START_SECONDS)
            self._gone(lane, worker, replace=False)

    def _readable(self, lane: _Lane, worker: Worker) -> None:
        """A message (or the end of the pipe) from ``worker``."""
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._gone(lane, worker, replace=worker.state != "retiring")
            return
        if isinstance(message, Blob):  # a large answer follows: read by a thread, the loop goes on
            self.loop.remove_reader(worker.conn.fileno())
            self.loop.create_task(self._read_large(lane, worker))
            return
        self._message(lane, worker, message)

    async def _read_large(self, lane: _Lane, worker: Worker) -> None:
        """Read a large answer of ``worker`` on a thread, then take it as ``_readable`` does."""
        def read() -> Any:
            return pickle.loads(worker.conn.recv_bytes())

        try:
            message = await self.loop.run_in_executor(None, read)
        except (EOFError, OSError):
            self._gone(lane, worker, replace=worker.state != "retiring")
            return
        if worker.state == "gone":
            return
        self.loop.add_reader(worker.conn.fileno(), self._readable, lane, worker)
        self._message(lane, worker, message)

    def _message(self, lane: _Lane, worker: Worker, message: Any) -> None:
        """A message from ``worker``: it is ready, or it answers its call."""
        if len(message) == 2:  # ("ready", rss): it has opened the store
            if worker.state != "starting":  # retired before it was ready (the pool is closing)
                return
            kind, size = message
            worker.baseline = worker.rss = size
            worker.state = "idle"
            worker.since = time.monotonic()
            self._hand(lane, worker)
            if lane is self.reads:
                self._wake_large()
            return
        call, worker.call = worker.call, None
        result, size, retire = message
        if call is not None:
            call.settle(result)
        if worker.state != "busy":
            return
        worker.rss = size or worker.rss
        if retire or worker.over_budget or worker.rss > worker.baseline + lane.recycle_above:
            self._retire(lane, worker, "grown" if not retire else "retired")
            return
        worker.state, worker.since, worker.told = "idle", time.monotonic(), None
        self._hand(lane, worker)

    def _hand(self, lane: _Lane, worker: Worker) -> None:
        """Give an idle worker to the longest-waiting call, or keep it idle."""
        if self.closed:
            self._retire(lane, worker, "shutdown", replace=False)
            return
        while lane.waiters:
            waiter = lane.waiters.popleft()
            if not waiter.done():
                worker.state = "busy"
                waiter.set_result(worker)
                return
        lane.idle.append(worker)

    def _retire(self, lane: _Lane, worker: Worker, why: str, replace: bool = True) -> None:
        """Stop ``worker`` (it finishes its pipe and exits) and start another in its place."""
        if worker in lane.idle:
            lane.idle.remove(worker)
        if worker.state == "gone":
            return
        if why != "shutdown":
            self.recycled += 1
            log.info("replacing %s worker %s (%s)", lane.kind, worker.process.name, why)
        worker.state = "retiring"
        try:
            worker.conn.send(None)
        except (OSError, ValueError):
            pass
        self.loop.call_later(KILL_GRACE, self._kill_if_alive, lane, worker)
        if replace and not self.closed:
            self._spawn(lane)

    def _kill_if_alive(self, lane: _Lane, worker: Worker) -> None:
        if worker.state != "gone":
            worker.kill()
            self._gone(lane, worker, replace=False)

    def _gone(self, lane: _Lane, worker: Worker, replace: bool) -> None:
        """``worker``'s pipe ended (it exited, died or was killed): forget it; replace it if asked."""
        if worker.state == "gone":
            return
        was = worker.state
        worker.state = "gone"
        try:
            self.loop.remove_reader(worker.conn.fileno())
        except (OSError, ValueError):
            pass
        worker.close_pipe()
        worker.kill()
        with self._reap_lock:
            self._reap.append(worker)
        if worker in lane.idle:
            lane.idle.remove(worker)
        if worker in lane.workers:
            lane.workers.remove(worker)
        call, worker.call = worker.call, None
        if call is not None:
            if worker.over_budget:
                call.budget.stop(MEMORY)
                call.settle(error=call.budget.error())
            else:
                call.settle(error=WorkerLostError(f"a {lane.kind} worker died (exit code {worker.process.exitcode}); "
                                                  f"try again"))
        if was == "starting":
            log.error("%s worker %s did not start (exit code %s; see the log above)", lane.kind, worker.process.name,
                      worker.process.exitcode)
        elif was != "retiring":
            if self.on_kill is not None:
                try:
                    self.on_kill()
                except Exception:  # noqa: BLE001 - housekeeping only
                    log.exception("cleaning up after a killed worker failed")
            if replace and not self.closed:
                self.recycled += 1
                log.info("replacing %s worker %s (%s)", lane.kind, worker.process.name, "killed" if was == "busy" else "died")
                self._spawn(lane)
        self._wake_if_empty(lane)

    def _wake_if_empty(self, lane: _Lane) -> None:
        """Fail the waiting calls when no worker of the lane is left or coming."""
        if lane.serving() or self.closed and not lane.waiters:
            return
        while lane.waiters:
            waiter = lane.waiters.popleft()
            if not waiter.done():
                waiter.set_exception(WorkerLostError(f"no {lane.kind} worker could be started (see the server's log)"))

    # -- the monitor (a thread; decisions are taken on the loop) ------------------------------------
    def _watch(self) -> None:
        while not self.closed:
            readings = [(w, rss(w.process.pid)) for lane in (self.eval, self.reads) for w in list(lane.workers)]
            self._reap_exited()
            try:
                self.loop.call_soon_threadsafe(self._measured, readings)
            except RuntimeError:  # the loop is closed
                return
            time.sleep(MONITOR_SECONDS)
        self._reap_exited()

    def _reap_exited(self) -> None:
        with self._reap_lock:
            reap, self._reap = self._reap, []
        for worker in reap:
            try:
                worker.process.join(0 if worker.process.exitcode is not None else 2)
            except (OSError, ValueError, AssertionError):
                pass

    def _measured(self, readings: list[tuple[Worker, int]]) -> None:
        """The monitor's readings, on the loop: the memory budget and idle recycling."""
        for worker, size in readings:
            if worker.state != "gone":
                worker.rss = size
        memory = self.eval_memory()
        now = time.monotonic()
        for worker in list(self.eval.idle):
            if worker.baseline and worker.rss > worker.baseline + IDLE_SLACK and now - worker.since > IDLE_RECYCLE_SECONDS:
                self._retire(self.eval, worker, "grown")
        budget = self.memory_budget
        if budget and memory > budget:
            busy = [w for w in self.eval.workers if w.state == "busy" and not w.over_budget and w.call is not None]
            if busy:
                victim = max(busy, key=lambda w: w.rss)
                victim.over_budget = True
                victim.flag.value = _FLAGS[MEMORY]
                victim.call.budget.stop(MEMORY)
                victim.call.poke()
                log.warning("evaluation workers use %d MiB, over the budget of %d MiB: stopping %s (%d MiB)",
                            memory >> 20, budget >> 20, victim.process.name, victim.rss >> 20)

    def eval_memory(self) -> int:
        """Resident memory of the evaluation workers that take calls (not those being replaced)."""
        return sum(w.rss for w in self.eval.workers if w.state in ("idle", "busy"))

    # -- calls (coroutines on the loop) ---------------------------------------------------------------
    async def run(self, name: str, args: tuple[Any, ...], budget: Budget) -> Any:
        """Run task ``name`` on an evaluation worker within ``budget`` (see the module docstring)."""
        if self.memory_budget and self.eval_memory() >= self.memory_budget:
            self.refused += 1
            raise LimitExceededError(
                f"the server's evaluation memory budget ({self.memory_budget >> 20} MiB, --max-memory) is in use; "
                f"stored values are still served; try again later")
        return await self._call(self.eval, name, args, budget, "an evaluation worker")

    async def read(self, name: str, args: tuple[Any, ...], budget: Budget, large: bool = False) -> Any:
        """Run a task that only reads the store (``ruma.server.work.reads``) on a reader worker.
        ``large`` reads (a request of megabytes, a batch of thousands) run only while another
        reader is ready, so that stored lookups never wait behind them."""
        if not large:
            return await self._call(self.reads, name, args, budget, "a reader")
        while not self._large_read_may_start():
            waiter: asyncio.Future[None] = self.loop.create_future()
            self.large_waiters.append(waiter)
            try:
                await asyncio.wait((waiter,), timeout=budget.remaining())
            finally:
                if waiter in self.large_waiters:
                    self.large_waiters.remove(waiter)
            if not waiter.done():
                raise budget.expired("the request (waiting for a reader for large requests)")
        self.large_reads += 1
        try:
            return await self._call(self.reads, name, args, budget, "a reader", low_priority=True)
        finally:
            self.large_reads -= 1
            self._wake_large()

    def _large_read_may_start(self) -> bool:
        """Whether a large read may take a reader: one stays ready for the others (unless the pool
        has one reader only)."""
        ready = sum(1 for w in self.reads.workers if w.state in ("idle", "busy"))
        return self.large_reads < (ready - 1 if self.reads.size > 1 else 1)

    def _wake_large(self) -> None:
        """Let the large reads waiting look again (a large read ended, or a reader became ready)."""
        while self.large_waiters:
            waiter = self.large_waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    async def _call(self, lane: _Lane, name: str, args: tuple[Any, ...], budget: Budget, what: str,
                    low_priority: bool = False) -> Any:
        if self.closed:
            raise CancelledError("the server is shutting down")
        worker = await self._acquire(lane, budget, what)
        call = _Call(budget, self.loop)
        worker.call, worker.over_budget, worker.told = call, False, None
        worker.flag.value = 0
        blobs = [arg for arg in args if isinstance(arg, bytes) and len(arg) > BLOB_BYTES]
        sent = tuple(Blob(len(arg)) if isinstance(arg, bytes) and len(arg) > BLOB_BYTES else arg for arg in args)
        try:
            worker.conn.send((name, sent, budget.wire(), low_priority))
            for blob in blobs:  # (written by a thread: the loop goes on while the worker reads it)
                await asyncio.shield(self.loop.run_in_executor(None, worker.conn.send_bytes, blob))
        except (OSError, ValueError) as error:
            worker.call = None
            self._gone(lane, worker, replace=True)
            raise WorkerLostError(f"{what} failed ({error}); try again") from None
        except asyncio.CancelledError:
            budget.stop(CANCELLED)
            self._tell(worker, budget)
            self._abandon(worker, call)
            raise
        status, *payload = await self._answer(worker, call, name in PARTIAL_TASKS)
        if status == "ok":
            return payload[0]
        kind, message = payload
        if kind == "cancelled" and budget.reason is not None:
            raise budget.error()
        raise from_wire(kind, message)

    async def _acquire(self, lane: _Lane, budget: Budget, what: str) -> Worker:
        """An idle worker of ``lane`` (marked busy), waiting in line within ``budget``."""
        if lane.idle:
            worker = lane.idle.pop()
            worker.state = "busy"
            return worker
        if len(lane.waiters) >= lane.max_waiting:
            self.refused += 1
            raise LimitExceededError(f"{len(lane.waiters)} requests already wait for {what} (this server's limit, "
                                     f"--max-queue); try again later")
        if not lane.serving():
            raise WorkerLostError(f"no {lane.kind} worker could be started (see the server's log)")
        waiter: asyncio.Future[Worker] = self.loop.create_future()
        lane.waiters.append(waiter)
        try:
            await asyncio.wait((waiter,), timeout=budget.remaining())
        except BaseException:
            self._give_back(lane, waiter)
            raise
        if not waiter.done():
            self._give_back(lane, waiter)
            raise budget.expired(f"the request (waiting for {what})")
        return waiter.result()

    def _give_back(self, lane: _Lane, waiter: asyncio.Future[Worker]) -> None:
        """A waiting call gave up: leave the line, and pass on a worker it was just given."""
        if waiter in lane.waiters:
            lane.waiters.remove(waiter)
        if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
            worker = waiter.result()
            worker.state = "idle"
            self._hand(lane, worker)
        else:
            waiter.cancel()

    async def _answer(self, worker: Worker, call: _Call, partial: bool = False) -> Any:
        """The worker's answer, or the budget's error at most ``STOP_GRACE`` s after the budget ended
        (``KILL_GRACE`` when the memory budget ended a task that answers in part: see ``_grace``)."""
        budget = call.budget
        try:
            while not call.answer.done():
                if worker.told is None:
                    deadline = budget.deadline
                    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                else:
                    timeout = max(0.0, worker.told + _grace(budget, partial) - time.monotonic())
                await asyncio.wait((call.answer, call.nudge), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                if call.answer.done():
                    break
                if worker.told is None:
                    if budget.should_cancel():
                        self._tell(worker, budget)
                elif time.monotonic() >= worker.told + _grace(budget, partial):
                    self._abandon(worker, call)
                    raise budget.error()
        except asyncio.CancelledError:  # the client went away, or the server stops
            budget.stop(CANCELLED)
            self._tell(worker, budget)
            self._abandon(worker, call)
            raise
        return call.answer.result()

    def _tell(self, worker: Worker, budget: Budget) -> None:
        """Ask ``worker`` to stop its call, for the budget's reason."""
        worker.told = time.monotonic()
        if budget.reason in _FLAGS:
            worker.flag.value = _FLAGS[budget.reason]

    def _abandon(self, worker: Worker, call: _Call) -> None:
        """The call is answered without its worker: the worker commits and stops, or is killed."""
        lane = self.eval if worker.kind == "eval" else self.reads
        told = worker.told if worker.told is not None else time.monotonic()

        def kill_if_still_on_it() -> None:
            if worker.call is call and worker.state == "busy":
                log.warning("%s worker %s did not stop %.0f s after its call ended; killing it",
                            lane.kind, worker.process.name, KILL_GRACE)
                worker.kill()
                self._gone(lane, worker, replace=True)

        self.loop.call_at(self.loop.time() + max(0.0, told + KILL_GRACE - time.monotonic()), kill_if_still_on_it)

    # -- the rest -------------------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        """Busy evaluation workers, waiting calls, the workers' memory (the figure new work is admitted
        against at this moment: a stopped worker's memory is released at once, not at the next
        reading), refusals and replacements."""
        busy = sum(1 for w in self.eval.workers if w.state == "busy")
        return {"busy": busy, "queued": len(self.eval.waiters), "memory": self.eval_memory(), "refused": self.refused,
                "recycled": self.recycled}

    async def close(self, timeout: float = 5.0) -> None:
        """Stop every worker (busy ones are told to stop, then killed after ``timeout``)."""
        if self.closed:
            return
        self.closed = True
        workers = []
        for lane in (self.eval, self.reads):
            while lane.waiters:
                waiter = lane.waiters.popleft()
                if not waiter.done():
                    waiter.set_exception(CancelledError("the server is shutting down"))
            for worker in list(lane.workers):
                workers.append(worker)
                if worker.state == "busy" and worker.call is not None:
                    worker.flag.value = _FLAGS[SHUTDOWN]
                    worker.call.budget.stop(SHUTDOWN)
                    worker.call.poke()
                elif worker.state != "gone":
                    worker.state = "retiring"
                    try:
                        worker.conn.send(None)
                    except (OSError, ValueError):
                        pass
        deadline = time.monotonic() + timeout
        while any(w.state != "gone" and w.process.is_alive() for w in workers) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for lane in (self.eval, self.reads):
            for worker in list(lane.workers):
                if worker.process.is_alive():
                    log.warning("worker %s did not stop; killing it", worker.process.name)
                self._gone(lane, worker, replace=False)
        await asyncio.get_running_loop().run_in_executor(None, self._monitor.join, 2)


def _grace(budget: Budget, partial: bool) -> float:
    """Seconds a call waits for its worker's answer once told to stop: ``KILL_GRACE`` after a memory
    stop of a task in ``PARTIAL_TASKS`` (its answer names what it valued before the stop, and the
    rest of its items go to another worker), ``STOP_GRACE`` otherwise."""
    return KILL_GRACE if partial and budget.reason == MEMORY else STOP_GRACE
