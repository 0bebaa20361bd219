"""The code a sweep worker runs, in a local process or a Ray actor (kept small and importable).

``work(task)`` values one shard and returns what it computed. A worker process keeps one
``RecordingMemo`` per sweep across tasks, so everything it (or, through the forwarded packets,
any other worker) valued before is a lookup. When the driver's store is on this machine the
memo falls back to reading it (never writing: only the driver writes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import State
from ruma.engine.evaluator import value_many
from ruma.engine.sweep_values import Packet, RecordingMemo, pack, unpack


@dataclass(frozen=True)
class Task:
    """One shard: which sweep, ruleset and states; the packets other workers produced since this
    worker's last task; the local store the worker may read (or ``None``); the path of the
    sweep's shared table of values (``sweep_shared``; ``None``: values go back in the packet)."""

    sweep_id: str
    ruleset: str
    states: list[State]
    incoming: list[Packet]
    store_path: str | None = None
    shared: str | None = None


@dataclass(frozen=True)
class Result:
    """What a shard produced: the entries computed (a packet), positions computed, wall and CPU
    seconds of the worker."""

    packet: Packet
    computed: int
    seconds: float
    cpu_seconds: float = 0.0


_MEMOS: dict[str, tuple[RecordingMemo, Any, Any]] = {}  # sweep id -> (memo, store, shared region)


def open_store(path: str, create: bool = True) -> Any:
    """The persistent store in ``path`` through the ``ruma.stores`` entry point (never the server)."""
    for entry in entry_points(group="ruma.stores"):
        if entry.name == "lmdb":
            return entry.load()(path, create=create)
    raise RuntimeError(f"no store backend installed to open {path!r}")


def _memo(task: Task) -> RecordingMemo:
    held = _MEMOS.get(task.sweep_id)
    if held is None:
        forget()
        store = open_store(task.store_path, create=False) if task.store_path else None
        memo = RecordingMemo(store.lookup, getattr(store, "lookup_many", None)) if store is not None else RecordingMemo()
        region = None
        if task.shared:
            from ruma.client.sweep_table import attach_table

            region, memo.shared = attach_table(task.shared, get_ruleset(task.ruleset))
        held = _MEMOS[task.sweep_id] = (memo, store, region)
    return held[0]


def work(task: Task) -> Result:
    """Value ``task.states`` and return the entries computed (see the module docstring)."""
    started, cpu = time.perf_counter(), time.process_time()
    rules = get_ruleset(task.ruleset)
    memo = _memo(task)
    for packet in task.incoming:
        memo.learn(unpack(packet, rules.impartial))
    computed = value_many(rules, task.states, memo)
    new = memo.take()
    shared = memo.shared
    # with a shared table the driver drains the values from it, unless it ran out of room
    packet = pack(new) if shared is None or shared.stats()["full"] else pack([])
    return Result(packet, computed, time.perf_counter() - started, time.process_time() - cpu)


def forget() -> None:
    """Drop this process's memos (and close the stores they read)."""
    for memo, store, region in _MEMOS.values():
        if store is not None:
            store.close()
        if region is not None:
            memo.shared = None  # (the table goes first: it holds the mapping)
            region.close()
    _MEMOS.clear()
