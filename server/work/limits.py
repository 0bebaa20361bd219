"""The service's limits (kept apart from the servicer so that ``ruma --help`` does not import grpc).

``Limits`` is what one request may ask of the server and what the server's heavy work may use
together; ``docs/service.md`` ("Limits and guarantees") lists each with its flag and what a client
gets when it is hit. Value expressions have their own limits (``ruma.engine.cgt.expression``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ruma.engine.limits import MAX_POSITIONS, MAX_POTS, MAX_SEEDS

#: a request's time budget from its arrival, unless ``--max-seconds`` says otherwise (a local
#: evaluation's is ``ruma.client.cli.options.LOCAL_MAX_SECONDS``)
REQUEST_MAX_SECONDS = 60.0


def default_memory() -> int:
    """The default evaluation memory budget: half the machine's memory, at most 4 GiB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 << 30
    return min(4 << 30, total // 2)


def default_eval_workers() -> int:
    """Evaluation worker processes: one per core, two to four."""
    return max(2, min(4, os.cpu_count() or 2))


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server (``None``: unlimited)."""

    max_pots: int | None = MAX_POTS
    max_seeds: int | None = MAX_SEEDS
    max_positions: int | None = MAX_POSITIONS
    max_batch_size: int = 10_000
    max_seconds: float | None = REQUEST_MAX_SECONDS
    """a request's time budget from its arrival: beyond it RESOURCE_EXHAUSTED"""
    max_memory: int | None = None
    """bytes the evaluation workers may use together (``None``: ``default_memory()``; 0: unlimited)"""
    eval_workers: int | None = None
    """worker processes for heavy work (``None``: ``default_eval_workers()``; 0: in the server process)"""
    max_queue: int = 64
    """heavy requests that may wait for a worker; more are refused"""
    max_text: int = 10_000
    """characters of a position or a value expression"""

    @property
    def memory_budget(self) -> int | None:
        """The evaluation memory budget in bytes (``None``: unlimited)."""
        if self.max_memory is None:
            return default_memory()
        return self.max_memory or None

    @property
    def workers(self) -> int:
        """How many evaluation worker processes (0: heavy work runs in the server process)."""
        return default_eval_workers() if self.eval_workers is None else max(0, self.eval_workers)
