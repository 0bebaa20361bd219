"""LMDB store benchmark: cold valuation into a fresh store vs in memory, then warm queries.

    python benchmarks/bench_store.py [--suite NAME ...] [--repeat N] [--dir DIR] [--json]

For each suite, three fresh processes (so no process-level cache of canonical forms helps):

1. **memory**: value the suite's positions with one fresh ``InMemoryMemo`` (the baseline);
2. **cold**: value them into a fresh ``LmdbStore`` (including the final flush);
3. **warm**: a new process opens the same store and queries the same positions.

Reported per suite: seconds (wall and CPU) of each run; the cold-run overhead of persistence
(cold / memory − 1); measured inside the cold run itself, the wall time spent in
the store's ``lookup``/``insert``/``flush`` relative to the rest of that run (steadier on a
shared machine than a difference of two runs); the warm speed-up (cold / warm; target ≥ 1000×);
stored entries and bytes per stored entry (B-tree pages / entries, i.e. a compacted copy; in
brackets the file's high-water mark, which also counts free pages LMDB keeps for reuse). Values
of the warm run are checked to equal the cold run's (as text). The memory and cold runs of a
suite run back to back to share machine conditions; with ``--repeat N`` each mode runs N times
(alternating) and the best (least CPU for memory/cold, least wall for warm) is kept — on a
shared machine CPU seconds (``time.process_time``: all threads, user + system) are steadier
than wall seconds.

The cold run's CPU seconds include those of the store's writer process (``server/store/writer.py``,
which writes the large batches of nim values on the other core while the search goes on; its
CPU is taken from ``RUSAGE_CHILDREN`` once the store is closed), shown apart as ``main + writer``.
With the writer the cold run uses two cores: its *wall* time is what a user waits, and on a busy
machine (load ≥ 1 of the 2 cores) the two processes share one core and the wall figure says
nothing about the design — compare the CPU of the main process with the memory run instead.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SUITES: dict[str, tuple[str, list[str]]] = {
    "sowing": ("sowing", ["1^11", "2^7", "3^7"]),
    "impartial-sowing": ("impartial-sowing", ["1^12", "2^8", "3^8"]),
    "atomic-wari": ("atomic-wari", ["4444", "333333"]),
    "impartial-atomic-wari": ("impartial-atomic-wari", ["4444", "333333"]),
    "impartial-atomic-wari-large": ("impartial-atomic-wari", ["4444", "333333", "44444"]),
    "smoke": ("sowing", ["1^8", "2^5"]),  # seconds, for trying the benchmark; not run by default
}
DEFAULT = ["sowing", "impartial-sowing", "atomic-wari", "impartial-atomic-wari"]


def child(mode: str, ruleset: str, positions: list[str], directory: str) -> dict[str, Any]:
    """One measurement in this (fresh) process; returns a JSON-able record."""
    from ruma.engine.cgt import format_value
    from ruma.engine.evaluator import evaluate
    from ruma.engine.memo import InMemoryMemo
    from ruma.engine.rulesets import get_ruleset
    from ruma.server.store.memo import LmdbStore

    rules = get_ruleset(ruleset)  # import the ruleset's module before timing
    opened = time.perf_counter()
    store: Any = None if mode == "memory" else LmdbStore(directory)
    memo: Any = InMemoryMemo() if store is None else _Timed(store)
    open_seconds = time.perf_counter() - opened
    wall, cpu = time.perf_counter(), time.process_time()
    results = [evaluate(rules, text, memo) for text in positions]
    if store is not None:
        memo.flush()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    record: dict[str, Any] = {
        "mode": mode,
        "wall": wall,
        "cpu": cpu,
        "open_seconds": open_seconds,
        "positions_valued": sum(r.stats.positions_valued for r in results),
        "memo_hits": sum(r.stats.memo_hits for r in results),
        "values": [format_value(r.value) for r in results],
    }
    if store is None:
        record["entries"] = len(memo)
    else:
        record["in_store_seconds"] = memo.seconds
        stats = store.admin.stats()
        record.update(entries=stats["entries"], bytes=stats["bytes"], games=stats["games"],
                      data_bytes=stats["data_bytes"], bytes_per_entry=stats["bytes_per_entry"],
                      file_bytes_per_entry=stats["file_bytes_per_entry"])
        store.close()  # (ends the store's writer process, if it started one: its CPU time is counted below)
    writer = resource.getrusage(resource.RUSAGE_CHILDREN)
    record["cpu_main"] = record["cpu"]
    record["cpu_writer"] = writer.ru_utime + writer.ru_stime
    record["cpu"] += record["cpu_writer"]
    return record


class _Timed:
    """A store wrapper adding up the wall time spent inside ``lookup``/``insert``/``flush``.

    Timing inside one run is immune to the load that other processes put on a shared machine,
    unlike the difference of two runs; two ``perf_counter`` calls cost ~0.1 µs per call.
    """

    def __init__(self, store: Any) -> None:
        self.store = store
        self.seconds = 0.0

    @property
    def recent(self) -> Any:
        return self.store.recent  # (a dict the compiled search reads in C: not timed)

    def lookup(self, key: bytes) -> Any:
        started = time.perf_counter()
        try:
            return self.store.lookup(key)
        finally:
            self.seconds += time.perf_counter() - started

    def insert(self, key: bytes, value: Any, explored: int = 0) -> None:
        started = time.perf_counter()
        try:
            self.store.insert(key, value, explored)
        finally:
            self.seconds += time.perf_counter() - started

    def lookup_many(self, keys: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.store.lookup_many(keys)
        finally:
            self.seconds += time.perf_counter() - started

    def insert_many(self, items: Any) -> None:
        started = time.perf_counter()
        try:
            self.store.insert_many(items)
        finally:
            self.seconds += time.perf_counter() - started

    def insert_packed(self, frame: bytes, cache: Any = None) -> None:
        started = time.perf_counter()
        try:
            self.store.insert_packed(frame, cache)
        finally:
            self.seconds += time.perf_counter() - started

    def flush(self) -> None:
        started = time.perf_counter()
        try:
            self.store.flush()
        finally:
            self.seconds += time.perf_counter() - started


def measure(mode: str, ruleset: str, positions: list[str], directory: Path) -> dict[str, Any]:
    """Run ``child`` in a fresh interpreter."""
    command = [sys.executable, __file__, "--child", mode, "--ruleset", ruleset, "--dir", str(directory), *positions]
    # as a user's Python runs: with cached bytecode. Where PYTHONDONTWRITEBYTECODE is set (this
    # sandbox sets it), every process compiles what it imports — in the timed region, the lazily
    # imported modules (ruma.engine.octal) and the whole start-up of the store's writer process
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def run_suite(name: str, base: Path, repeat: int = 1) -> dict[str, Any]:
    """Memory, cold and warm runs of one suite (best of ``repeat``, alternating); derived ratios."""
    ruleset, positions = SUITES[name]
    directory = base / name
    memories, colds, warms = [], [], []
    for _ in range(repeat):
        shutil.rmtree(directory, ignore_errors=True)
        # Let the file system settle first: the previous repeat's (or suite's) store just deleted,
        # ext4 (mounted with discard here) trims its blocks at its next journal commit — which the
        # cold run's first fsync would otherwise wait for, measuring the last run's clean-up.
        os.sync()
        memories.append(measure("memory", ruleset, positions, directory))
        colds.append(measure("cold", ruleset, positions, directory))
        warms.append(measure("warm", ruleset, positions, directory))
    memory = min(memories, key=lambda r: r["cpu"])
    cold = min(colds, key=lambda r: r["cpu"])
    warm = min(warms, key=lambda r: r["wall"])
    memory["wall"] = min(r["wall"] for r in memories)
    cold["wall"] = min(r["wall"] for r in colds)
    assert warm["positions_valued"] == 0, f"{name}: the warm run valued {warm['positions_valued']} positions"
    assert memory["values"] == cold["values"] == warm["values"], f"{name}: values differ between runs"
    assert memory["entries"] == cold["entries"], f"{name}: store holds {cold['entries']} of {memory['entries']}"
    return {
        "suite": name,
        "ruleset": ruleset,
        "positions": positions,
        "memory": memory,
        "cold": cold,
        "warm": warm,
        "overhead_wall": cold["wall"] / memory["wall"] - 1,
        "overhead_cpu": cold["cpu"] / memory["cpu"] - 1,
        "overhead_cpu_main": cold["cpu_main"] / memory["cpu"] - 1,
        "warm_speedup": cold["wall"] / warm["wall"],
        "in_store_share": cold["in_store_seconds"] / (cold["wall"] - cold["in_store_seconds"]),
    }


def main() -> int:
    """Parse arguments; run the suites (or one child measurement)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", choices=sorted(SUITES), help="suites to run (default all)")
    parser.add_argument("--dir", help="where to create the stores (default: a temporary directory)")
    parser.add_argument("--json", action="store_true", help="one JSON object per suite")
    parser.add_argument("--repeat", type=int, default=1, help="runs per mode; the best is kept (default 1)")
    parser.add_argument("--child", choices=["memory", "cold", "warm"], help=argparse.SUPPRESS)
    parser.add_argument("--ruleset", help=argparse.SUPPRESS)
    parser.add_argument("positions", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.ruleset, args.positions, args.dir)))
        return 0
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="ruma-bench-store-"))
    if not args.json:
        print("| suite | positions valued | memory s (cpu) | cold store s (cpu main + writer) "
              "| overhead wall / cpu / main cpu "
              "| in-store time / rest | warm s | warm speed-up | entries | bytes/entry data (file) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
    try:
        for name in args.suite or DEFAULT:
            r = run_suite(name, base, args.repeat)
            if args.json:
                print(json.dumps(r))
                continue
            m, c, w = r["memory"], r["cold"], r["warm"]
            print(f"| {name} {' '.join(r['positions'])} | {c['positions_valued']} "
                  f"| {m['wall']:.2f} ({m['cpu']:.2f}) | {c['wall']:.2f} ({c['cpu_main']:.2f} + {c['cpu_writer']:.2f}) "
                  f"| {r['overhead_wall']:+.1%} / {r['overhead_cpu']:+.1%} / {r['overhead_cpu_main']:+.1%} "
                  f"| {r['in_store_share']:.1%} "
                  f"| {w['wall'] * 1000:.2f} ms "
                  f"| {r['warm_speedup']:,.0f}× | {c['entries']} "
                  f"| {c['bytes_per_entry']:.0f} ({c['file_bytes_per_entry']:.0f}) |", flush=True)
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
