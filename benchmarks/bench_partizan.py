"""Partizan against impartial search: time and memory per position, one invocation.

    python benchmarks/bench_partizan.py [--partizan sowing 1^13] [--impartial impartial-sowing 1^14]
                                        [--repeat 1] [--no-check] [--json]

Runs ``ruma eval RULESET POSITION --no-limit --format json`` as a new user would, each in its own
process (alternated ``--repeat`` times, best run reported), and reads the process's CPU seconds and
peak resident memory from ``wait4``. Per position: wall and CPU microseconds, and peak bytes over
the positions valued. Ratios: partizan / impartial time per position (the target is <= 3), from the best runs and, with
``--repeat`` > 1, each repeat's own (its two runs back to back: this machine's speed drifts between
repeats), and the partizan bytes per position (the target is <= 150). ``--check`` (the default) values the
partizan position again with the pure-Python engine (``RUMA_ENGINE=python``, the reference) in a
separate process and requires the same value and positions valued. Last, the partizan position is
valued once more in this process with ``gc.callbacks`` timing the cyclic collector: its share of
the evaluation's wall time. The load average is printed with the figures: the machine's 2 cores
are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

RUMA = [sys.executable, "-c", "import sys; from ruma.client.cli.main import main; sys.exit(main(sys.argv[1:]))"]


def run(ruleset: str, position: str, engine: str | None = None) -> dict[str, Any]:
    """One ``ruma eval`` in a child process: its value, positions valued, wall and CPU seconds,
    and peak RSS (bytes)."""
    env = {k: v for k, v in os.environ.items() if k != "RUMA_ENGINE"}
    if engine:
        env["RUMA_ENGINE"] = engine
    read, write = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: ruma eval, its output into the pipe
        os.close(read)
        os.dup2(write, 1)
        os.execve(sys.executable, [*RUMA, "eval", ruleset, position, "--no-limit", "--format", "json"], env)
    os.close(write)
    with os.fdopen(read) as out:
        text = out.read()
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"ruma eval {ruleset} {position} failed ({status}): {text[-500:]}")
    record = json.loads(text)
    return {"value": record["value"]["ascii"] if isinstance(record["value"], dict) else record["value"],
            "positions": record["stats"]["positions_valued"], "seconds": seconds,
            "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss * 1024}


def collector_share(ruleset: str, position: str) -> dict[str, float]:
    """Value ``position`` in this process; the collections the cyclic collector made meanwhile, and
    their seconds against the evaluation's."""
    import gc

    from ruma.engine.evaluator import evaluate

    spent, count, started = 0.0, 0, 0.0

    def timing(phase: str, info: dict[str, int]) -> None:
        nonlocal spent, count, started
        if phase == "start":
            started = time.perf_counter()
        else:
            spent, count = spent + time.perf_counter() - started, count + 1

    gc.callbacks.append(timing)
    try:
        began = time.perf_counter()
        evaluate(ruleset, position)
        total = time.perf_counter() - began
    finally:
        gc.callbacks.remove(timing)
    return {"collections": count, "collector_seconds": spent, "seconds": total}


def main(argv: list[str] | None = None) -> int:
    """Run both evaluations and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--partizan", nargs=2, default=["sowing", "1^13"], metavar=("RULESET", "POSITION"))
    parser.add_argument("--impartial", nargs=2, default=["impartial-sowing", "1^14"], metavar=("RULESET", "POSITION"))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="skip valuing the partizan position again with the pure-Python engine")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    best: dict[str, dict[str, Any]] = {}
    pairs: list[float] = []  # each repeat's own CPU ratio: the two runs back to back
    for _ in range(args.repeat):
        this: dict[str, float] = {}
        for name, (ruleset, position) in (("partizan", args.partizan), ("impartial", args.impartial)):
            result = run(ruleset, position)
            this[name] = result["cpu"] / result["positions"]
            if name in best and result["value"] != best[name]["value"]:
                raise SystemExit(f"{ruleset} {position}: values differ between runs")
            if name not in best or result["seconds"] < best[name]["seconds"]:
                best[name] = result
        pairs.append(this["partizan"] / this["impartial"])
    reference = run(*args.partizan, engine="python") if args.check else None
    collector = collector_share(*args.partizan)
    if reference is not None and (reference["value"], reference["positions"]) != (best["partizan"]["value"],
                                                                                  best["partizan"]["positions"]):
        raise SystemExit(f"the compiled engine's value {best['partizan']['value']!r} differs from the reference's "
                         f"{reference['value']!r}")
    p, i = best["partizan"], best["impartial"]
    per = {name: {"wall_us": 1e6 * r["seconds"] / r["positions"], "cpu_us": 1e6 * r["cpu"] / r["positions"],
                  "bytes": r["peak"] / r["positions"]} for name, r in best.items()}
    record = {"partizan": {"command": args.partizan, **p, **per["partizan"]},
              "impartial": {"command": args.impartial, **i, **per["impartial"]},
              "wall_ratio": per["partizan"]["wall_us"] / per["impartial"]["wall_us"],
              "cpu_ratio": per["partizan"]["cpu_us"] / per["impartial"]["cpu_us"],
              "pair_cpu_ratios": pairs,
              "reference": reference, "collector": collector, "load_average": [round(x, 2) for x in load + os.getloadavg()]}
    if args.json:
        print(json.dumps(record, indent=2))
        return 0
    for name in ("partizan", "impartial"):
        r = record[name]
        print(f"{' '.join(r['command']):28} {r['positions']:>11,} positions  {r['seconds']:7.2f} s wall  "
              f"{r['cpu']:7.2f} s CPU  {r['peak'] / 2**20:7.0f} MB peak   {r['wall_us']:5.2f} us  "
              f"{r['cpu_us']:5.2f} us CPU  {r['bytes']:4.0f} B a position   value {r['value']}")
    print(f"  partizan / impartial time a position: {record['wall_ratio']:.2f} wall, {record['cpu_ratio']:.2f} CPU "
          f"(target <= 3); partizan bytes a position {per['partizan']['bytes']:.0f} (target <= 150)")
    if len(pairs) > 1:
        print(f"  each repeat's own CPU ratio (its two runs back to back): min {min(pairs):.2f}, "
              f"median {statistics.median(pairs):.2f}, max {max(pairs):.2f}")
    if reference is not None:
        print(f"  checked: RUMA_ENGINE=python gives {reference['value']} in {reference['seconds']:.1f} s, "
              f"{reference['peak'] / 2**20:.0f} MB")
    print(f"  cyclic collector: {collector['collections']} collections, {collector['collector_seconds']:.3f} s of "
          f"{collector['seconds']:.2f} s ({100 * collector['collector_seconds'] / collector['seconds']:.2f} %)")
    print(f"  load average before and after: {record['load_average']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
