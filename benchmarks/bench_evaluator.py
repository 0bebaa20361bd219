"""Evaluator benchmark: ruma against cgt-py- and pycgt-based reference evaluators, one invocation.

    python benchmarks/bench_evaluator.py [--suite NAME ...] [--peers cgt-py,pycgt] [--json]

Each engine values each position of each suite with a fresh memo (ruma: a fresh ``InMemoryMemo``;
peers: a fresh evaluator whose dict cache is their memo). Values are checked to agree. Prints the
seconds per suite (wall and CPU), the ratios ruma / fastest peer in wall and in CPU seconds (on
a machine shared with other work, CPU seconds — ``time.process_time`` — are the steadier), and with
the compiled engine the bytes per position of the evaluator's table (its size at the end of each
evaluation over the positions it holds). ruma runs the engine ``RUMA_ENGINE`` selects (default: the
compiled one when built). Targets: at most 1/6 on the partizan suites and at most 1/25
on the impartial suites.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ruma.engine.evaluator import evaluate  # noqa: E402
from ruma.engine.memo import InMemoryMemo  # noqa: E402
from ruma.engine.native import active_engine  # noqa: E402
from ruma.engine.rulesets import get_ruleset  # noqa: E402
from tests.support.reference_evaluators import CgtPyEvaluator, PycgtEvaluator, to_cgt_py  # noqa: E402

SUITES: dict[str, tuple[str, list[str], float]] = {
    # name: (ruleset, positions, target ratio)
    "sowing": ("sowing", ["1^11", "2^7", "3^7"], 1 / 6),
    "impartial-sowing": ("impartial-sowing", ["1^12", "2^8", "3^8"], 1 / 25),
    "atomic-wari": ("atomic-wari", ["4444", "333333"], 1 / 6),
    "impartial-atomic-wari": ("impartial-atomic-wari", ["4444", "333333"], 1 / 25),
}
PEERS: dict[str, Callable[[str], Any]] = {"cgt-py": CgtPyEvaluator, "pycgt": PycgtEvaluator}


def time_ruma(ruleset: str, positions: list[str]) -> tuple[float, float, list[Any], int, float | None]:
    """ruma valuing ``positions`` with one fresh memo: wall and CPU seconds, the values, positions
    valued, and bytes per position of the compiled search's tables (None with the Python engine)."""
    memo = InMemoryMemo()
    get_ruleset(ruleset)  # import the ruleset (and the engine) before timing
    started, cpu = time.perf_counter(), time.process_time()
    results = [evaluate(ruleset, text, memo) for text in positions]
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    entries = sum(r.stats.table_entries for r in results)
    per_position = sum(r.stats.table_bytes for r in results) / entries if entries else None
    return seconds, cpu, [r.value for r in results], sum(r.stats.positions_valued for r in results), per_position


def time_peer(peer: str, ruleset: str, positions: list[str]) -> tuple[float, float, list[Any], int]:
    """Wall and CPU seconds for a reference evaluator (fresh cache) to value ``positions``."""
    rules = get_ruleset(ruleset)
    states = [rules.parse(text) for text in positions]
    evaluator = PEERS[peer](ruleset)
    started, cpu = time.perf_counter(), time.process_time()
    values = [evaluator.value(state) for state in states]
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return seconds, cpu, values, len(evaluator.cache)


def same(ours: Any, theirs: Any, peer: str) -> bool:
    """Whether a ruma value equals a peer's value."""
    if peer == "cgt-py":
        return bool(to_cgt_py(ours) == theirs)
    import pycgt

    from tests.support.reference_evaluators import to_pycgt

    return bool(pycgt.equals(to_pycgt(ours), theirs))


def main() -> int:
    """Run the suites and print times and ratios."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", action="append", choices=sorted(SUITES), help="suites to run (default all)")
    parser.add_argument("--peers", default="cgt-py,pycgt", help="comma-separated peers (default cgt-py,pycgt)")
    parser.add_argument("--json", action="store_true", help="one JSON object per suite")
    args = parser.parse_args()
    peers = [p for p in args.peers.split(",") if p]
    failed = False
    for name in args.suite or list(SUITES):
        ruleset, positions, target = SUITES[name]
        ours, cpu, values, valued, per_position = time_ruma(ruleset, positions)
        row: dict[str, Any] = {"suite": name, "positions": positions, "engine": active_engine(), "ruma_s": round(ours, 3),
                               "ruma_cpu_s": round(cpu, 3), "ruma_valued": valued,
                               "table_bytes_per_position": None if per_position is None else round(per_position, 1)}
        best = best_cpu = None
        for peer in peers:
            seconds, peer_cpu, theirs, visited = time_peer(peer, ruleset, positions)
            agree = all(same(a, b, peer) for a, b in zip(values, theirs))
            failed |= not agree
            row[f"{peer}_s"] = round(seconds, 3)
            row[f"{peer}_cpu_s"] = round(peer_cpu, 3)
            row[f"{peer}_visited"] = visited
            row[f"{peer}_agrees"] = agree
            best = seconds if best is None else min(best, seconds)
            best_cpu = peer_cpu if best_cpu is None else min(best_cpu, peer_cpu)
        if best and best_cpu:
            row["ratio"] = round(ours / best, 4)
            row["cpu_ratio"] = round(cpu / best_cpu, 4)
            row["target"] = round(target, 4)
            row["meets_target"] = ours / best <= target
            row["meets_target_cpu"] = cpu / best_cpu <= target
        if args.json:
            print(json.dumps(row))
        else:
            peer_text = "  ".join(f"{p} {row[p + '_s']:.2f}s (cpu {row[p + '_cpu_s']:.2f}s)" for p in peers)
            ratio = (f"ratio wall 1/{best / ours:.1f}, cpu 1/{best_cpu / cpu:.1f} (target ≤ 1/{1 / target:.0f})"
                     if best and best_cpu else "")
            table = f", {per_position:.1f} B/position" if per_position is not None else ""
            print(f"{name:22} ruma {ours:.2f}s (cpu {cpu:.2f}s, {valued} valued{table})  {peer_text}  {ratio}",
                  flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
