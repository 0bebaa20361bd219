"""Benchmark: nim sequence of ·37 by the rare/common split against the plain quadratic definition.

    python benchmarks/bench_octal.py                       # fast to 200,000 and 1,000,000; plain to 200,000
    python benchmarks/bench_octal.py --baseline-n 50000    # plain definition on a prefix only

Both methods run in this one invocation on the same machine; times are CPU seconds of this
process (``time.process_time``; wall seconds alongside), so other load on the machine matters
less. The plain method does Θ(n²) work, so a prefix time ``t(m)`` extrapolates to
``t(m) * (n/m)**2``, which is printed when the baseline is not run to ``--n``. The values of the
two methods are compared on their common prefix, and the P-positions of the first ``--n`` values
are compared with Erickson's thirteen.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

from ruma.engine.octal import OctalGame, quadratic_values

ERICKSON = [0, 3, 11, 19, 29, 45, 71, 97, 123, 149, 175, 313, 407]


def timed(fn, *args):  # type: ignore[no-untyped-def]
    """(result, cpu seconds, wall seconds)."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn(*args)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", default="0.37")
    parser.add_argument("--n", type=int, default=200_000, help="values for the comparison (default 200000)")
    parser.add_argument("--baseline-n", type=int, default=None, help="values for the plain method (default --n)")
    parser.add_argument("--big", type=int, default=1_000_000, help="values for the long fast run (0: skip)")
    args = parser.parse_args()
    baseline_n = args.baseline_n or args.n

    report: dict[str, object] = {"code": args.code, "python": platform.python_version(), "n": args.n}

    fast_values, cpu, wall = timed(OctalGame(args.code).values, args.n)
    report["fast"] = {"n": args.n, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2)}
    p = [i for i, v in enumerate(fast_values) if v == 0]
    report["p_positions"] = p
    report["p_positions_match_erickson"] = p == ERICKSON if args.code in ("0.37", ".37") else None
    print(f"fast   {args.code} n={args.n}: {cpu:.1f} s CPU ({wall:.1f} s wall); P-positions {p}")

    fast_prefix, fcpu, _ = timed(OctalGame(args.code).values, baseline_n)
    plain, pcpu, pwall = timed(quadratic_values, OctalGame(args.code), baseline_n)
    assert plain == fast_prefix == fast_values[:baseline_n], "fast and plain sequences differ"
    report["plain"] = {"n": baseline_n, "cpu_s": round(pcpu, 2), "wall_s": round(pwall, 2)}
    report["fast_same_n_cpu_s"] = round(fcpu, 2)
    report["speedup_same_n"] = round(pcpu / fcpu, 1)
    print(f"plain  {args.code} n={baseline_n}: {pcpu:.1f} s CPU ({pwall:.1f} s wall); values equal")
    print(f"fast   {args.code} n={baseline_n}: {fcpu:.1f} s CPU -> {pcpu / fcpu:.1f}x faster at the same n")
    if baseline_n < args.n:
        estimate = pcpu * (args.n / baseline_n) ** 2
        report["plain_extrapolated_cpu_s"] = round(estimate, 1)
        report["speedup_extrapolated"] = round(estimate / cpu, 1)
        print(f"plain  n={args.n} extrapolated (quadratic): {estimate:.0f} s CPU -> {estimate / cpu:.1f}x")

    if args.big:
        game = OctalGame(args.code)
        big_values, bcpu, bwall = timed(game.values, args.big)
        bp = [i for i, v in enumerate(big_values) if v == 0]
        report["big"] = {
            "n": args.big,
            "cpu_s": round(bcpu, 2),
            "wall_s": round(bwall, 2),
            "p_positions": bp,
            "max_value": max(big_values),
            "rare_mask": game.rare_mask,
            "rare_heaps": len(game.rare_heaps),
        }
        print(f"fast   {args.code} n={args.big}: {bcpu:.1f} s CPU ({bwall:.1f} s wall); P-positions {bp}; "
              f"mask {game.rare_mask}, {len(game.rare_heaps)} rare heaps, largest value {max(big_values)}")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
