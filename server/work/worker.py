"""One worker process: the server's handle on it (``Worker``) and its life (``worker_main``).

A worker opens the LMDB store, says ``("ready", rss)``, then runs tasks (``ruma.server.work.tasks``)
one at a time: it receives ``(name, args, budget wire)`` (each ``Blob`` among the arguments is
followed by its bytes), answers ``(("ok", result) or ("error",
kind, message), rss, retire)`` after committing what it computed (an OK answer is durable), and
stops at ``None``, at the end of its pipe, or when the server that started it is gone. A *reader*
worker runs the same loop over a bounded hot-value cache and only ever gets tasks that read.
This module imports no gRPC, so worker processes stay small.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any, NamedTuple

from ruma.server.work.budget import Budget
from ruma.server.work.heap import malloc_trim
from ruma.server.work.limits import Limits
from ruma.server.work.worker_errors import to_wire

log = logging.getLogger(__name__)


#: a task's argument, or an answer, of more bytes than this travels as a ``Blob``
BLOB_BYTES = 1 << 20


class Blob(NamedTuple):
    """Many bytes announced on the pipe: in the place of a task's argument, whose bytes follow the
    task as a message of their own (``WorkerPool`` writes them from a thread); or before an
    answer that large (the pool reads it from a thread)."""

    size: int

#: a worker ends its work this long before the server's time limit, to commit and answer in time
FLUSH_MARGIN = 0.5
#: hot values a reader keeps in memory (it is replaced when it has grown, which empties them)
READER_CACHE = 50_000
#: a task after which a worker's memory grew more than this gives the C heap's free memory back first
TRIM_ABOVE = 16 << 20
#: the workers' scheduling priority relative to the server (``os.nice``): evaluation, reading
NICE = {"eval": 10, "read": 0}


def rss(pid: int | None = None) -> int:
    """Resident memory of a process in bytes that is its own (0 if it is gone): its resident set
    less the pages it shares — mostly the store's file, which every process maps and the kernel
    can drop at will, so reading a large store is not counted as growth."""
    import psutil

    try:
        info = psutil.Process(pid).memory_info()
    except (psutil.Error, OSError):
        return 0
    return int(info.rss - getattr(info, "shared", 0))


class Worker:
    """A worker process as the server sees it (its state is changed on the server's event loop)."""

    def __init__(self, context: Any, store_path: Path, limits: Limits, kind: str, number: int) -> None:
        parent, child = context.Pipe()
        self.kind = kind
        self.flag = context.RawValue("i", 0)
        self.process = context.Process(
            target=worker_main, args=(child, self.flag, str(store_path), limits, kind, os.getpid(),
                                      log.getEffectiveLevel()),
            name=f"ruma-{kind}-{number}", daemon=True)
        self.process.start()
        child.close()
        self.conn = parent
        self.state = "starting"  # starting, idle, busy, retiring, gone
        self.call: Any = None  # the call it works on (``pool._Call``), while busy
        self.baseline = 0
        self.rss = 0
        self.over_budget = False
        self.since = time.monotonic()  # when it started, or last became idle
        self.told: float | None = None  # when it was told to stop its call

    def kill(self) -> None:
        """SIGKILL the process (reaped by the pool's monitor)."""
        try:
            self.process.kill()
        except (OSError, ValueError, AttributeError):
            pass

    def close_pipe(self) -> None:
        """Close the server's end of the pipe."""
        try:
            self.conn.close()
        except OSError:
            pass


def worker_main(conn: Any, flag: Any, store_path: str, limits: Limits, kind: str, parent: int, level: int) -> None:
    """A worker's life: open the store, then run tasks until told to stop or the server is gone."""
    logging.basicConfig(level=level, format="%(asctime)s %(name)s %(levelname)s [worker %(process)d] %(message)s")
    try:
        os.nice(NICE.get(kind, 10))
    except OSError:
        pass
    _die_with(parent)
    threading.Thread(target=_orphan_watch, args=(parent,), name="ruma-worker-orphan", daemon=True).start()
    from ruma.server.store.memo import LmdbStore
    from ruma.server.work.cache import CachedMemo
    from ruma.server.work.tasks import Context

    # an evaluation worker computes on no unverified upload; a reader serves them, marked by the servicer
    store = LmdbStore(store_path, create=False, batch_seconds=0, hide_unverified=kind != "read")
    memo: Any = CachedMemo(store, READER_CACHE) if kind == "read" else store
    size = rss()
    conn.send(("ready", size))
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                break
            if message is None:
                break
            name, args, wire, low_priority = message
            args = tuple(conn.recv_bytes() if isinstance(arg, Blob) else arg for arg in args)
            budget = Budget.from_wire(wire, flag, margin=FLUSH_MARGIN)
            store.refresh()  # see what the server and the other workers committed since the last task
            context = Context(memo, store, limits, budget)
            result, retire = _run_lower(name, args, context) if low_priority else _run(name, args, context)
            try:
                store.flush()  # an OK answer means committed
            except BaseException as error:  # noqa: BLE001
                result = ("error", *to_wire(error))
            before, size = size, rss()
            if size > before + TRIM_ABOVE:  # (large requests and answers leave freed memory that malloc keeps)
                malloc_trim()
                size = rss()
            answer = ForkingPickler.dumps((result, size, retire))
            if len(answer) > BLOB_BYTES:  # announced, so that the server reads it off its event loop
                conn.send(Blob(len(answer)))
            conn.send_bytes(answer)
    finally:
        try:
            store.close()
        except Exception as error:  # noqa: BLE001 - what could not be committed was reported to its call
            log.error("closing the store: %s", error)


def _run(name: str, args: tuple[Any, ...], context: Any) -> tuple[tuple[Any, ...], bool]:
    """Task ``name``'s answer (``("ok", result)`` or ``("error", kind, message)``) and whether
    this worker must retire after it."""
    from ruma.server.work.tasks import TASKS

    try:
        return ("ok", TASKS[name](context, *args)), False
    except BaseException as error:  # noqa: BLE001 - every error goes back to the server
        # a RecursionError or MemoryError may have interrupted the interning of a game
        return ("error", *to_wire(error)), isinstance(error, (RecursionError, MemoryError))


def _run_lower(name: str, args: tuple[Any, ...], context: Any) -> tuple[tuple[Any, ...], bool]:
    """``_run`` on a thread of lower priority (``NICE["eval"]``; one for the worker's life): a
    reader's large read leaves the machine's cores to the server's event loop and the stored
    lookups first."""
    global _LOWER
    if _LOWER is None:
        _LOWER = ThreadPoolExecutor(1, thread_name_prefix="ruma-lower", initializer=_lower_this_thread)
    return _LOWER.submit(_run, name, args, context).result()


_LOWER: ThreadPoolExecutor | None = None


def _lower_this_thread() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE["eval"])  # (this thread only)
    except OSError:
        pass


def _die_with(parent: int) -> None:
    """Ask Linux to SIGKILL this worker when the server's thread that started it ends
    (``PR_SET_PDEATHSIG``; the server starts its workers on its event loop's thread, which lives as
    long as the server). The orphan watch thread below cannot run while a compiled computation holds
    the GIL (a canonical form of minutes), so on Linux the kernel's signal is what ends such a
    worker when the server is killed."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            pass
    if os.getppid() != parent:  # the server died before the signal was asked for
        os._exit(0)


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _orphan_watch(parent: int) -> None:
    """End this worker when the server that started it is gone (killed with SIGKILL, say)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)
