"""What a second worker can gain on this machine at best: one valuation alone against two at once.

    python benchmarks/sweep_contention.py [--ruleset impartial-sowing] [--seeds 11] [--rounds 5]

Each round runs the same work — ``value_many`` over every class of the family with a fresh
in-memory memo, no store and no driver — first in one process, then in two processes started
together (a barrier releases them at once), and times the valuing inside each process. Two
workers that split a sweep perfectly, with no duplicated position and no coordination at all,
would take ``together`` seconds for half the work each: their ceiling is ``alone / together × 2``
against one worker. On a machine whose two cores share caches and memory bandwidth this is below
2 for a search that lives in hash tables; it bounds every sweep design, not only ruma's.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from typing import Any


def _value(ruleset: str, seeds: int, barrier: Any, out: Any) -> None:
    from ruma.engine.evaluator import value_many
    from ruma.engine.families.classes import Family, enumerate_states
    from ruma.engine.families.packets import RecordingMemo
    from ruma.engine.rulesets import get_ruleset

    rules = get_ruleset(ruleset)
    states, _, _ = enumerate_states(Family.of(ruleset, (0, seeds)))
    barrier.wait()
    started = time.perf_counter()
    value_many(rules, states, RecordingMemo())
    out.put(time.perf_counter() - started)


def _run(context: Any, ruleset: str, seeds: int, copies: int) -> list[float]:
    barrier, out = context.Barrier(copies), context.Queue()
    processes = [context.Process(target=_value, args=(ruleset, seeds, barrier, out)) for _ in range(copies)]
    for process in processes:
        process.start()
    times = [out.get() for _ in processes]
    for process in processes:
        process.join()
    return times


def main(argv: list[str] | None = None) -> int:
    """Run the rounds; print the times and the ceiling."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="impartial-sowing")
    parser.add_argument("--seeds", type=int, default=11)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    context = multiprocessing.get_context("spawn")
    alone: list[float] = []
    together: list[float] = []
    for _ in range(args.rounds):  # (alternating, so that both see the same moments of the machine)
        alone += _run(context, args.ruleset, args.seeds, 1)
        together += _run(context, args.ruleset, args.seeds, 2)
    ceilings = [2 * a / max(t) for a, t in zip(alone, zip(together[::2], together[1::2]))]
    print(f"{args.ruleset} seeds 0..{args.seeds}, {args.rounds} rounds")
    print(f"  one process alone        best {min(alone):.3f} s   median {statistics.median(alone):.3f} s")
    print(f"  two processes at once    best {min(together):.3f} s   median {statistics.median(together):.3f} s (each)")
    print(f"  ceiling of two workers   best {max(ceilings):.2f}x   median {statistics.median(ceilings):.2f}x"
          f"   (2 x alone / the slower of the two, per round)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
