"""Heavy work runs in evaluation worker processes, admitted one task per worker.

Why processes and not threads: evaluation is CPU-bound Python, and a thread computing in the
server's process takes the GIL from the threads answering stored lookups (eight busy threads made
stored ``Evaluate`` calls time out); canonical forms are interned for the life of a process, so a
large evaluation's memory never comes back to a process that made it; and some work (a sum of
large games) has no point at which to stop cooperatively. A worker process runs at a lower
priority, can be stopped by a flag, killed when it does not stop, and replaced when it has grown:
the server's memory returns to its baseline after any evaluation.

``WorkerPool.run(task, args, budget)`` (see ``ruma.server.work.tasks`` for the tasks):

* **admission**: refused at once (``LimitExceededError`` → RESOURCE_EXHAUSTED) when the workers'
  memory is at the budget (``--max-memory``) or ``max_queue`` calls already wait; otherwise the
  call waits for an idle worker, within its budget;
* **budgets**: the worker polls the call's deadlines itself (the monotonic clock is the machine's)
  and a shared flag the server sets when the client goes away or the memory budget is exceeded;
  the call is answered with its budget's error at most ``STOP_GRACE`` seconds after its budget
  ended (``KILL_GRACE`` when the memory budget stopped it: the worker's own answer, naming what it
  valued before, is worth the wait), and a worker that has still not stopped ``KILL_GRACE``
  seconds later (a computation with no point at which to stop) is killed (SIGKILL);
* **memory**: a monitor thread reads every worker's resident memory each ``MONITOR_SECONDS``;
  past the budget, the largest busy worker is stopped (its call gets RESOURCE_EXHAUSTED);
* **durability**: a worker commits what it computed (``LmdbStore.flush``) before it answers, so an
  OK reply means the values are on disk; a failed commit fails the call;
* **recycling**: a worker whose memory grew more than ``RECYCLE_ABOVE`` past its baseline is
  replaced after its task, as is one that was killed or died; one that grew more than
  ``IDLE_SLACK`` is replaced once it has been idle ``IDLE_RECYCLE_SECONDS`` (so a busy server does
  not churn workers, and a quiet one returns to its baseline memory).

``InlineRunner`` has the same interface and runs tasks in the calling thread (``--eval-workers 0``
or a store that is not an ``LmdbStore``): cooperative time budgets, no memory budget.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable

from ruma.engine.errors import CancelledError, LimitExceededError
from ruma.engine.memo import Memo
from ruma.server.work.budget import CANCELLED, MEMORY, SHUTDOWN, Budget
from ruma.server.work.wire import WorkerLost, from_wire, to_wire
from ruma.server.work.limits import Limits

log = logging.getLogger("ruma.server")

#: a worker whose resident memory grew this much past its baseline is replaced after its task
RECYCLE_ABOVE = 96 << 20
#: ... and one idle this long that grew more than ``IDLE_SLACK`` past it, once the server is quiet
IDLE_RECYCLE_SECONDS = 2.0
IDLE_SLACK = 8 << 20
#: seconds after its budget ends within which a call is answered, whether its worker stopped or not
STOP_GRACE = 0.75
#: seconds a worker gets to stop by itself (and commit what it computed) before it is killed
KILL_GRACE = 5.0
#: how often the monitor reads the workers' memory
MONITOR_SECONDS = 0.1
#: how often a waiting call looks at its worker and its budget
POLL_SECONDS = 0.02
#: the workers' scheduling priority relative to the server's threads (``os.nice``)
WORKER_NICE = 10
#: a worker ends its work this long before the server's time limit, to commit and answer in time
FLUSH_MARGIN = 0.5
_FLAGS = {CANCELLED: 1, MEMORY: 2, SHUTDOWN: 3}


def _rss(pid: int | None = None) -> int:
    """Resident memory of a process in bytes (0 if it is gone)."""
    import psutil

    try:
        return int(psutil.Process(pid).memory_info().rss)
    except (psutil.Error, OSError):
        return 0


class InlineRunner:
    """Runs tasks in the calling thread, then commits the store (durability as with workers)."""

    def __init__(self, memo: Memo, store: Any, limits: Limits) -> None:
        self.memo, self.store, self.limits = memo, store, limits
        self._lock = threading.Lock()
        self.busy = 0

    def run(self, name: str, args: tuple[Any, ...], budget: Budget) -> Any:
        """Run task ``name`` here."""
        from ruma.server.work.tasks import TASKS, Context

        with self._lock:
            self.busy += 1
        try:
            result = TASKS[name](Context(self.memo, self.store, self.limits, budget), *args)
        finally:
            flush = getattr(self.store, "flush", None)
            try:
                if callable(flush):
                    flush()
            finally:
                with self._lock:
                    self.busy -= 1
        return result

    def stats(self) -> dict[str, int]:
        """Busy, queued, memory, refused, recycled."""
        return {"busy": self.busy, "queued": 0, "memory": 0, "refused": 0, "recycled": 0}

    def close(self) -> None:
        """Nothing to release."""


class _Worker:
    """One worker process as the server sees it."""

    def __init__(self, context: Any, store_path: Path, limits: Limits, number: int) -> None:
        parent, child = context.Pipe()
        self.flag = context.RawValue("i", 0)
        self.process = context.Process(
            target=worker_main, args=(child, self.flag, str(store_path), limits, os.getpid(), log.getEffectiveLevel()),
            name=f"ruma-eval-{number}", daemon=True)
        self.process.start()
        child.close()
        self.conn = parent
        self.baseline = 0
        self.rss = 0
        self.busy = False
        self.over_budget = False
        self.idle_since = time.monotonic()

    def kill(self) -> None:
        """SIGKILL the process and reap it."""
        try:
            self.process.kill()
            self.process.join(2)
        except (OSError, ValueError, AssertionError):
            pass
        self.conn.close()


class WorkerPool:
    """``size`` worker processes valuing through the LMDB store in ``store_path``."""

    def __init__(self, store_path: Path, limits: Limits, size: int,
                 on_kill: Callable[[], None] | None = None) -> None:
        self.store_path, self.limits, self.size = store_path, limits, size
        self.memory_budget = limits.memory_budget
        if self.memory_budget and self.memory_budget < size * 96 << 20:
            log.warning("--max-memory %d MiB counts the workers' whole memory (each uses 40-60 MiB idle): "
                        "with %d workers little is left for evaluations", self.memory_budget >> 20, size)
        self.on_kill = on_kill
        self.context = multiprocessing.get_context("spawn")  # never fork a process running gRPC threads
        self.cond = threading.Condition()
        self.workers: list[_Worker] = []
        self.idle: list[_Worker] = []
        self.waiting = 0
        self.memory = 0
        self.refused = 0
        self.recycled = 0
        self.closed = False
        self.starting = 0
        self._started = 0
        for _ in range(size):
            self._spawn()
        self._monitor = threading.Thread(target=self._watch, name="ruma-eval-monitor", daemon=True)
        self._monitor.start()

    # -- workers ---------------------------------------------------------------------------------
    def _spawn(self) -> None:
        """Start a worker; it joins the idle list once it has opened the store (in a thread)."""
        self._started += 1
        worker = _Worker(self.context, self.store_path, self.limits, self._started)
        with self.cond:
            self.workers.append(worker)
            self.starting += 1
        threading.Thread(target=self._welcome, args=(worker,), name="ruma-eval-start", daemon=True).start()

    def _welcome(self, worker: _Worker) -> None:
        try:
            if not worker.conn.poll(120):
                raise TimeoutError("no answer in 120 s")
            kind, rss = worker.conn.recv()
            if kind != "ready":
                raise RuntimeError(f"unexpected first message {kind!r}")
        except (EOFError, OSError, TimeoutError, RuntimeError) as error:
            log.error("evaluation worker %s did not start: %s", worker.process.name, error)
            with self.cond:
                self.starting -= 1
            self._drop(worker)
            with self.cond:
                self.cond.notify_all()
            return
        worker.baseline = worker.rss = rss
        with self.cond:
            self.starting -= 1
            if self.closed:
                worker.conn.send(None)
                return
            self.idle.append(worker)
            self.cond.notify()

    def _drop(self, worker: _Worker, killed: bool = True) -> None:
        worker.kill()
        with self.cond:
            if worker in self.workers:
                self.workers.remove(worker)
            if worker in self.idle:
                self.idle.remove(worker)
        if killed and self.on_kill is not None:
            try:
                self.on_kill()
            except Exception:  # noqa: BLE001 - housekeeping only
                log.exception("cleaning up after a killed worker failed")

    def _replace(self, worker: _Worker, why: str) -> None:
        """Retire ``worker`` (killed, died or grown) and start another."""
        self.recycled += 1
        log.info("replacing evaluation worker %s (%s)", worker.process.name, why)
        if worker.process.is_alive() and why == "grown":
            try:
                worker.conn.send(None)
                worker.process.join(5)
            except (OSError, ValueError):
                pass
        self._drop(worker, killed=why != "grown")
        if not self.closed:
            self._spawn()

    def _watch(self) -> None:
        """The memory monitor (see the module docstring)."""
        while not self.closed:
            with self.cond:
                workers = list(self.workers)
            total = 0
            for worker in workers:
                worker.rss = _rss(worker.process.pid) if worker.process.is_alive() else 0
                total += worker.rss
            self.memory = total
            self._recycle_idle()
            budget = self.memory_budget
            if budget and total > budget:
                busy = [w for w in workers if w.busy and not w.over_budget]
                if busy:
                    victim = max(busy, key=lambda w: w.rss)
                    victim.over_budget = True
                    victim.flag.value = _FLAGS[MEMORY]
                    log.warning("evaluation workers use %d MiB, over the budget of %d MiB: stopping %s (%d MiB)",
                                total >> 20, budget >> 20, victim.process.name, victim.rss >> 20)
            time.sleep(MONITOR_SECONDS)

    def _recycle_idle(self) -> None:
        """Replace workers that grew and have been idle a while (see the module docstring)."""
        now = time.monotonic()
        with self.cond:
            grown = [w for w in self.idle if w.baseline and w.rss > w.baseline + IDLE_SLACK
                     and now - w.idle_since > IDLE_RECYCLE_SECONDS]
            for worker in grown:
                self.idle.remove(worker)
        for worker in grown:
            threading.Thread(target=self._replace, args=(worker, "grown"), daemon=True).start()

    # -- calls ---------------------------------------------------------------------------------------
    def _acquire(self, budget: Budget) -> _Worker:
        with self.cond:
            if self.closed:
                raise CancelledError("the server is shutting down")
            if self.memory_budget and self.memory >= self.memory_budget:
                self.refused += 1
                raise LimitExceededError(
                    f"the server's evaluation memory budget ({self.memory_budget >> 20} MiB, --max-memory) is in use; "
                    f"stored values are still served; try again later")
            if self.waiting >= self.limits.max_queue and not self.idle:
                self.refused += 1
                raise LimitExceededError(f"{self.waiting} requests already wait for an evaluation worker "
                                         f"(this server's limit); try again later")
            self.waiting += 1
            try:
                while not self.idle:
                    if self.closed:
                        raise CancelledError("the server is shutting down")
                    if not self.workers and not self.starting:
                        raise WorkerLost("no evaluation worker could be started (see the server's log)")
                    self.cond.wait(POLL_SECONDS * 5)
                    if budget.should_cancel():
                        raise budget.error("the request (waiting for an evaluation worker)")
                worker = self.idle.pop()
            finally:
                self.waiting -= 1
            worker.busy = True
            worker.over_budget = False
            worker.flag.value = 0
            return worker

    def _release(self, worker: _Worker, healthy: bool, rss: int) -> None:
        worker.busy = False
        if not healthy:
            self._replace(worker, "killed" if worker.process.is_alive() else "died")
            return
        worker.rss = rss or worker.rss
        if rss > worker.baseline + RECYCLE_ABOVE:
            threading.Thread(target=self._replace, args=(worker, "grown"), daemon=True).start()
            return
        worker.idle_since = time.monotonic()
        with self.cond:
            if self.closed:
                return
            self.idle.append(worker)
            self.cond.notify()

    def _abandon(self, worker: _Worker, told: float) -> None:
        """Let a worker whose call was answered finish (and commit) by itself, or kill it."""
        answered = False
        try:
            answered = worker.conn.poll(max(0.0, told + KILL_GRACE - time.monotonic()))
            _, rss, retire = worker.conn.recv() if answered else (None, 0, False)
            answered = answered and not retire
        except (EOFError, OSError):
            answered, rss = False, 0
        if not answered:
            log.warning("evaluation worker %s did not stop %.0f s after its call ended; killing it",
                        worker.process.name, KILL_GRACE)
        self._release(worker, answered, rss)

    def run(self, name: str, args: tuple[Any, ...], budget: Budget) -> Any:
        """Run task ``name`` on a worker within ``budget`` (see the module docstring)."""
        worker = self._acquire(budget)
        healthy, rss, handed = True, 0, False
        try:
            try:
                worker.conn.send((name, args, budget.wire()))
            except (OSError, ValueError) as error:
                healthy = False
                raise WorkerLost(f"an evaluation worker failed ({error}); try again") from None
            told: float | None = None
            while not worker.conn.poll(POLL_SECONDS):
                if not worker.process.is_alive():
                    healthy = False
                    if worker.over_budget:
                        budget.stop(MEMORY)
                        raise budget.error()
                    raise WorkerLost(f"an evaluation worker died (exit code {worker.process.exitcode}); try again")
                if worker.over_budget:
                    budget.stop(MEMORY)
                if self.closed:
                    budget.stop(SHUTDOWN)
                if told is None and budget.should_cancel():
                    told = time.monotonic()
                    if budget.reason in _FLAGS:
                        worker.flag.value = _FLAGS[budget.reason]
                elif told is not None and time.monotonic() - told > (KILL_GRACE if budget.reason == MEMORY else STOP_GRACE):
                    handed = True  # answer now; the worker commits and stops, or is killed, meanwhile
                    threading.Thread(target=self._abandon, args=(worker, told), daemon=True).start()
                    raise budget.error()
            try:
                (status, *payload), rss, retire = worker.conn.recv()
            except (EOFError, OSError) as error:
                healthy = False
                raise WorkerLost(f"an evaluation worker failed ({error}); try again") from None
            healthy = not retire  # (a worker whose interning tables may be inconsistent is replaced)
            if status == "ok":
                return payload[0]
            kind, message = payload
            if kind == "cancelled" and budget.reason is not None:
                raise budget.error()
            raise from_wire(kind, message)
        finally:
            if not handed:
                self._release(worker, healthy, rss)

    def stats(self) -> dict[str, int]:
        """Busy workers, waiting calls, the workers' memory, refusals and replacements."""
        with self.cond:
            busy = sum(1 for w in self.workers if w.busy)
            return {"busy": busy, "queued": self.waiting, "memory": self.memory, "refused": self.refused,
                    "recycled": self.recycled}

    def close(self, timeout: float = 5.0) -> None:
        """Stop every worker (busy ones are told to stop, then killed after ``timeout``)."""
        with self.cond:
            if self.closed:
                return
            self.closed = True
            workers = list(self.workers)
            self.cond.notify_all()
        for worker in workers:
            if worker.busy:
                worker.flag.value = _FLAGS[SHUTDOWN]
            else:
                try:
                    worker.conn.send(None)
                except (OSError, ValueError):
                    pass
        deadline = time.monotonic() + timeout
        for worker in workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                log.warning("evaluation worker %s did not stop; killing it", worker.process.name)
                worker.kill()
        self._monitor.join(1)


