"""Sweep scaling: one worker against two, and Ray actors against local processes, on one family.

    python benchmarks/bench_sweep.py                          # impartial-sowing, seeds and pots 0..10
    python benchmarks/bench_sweep.py --ruleset sowing --seeds 9 --repeat 3 --ray

Each run sweeps the family into a fresh store in a temporary directory and times the whole
sweep (enumeration, valuing, committing). Configurations, alternated ``--repeat`` times (best
run reported): **inline** (``--workers 1``: this process values through the store), **processes
×1** and **processes ×2** (worker processes; the driver commits), and with ``--ray`` **ray ×2**
(a local Ray cluster on loopback, started once and reused; its start-up is reported apart). The
stores are checked to hold the same entries. CPU seconds (this process plus the workers' own
accounting) are printed too: on a machine shared with other work, wall ratios say little, and
inline CPU / (2-worker CPU / 2) bounds what two idle cores would give. Ratios: inline / processes×2 (the target is
>= 1.7), ray×2 / processes×2 (overhead, target <= 1.2). The load average is printed with the
figures: the machine's 2 cores are shared.

Then the **stages** of a sweep as ``ruma sweep`` runs it (``benchmarks/sweep_stages.py``), at
``--stage-workers`` workers (default 2): the CPU of the driver, of the dense rewrite, of the store's
writer process, of the workers' valuing and of their start-up; the serial share (driver, rewrite,
writer) and the speed-up Amdahl's law gives from them for 16 cores; and the serial share of the
command itself (its process tree's CPU less the workers' valuing: what ``/usr/bin/time`` and the
``--json`` summary give). ``--stages-only`` skips the configurations above.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from typing import Any, Callable

from ruma.client.sweep.driver import LocalProcesses, StoreSink, run_sweep
from ruma.engine.families.classes import Family
from ruma.engine.stores import open_store

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_stages import report  # noqa: E402 (beside this file)


def _entries(path: str) -> dict[bytes, Any]:
    store = open_store(path, create=False)
    try:
        return dict(store.admin.sample(10**9))
    finally:
        store.close()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(family: Family, make: Callable[[], dict[str, Any]]) -> tuple[float, dict[bytes, Any], int, float, float, float]:
    """Wall seconds, the store's entries, positions valued, CPU seconds (driver + workers), those
    of the driver (this process) alone, and those of the store's writer process (a child that has ended
    once the sink is closed; the pools' workers live on, so they are not in it)."""
    directory = tempfile.mkdtemp(prefix="ruma-bench-sweep-")
    sink = StoreSink(directory)
    started, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    try:
        summary = run_sweep(family, sink, **make())
    finally:
        sink.close()
    seconds = time.perf_counter() - started
    driver = time.process_time() - cpu
    cpu = driver + summary.worker_cpu_seconds
    writer = _children_cpu() - children
    entries = _entries(directory)
    shutil.rmtree(directory)
    # (this ext4 may trim the freed blocks with the next journal commit: synced now, so that the
    # next run's first commit does not wait for them, as bench_store.py does)
    os.sync()
    return seconds, entries, summary.positions_valued, cpu, driver, writer


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print a table (or JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="impartial-sowing")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--pots", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--ray", action="store_true", help="also time 2 Ray actors on a local cluster")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stage-workers", default="2", help="workers of the stage breakdown, comma-separated")
    parser.add_argument("--stages-only", action="store_true", help="only the stage breakdown")
    args = parser.parse_args(argv)
    family = Family.of(args.ruleset, (0, args.seeds), (1, args.pots or args.seeds))
    if args.stages_only:
        print(f"{family.describe()}: stages")
        for count in map(int, args.stage_workers.split(",")):
            report(family, count, args.ruleset, args.seeds)
        return 0
    pools = {1: LocalProcesses(1), 2: LocalProcesses(2)}
    configs: dict[str, Callable[[], dict[str, Any]]] = {
        "inline": lambda: {"workers": 1},
        "processes x1": lambda: {"backend": pools[1]},
        "processes x2": lambda: {"backend": pools[2]},
    }
    ray_start = None
    if args.ray:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        from ruma.client.sweep.ray import RayActors

        t = time.perf_counter()
        actors = RayActors(2)
        ray_start = time.perf_counter() - t
        configs["ray x2"] = lambda: {"backend": actors}
    best: dict[str, float] = {}
    best_cpu: dict[str, float] = {}
    best_writer: dict[str, float] = {}
    best_driver: dict[str, float] = {}
    reference: dict[bytes, Any] | None = None
    positions: dict[str, int] = {}
    for _ in range(args.repeat):
        for name, make in configs.items():
            seconds, entries, valued, cpu, driver, writer = _run(family, make)
            best_driver[name] = min(best_driver.get(name, float("inf")), driver)
            best[name] = min(best.get(name, float("inf")), seconds)
            best_cpu[name] = min(best_cpu.get(name, float("inf")), cpu)
            best_writer[name] = min(best_writer.get(name, float("inf")), writer)
            positions[name] = valued
            if reference is None:
                reference = entries
            elif entries != reference:
                raise SystemExit(f"{name}: the store differs from the inline sweep's")
    for pool in pools.values():
        pool.close()
    if args.ray:
        actors.close()
    load = os.getloadavg()
    record = {"family": family.describe(), "entries": len(reference or {}), "seconds": best,
              "positions_valued": positions, "speedup_2_workers": best["inline"] / best["processes x2"],
              "speedup_2_vs_1_process": best["processes x1"] / best["processes x2"],
              "ray_over_processes": (best["ray x2"] / best["processes x2"]) if args.ray else None,
              "ray_start_seconds": ray_start, "load_average": [round(x, 2) for x in load],
              "cpu_seconds": best_cpu, "driver_cpu_seconds": best_driver, "writer_cpu_seconds": best_writer,
              # what 2 idle cores allow: the inline sweep's CPU over half the parallel sweep's CPU
              "cpu_bound_speedup_2_workers": best_cpu["inline"] / (best_cpu["processes x2"] / 2),
              # the same with the store's writer process counted on both sides: the inline sweep's
              # wall is at least its own CPU (the writer runs beside it), two workers' at least half
              # of everything, the writer's share included
              "cpu_bound_with_writer": best_cpu["inline"]
              / ((best_cpu["processes x2"] + best_writer["processes x2"]) / 2)}
    if args.json:
        print(json.dumps(record))
        return 0
    print(f"{record['family']}: {record['entries']:,} entries; best of {args.repeat}")
    for name, seconds in best.items():
        print(f"  {name:14} {seconds:8.2f} s wall  {best_cpu[name]:8.2f} s CPU (driver + workers; driver "
              f"{best_driver[name]:.2f} s)  {best_writer[name]:5.2f} s writer   positions valued {positions[name]:,}")
    print(f"  inline / processes x2        = {record['speedup_2_workers']:.2f}x   (target >= 1.7)")
    print(f"  processes x1 / processes x2  = {record['speedup_2_vs_1_process']:.2f}x")
    print(f"  CPU bound on 2 idle cores: inline CPU / (processes x2 CPU / 2) = "
          f"{record['cpu_bound_speedup_2_workers']:.2f}x; with the writer's CPU in the x2 sweep: "
          f"{record['cpu_bound_with_writer']:.2f}x")
    if args.ray:
        print(f"  ray x2 / processes x2        = {record['ray_over_processes']:.2f}   (target <= 1.2); "
              f"Ray start-up {ray_start:.1f} s (not counted)")
    for count in map(int, args.stage_workers.split(",")):
        report(family, count, args.ruleset, args.seeds)
    load = os.getloadavg()
    print(f"  load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
