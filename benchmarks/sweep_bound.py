"""What the order of a parallel sweep allows: speed-up bounds from the cells' dependency graph.

    python benchmarks/sweep_bound.py                       # impartial-sowing, seeds and pots 0..10
    python benchmarks/sweep_bound.py --ruleset sowing --seeds 9 --depth 2

A sweep hands cells to workers only once every cell that may hold a follower is done
(``ruma.engine.families.order``). This script replays the scheduler (``CellScheduler``) with a
unit cost per class — no processes, no store, no engine — and prints (1) the critical path's
share of the work, whose inverse bounds any number of workers, and (2) the speed-up of
``--workers`` simulated workers taking batches of about ``--target`` classes, as the driver does.
It tells apart what the dependency graph forbids from what the implementation loses.
"""

from __future__ import annotations

import argparse
import heapq
import itertools

from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.families.order import Cell, CellScheduler, group
from ruma.engine.rulesets.sowing import SowingRuleset


def makespan(cells: dict[Cell, list[object]], workers: int, target: int) -> int:
    """Simulated time to value every cell with ``workers`` workers and batches of ~``target`` classes."""
    scheduler = CellScheduler(cells)  # type: ignore[arg-type]
    now, free, tie = 0, workers, itertools.count()
    running: list[tuple[int, int, list[Cell]]] = []
    while scheduler or running:
        while free and scheduler:
            batch = scheduler.take(target)
            if not batch:
                break
            heapq.heappush(running, (now + sum(len(cells[c]) for c in batch), next(tie), batch))
            free -= 1
        if not running:
            break
        now, _, batch = heapq.heappop(running)
        scheduler.finish(batch)
        free += 1
    return now


def main() -> None:
    """Print the bounds for one family."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="impartial-sowing")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--depth", type=int, default=SowingRuleset.cell_depth, help="levels of the Sowing potential")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    SowingRuleset.cell_depth = args.depth  # (the compiled Sowing inherits it)
    family = Family.of(args.ruleset, (0, args.seeds), (1, args.seeds))
    cells = group(family.rules, [c.state for c in enumerate_family(family)])
    total = sum(len(states) for states in cells.values())
    critical = makespan(cells, len(cells), 1)  # as many workers as cells: the longest chain
    print(f"{family.describe()}: {total:,} classes in {len(cells):,} cells (depth {args.depth})")
    print(f"  critical path {critical:,} classes = {critical / total:.0%} of the work: at most {total / critical:.2f}x")
    for target in (1, 50, 200, 1000, 3000):
        print(f"  {args.workers} workers, batches of ~{target:>4} classes: {total / makespan(cells, args.workers, target):.2f}x")


if __name__ == "__main__":
    main()