# -- the worker process ----------------------------------------------------------------------------
def worker_main(conn: Any, flag: Any, store_path: str, limits: Limits, parent: int, level: int) -> None:
    """A worker's life: open the store, then run tasks until told to stop or the server is gone."""
    logging.basicConfig(level=level, format="%(asctime)s %(name)s %(levelname)s [worker %(process)d] %(message)s")
    try:
        os.nice(WORKER_NICE)
    except OSError:
        pass
    threading.Thread(target=_orphan_watch, args=(parent,), name="ruma-eval-orphan", daemon=True).start()
    from ruma.server.store.memo import LmdbStore
    from ruma.server.work.tasks import TASKS, Context

    store = LmdbStore(store_path, create=False, batch_seconds=0)
    conn.send(("ready", _rss()))
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break
            if message is None:
                break
            name, args, wire = message
            budget = Budget.from_wire(wire, flag, margin=FLUSH_MARGIN)
            retire = False
            store.refresh()  # see what the server and the other workers committed since the last task
            try:
                result: tuple[Any, ...] = ("ok", TASKS[name](Context(store, store, limits, budget), *args))
            except BaseException as error:  # noqa: BLE001 - every error goes back to the server
                result = ("error", *to_wire(error))
                # a RecursionError or MemoryError may have interrupted the interning of a game
                retire = isinstance(error, (RecursionError, MemoryError))
            try:
                store.flush()  # an OK answer means committed
            except BaseException as error:  # noqa: BLE001
                result = ("error", *to_wire(error))
            conn.send((result, _rss(), retire))
    finally:
        store.close()


def _orphan_watch(parent: int) -> None:
    """End this worker when the server that started it is gone (killed with SIGKILL, say)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)
