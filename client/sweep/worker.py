"""The code a sweep worker runs, in a local process or a Ray actor (kept small and importable).

``work(task)`` values one shard and returns what it computed. A worker process keeps one
``RecordingMemo`` per sweep across tasks, so everything it (or, through the forwarded packets,
any other worker) valued before is a lookup. When the driver's store is on this machine the
memo falls back to reading it (never writing: only the driver writes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ruma.engine.evaluator import value_many
from ruma.engine.families.packets import RecordingMemo, WirePacket, pack_wire, unpack_wire
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import State
from ruma.engine.stores import Store, open_store


@dataclass(frozen=True)
class Task:
    """One shard: which sweep, ruleset and states; the packets other workers produced since this
    worker's last task; the local store the worker may read (or ``None``)."""

    sweep_id: str
    ruleset: str
    states: list[State]
    incoming: list[WirePacket]
    store_path: str | None = None


@dataclass(frozen=True)
class Result:
    """What a shard produced: the entries computed (a packet), positions computed, wall and CPU
    seconds of the worker."""

    packet: WirePacket
    computed: int
    seconds: float
    cpu_seconds: float = 0.0


_MEMOS: dict[str, tuple[RecordingMemo, Store | None]] = {}


def _memo(task: Task) -> RecordingMemo:
    held = _MEMOS.get(task.sweep_id)
    if held is None:
        for _, old_store in _MEMOS.values():
            if old_store is not None:
                old_store.close()
        _MEMOS.clear()
        store = open_store(task.store_path, create=False) if task.store_path else None
        memo = RecordingMemo(store.lookup, store.lookup_many) if store is not None else RecordingMemo()
        held = _MEMOS[task.sweep_id] = (memo, store)
    return held[0]


def work(task: Task) -> Result:
    """Value ``task.states`` and return the entries computed (see the module docstring)."""
    started, cpu = time.perf_counter(), time.process_time()
    rules = get_ruleset(task.ruleset)
    memo = _memo(task)
    for packet in task.incoming:
        memo.learn(unpack_wire(packet, rules.impartial))
    computed = value_many(rules, task.states, memo)
    packet = pack_wire(memo.take())
    return Result(packet, computed, time.perf_counter() - started, time.process_time() - cpu)


def forget() -> None:
    """Drop this process's memos (and close the stores they read)."""
    for _, store in _MEMOS.values():
        if store is not None:
            store.close()
    _MEMOS.clear()
