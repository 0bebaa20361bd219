"""The candidates of a ``Beyond`` search valued by worker processes (``ruma find --beyond
--workers N``).

The search itself stays in the calling process: its frontier and its state (``Beyond``), which it
saves in the store as it goes, and the candidates the store already holds, which it reads itself
(most of them: the followers of those valued). ``CandidatePool.drive`` hands the others out, ``2·N``
at a time, to ``N`` processes started as a sweep starts its workers (``sweep.driver.worker_context``:
forked from the fork server, ending with their driver). Each worker values a candidate through the
store-backed evaluator of ``valuer`` within the candidate's budget, on its own handle of the store
(LMDB takes writers from several processes; each commits what it computed before it answers and
reads a fresh snapshot before each candidate, so one worker's values serve the others), and
answers ``(row, value as braces text or None: given up, positions computed, memo hits, the seconds
it was allowed)``; the search records the answers as it records its own valuations. A worker's
budget also ends with the run, so the last candidates end with it. Interrupted (Ctrl-C, SIGTERM),
the pool ends its workers at once and the candidates they held go back to the frontier (what a
worker was computing is lost: it is computed again when next asked).
"""

from __future__ import annotations

import os
import time
from concurrent import futures
from multiprocessing.util import Finalize
from typing import Any, Callable

from ruma.engine.cgt import Value
from ruma.engine.rulesets.base import State

__all__ = ["CandidatePool", "stored", "valuer"]

#: candidates in flight per worker (one valued, the next queued)
IN_FLIGHT = 2

Answer = tuple[State, str | None, int, int, float]

_WORKER: dict[str, Any] = {}


def stored(rules: Any, store: Any) -> Callable[[State], Value | None]:
    """A row's value if the store holds it (one read: no search set up), else ``None``."""
    from ruma.engine.cgt import Game

    def value(row: State) -> Value | None:
        key, mirrored = rules.canonical_key(row)
        held: Value | None = store.lookup(key)
        return -held if mirrored and isinstance(held, Game) else held

    return value


def valuer(rules: Any, store: Any) -> Callable[[State, float], tuple[Value | None, int, int]]:
    """Value a row through the store within a time budget: ``(value or None, computed, hits)``."""
    from ruma.engine.errors import CancelledError, LimitExceededError
    from ruma.engine.evaluator import evaluate
    from ruma.engine.limits import MAX_POSITIONS

    lookup = stored(rules, store)

    def value(row: State, seconds: float) -> tuple[Value | None, int, int]:
        held = lookup(row)
        if held is not None:
            return held, 0, 1
        deadline = time.monotonic() + seconds
        try:
            done = evaluate(rules, row, store, should_cancel=lambda: time.monotonic() > deadline,
                            max_positions=MAX_POSITIONS)
        except (CancelledError, LimitExceededError):
            return None, 0, 0
        return done.value, done.stats.positions_valued, done.stats.memo_hits

    return value


def _start(driver: int, ruleset: str, path: str) -> None:
    """(In a worker, first.) End with the driver; open the store and the ruleset once."""
    from ruma.client.sweep.driver import _start_worker
    from ruma.engine.rulesets import get_ruleset
    from ruma.engine.stores import open_store

    _start_worker(driver)
    store = open_store(path, create=False)
    Finalize(store, store.close, exitpriority=10)  # (the last values committed as the worker ends)
    _WORKER.update(store=store, value=valuer(get_ruleset(ruleset), store))


def _value(row: State, seconds: float, deadline: float) -> Answer:
    """(In a worker.) Value ``row`` within ``seconds``, and no later than ``deadline`` (the run's end:
    ``time.monotonic()`` is one clock for all the processes of the system)."""
    from ruma.studies.beyond import text

    store = _WORKER["store"]
    store.refresh()
    allowed = max(min(seconds, deadline - time.monotonic()), 0.1)
    value, computed, hits = _WORKER["value"](row, allowed)
    if computed:
        store.flush()  # (what it computed committed at once: the driver reads stored rows itself)
    return row, None if value is None else text(value), computed, hits, allowed


class CandidatePool:
    """``workers`` processes valuing the candidates of searches of ``rules`` in ``store`` (a stored
    candidate is read in this process: only the others go to the workers)."""

    def __init__(self, rules: Any, store: Any, workers: int) -> None:
        from ruma.client.sweep.driver import worker_context

        self.workers, self.store, self.lookup = workers, store, stored(rules, store)
        ruleset, path = rules.name, str(store.path)
        self.pool = futures.ProcessPoolExecutor(max_workers=workers, mp_context=worker_context(),
                                                initializer=_start, initargs=(os.getpid(), ruleset, path))

    def drive(self, search: Any) -> None:
        """Value ``search``'s candidates (a ``studies.beyond.Beyond`` in its ``run``) until its
        frontier is empty or its run's time is up, recording each answer in ``search``."""
        from ruma.studies.beyond import text

        flying: dict[futures.Future[Answer], State] = {}
        try:
            while True:
                self.store.refresh()  # (the values the workers committed)
                while len(flying) < IN_FLIGHT * self.workers and (row := search.next_candidate()) is not None:
                    held = self.lookup(row)  # (a stored row is read here, as this process would)
                    if held is not None:
                        search.record(row, 0.0, text(held), 0, 1)
                        continue
                    search.pending.add(row)
                    flying[self.pool.submit(_value, row, search.budget(row), search.deadline)] = row
                if not flying:
                    return
                done, _ = futures.wait(flying, return_when=futures.FIRST_COMPLETED)
                for future in done:
                    del flying[future]
                    row, got, computed, hits, allowed = future.result()
                    search.record(row, allowed, got, computed, hits)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """End the workers now (what they were valuing is lost; the store keeps what they committed)."""
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(5)

    def close(self) -> None:
        """Shut the workers down (after the runs)."""
        self.pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> CandidatePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
