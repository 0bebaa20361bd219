"""Evaluator benchmark: ruma against cgt-py- and pycgt-based reference evaluators, one invocation.

    python benchmarks/bench_evaluator.py [--suite NAME ...] [--peers cgt-py,pycgt] [--json]

Each engine values each position of each suite with a fresh memo (ruma: a fresh ``InMemoryMemo``;
peers: a fresh evaluator whose dict cache is their memo). Values are checked to agree. Prints the
seconds per suite and the ratio ruma / fastest peer. Targets (issue 3): at most 1/3 on the partizan
suites and at most 1/20 on the impartial suites.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.reference_evaluators import CgtPyEvaluator, PycgtEvaluator, to_cgt_py  # noqa: E402
from ruma.engine.evaluator import evaluate  # noqa: E402
from ruma.engine.memo import InMemoryMemo  # noqa: E402
from ruma.engine.rulesets import get_ruleset  # noqa: E402

SUITES: dict[str, tuple[str, list[str], float]] = {
    # name: (ruleset, positions, target ratio)
    "sowing": ("sowing", ["1^11", "2^7", "3^7"], 1 / 3),
    "impartial-sowing": ("impartial-sowing", ["1^12", "2^8", "3^8"], 1 / 20),
    "atomic-wari": ("atomic-wari", ["4444", "333333"], 1 / 3),
    "impartial-atomic-wari": ("impartial-atomic-wari", ["4444", "333333"], 1 / 20),
}
PEERS: dict[str, Callable[[str], Any]] = {"cgt-py": CgtPyEvaluator, "pycgt": PycgtEvaluator}


def time_ruma(ruleset: str, positions: list[str]) -> tuple[float, list[Any], int]:
    """Seconds for ruma to value ``positions`` with one fresh memo, the values, positions valued."""
    memo = InMemoryMemo()
    started = time.perf_counter()
    results = [evaluate(ruleset, text, memo) for text in positions]
    seconds = time.perf_counter() - started
    return seconds, [r.value for r in results], sum(r.stats.positions_valued for r in results)


def time_peer(peer: str, ruleset: str, positions: list[str]) -> tuple[float, list[Any], int]:
    """Seconds for a reference evaluator (fresh cache) to value ``positions``."""
    rules = get_ruleset(ruleset)
    states = [rules.parse(text) for text in positions]
    evaluator = PEERS[peer](ruleset)
    started = time.perf_counter()
    values = [evaluator.value(state) for state in states]
    seconds = time.perf_counter() - started
    return seconds, values, len(evaluator.cache)


def same(ours: Any, theirs: Any, peer: str) -> bool:
    """Whether a ruma value equals a peer's value."""
    if peer == "cgt-py":
        return bool(to_cgt_py(ours) == theirs)
    import pycgt

    from benchmarks.reference_evaluators import to_pycgt

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
        ours, values, valued = time_ruma(ruleset, positions)
        row: dict[str, Any] = {"suite": name, "positions": positions, "ruma_s": round(ours, 3), "ruma_valued": valued}
        best = None
        for peer in peers:
            seconds, theirs, visited = time_peer(peer, ruleset, positions)
            agree = all(same(a, b, peer) for a, b in zip(values, theirs))
            failed |= not agree
            row[f"{peer}_s"] = round(seconds, 3)
            row[f"{peer}_visited"] = visited
            row[f"{peer}_agrees"] = agree
            best = seconds if best is None else min(best, seconds)
        if best:
            row["ratio"] = round(ours / best, 4)
            row["target"] = round(target, 4)
            row["meets_target"] = ours / best <= target
        if args.json:
            print(json.dumps(row))
        else:
            peer_text = "  ".join(f"{p} {row[p + '_s']:.2f}s" for p in peers)
            ratio = f"ratio {row['ratio']:.3f} (target ≤ {target:.3f})" if best else ""
            print(f"{name:22} ruma {ours:.2f}s ({valued} valued)  {peer_text}  {ratio}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
