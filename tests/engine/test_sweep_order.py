"""The sweep's potential never increases along a move (so scheduling cells by it never makes
two workers value the same follower), and the scheduler hands out every cell exactly once, each
after every cell that precedes it."""

from __future__ import annotations

import random

import pytest

from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.families.order import CellScheduler, cell, group, precedes
from ruma.engine.rulesets import get_ruleset, row_rulesets


@pytest.mark.parametrize("ruleset", row_rulesets())
def test_no_move_increases_the_potential(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    rng = random.Random(12)
    checked = 0
    for _ in range(3000):
        n = rng.randint(1, 9)
        row = tuple(rng.choice((0, 0, 1, 1, 1, 2, 2, 3, 4)) for _ in range(n))
        state, _ = rules.normalise(row)
        if not state:
            continue
        mine = cell(rules, state)
        options = list(rules.left_options(state)) + list(rules.right_options(state))
        for option in options:
            for component, _ in rules.decompose(option):
                theirs = cell(rules, component)
                assert theirs == mine or precedes(theirs, mine), (rules.format(state), rules.format(component))
                checked += 1
    assert checked > 3000


def test_scheduler_respects_the_order_and_hands_out_everything() -> None:
    family = Family.of("sowing", (0, 7), (1, 7))
    rules = family.rules
    cells = group(rules, [c.state for c in enumerate_family(family)])
    scheduler = CellScheduler(cells)
    done: list = []
    running: list = []
    while scheduler or running:
        batch = scheduler.take(5)
        for c in batch:
            assert not any(precedes(other, c) for other in cells if other not in done and other not in batch[: batch.index(c)])
        running.append(batch)
        finished = running.pop(0)
        scheduler.finish(finished)
        done += finished
    assert sorted(done) == sorted(cells)


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-sowing", "atomic-wari", "impartial-atomic-wari"])
def test_grouping_uses_the_same_cells_as_cell(ruleset: str) -> None:
    """``group``'s per-ruleset fast paths (Sowing's unrolled potential, Atomic Wari's running
    sums) agree with ``cell``, also on rows the fast path hands back to it (zeros at an end,
    negative counts, the empty row)."""
    family = Family.of(ruleset, (0, 8), (1, 8))
    rules = family.rules
    states = [c.state for c in enumerate_family(family)]
    rng = random.Random(ruleset)
    states += [tuple(rng.choice((0, 0, 1, 2, 3, 5, 9)) for _ in range(rng.randint(0, 12))) for _ in range(2000)]
    states += [(), (0,), (0, 3), (3, 0), (2, -1, 2)]
    cells = group(rules, states)
    assert sum(len(v) for v in cells.values()) == len(states)
    for c, members in cells.items():
        for state in members:
            assert cell(rules, state) == c


def test_speculative_batches_and_ready_batches_hand_out_every_cell_once() -> None:
    """``take_blocked`` (an idle worker's speculative batch) and ``take`` together hand out each
    cell exactly once, and a speculatively taken cell still blocks its successors until done."""
    family = Family.of("impartial-sowing", (0, 8), (1, 8))
    cells = group(family.rules, [c.state for c in enumerate_family(family)])
    scheduler = CellScheduler(cells)
    handed: list = []
    done: set = set()
    running: list = []
    rng = random.Random(5)
    while scheduler or running:
        batch = scheduler.take(rng.randint(1, 60))
        if not batch:
            batch = scheduler.take_blocked(rng.randint(1, 60))
            for c in batch:  # nothing of a speculative batch is released before it is finished
                assert c not in [item[1] for item in scheduler.ready]
        else:  # a ready batch never holds a cell whose predecessors are unfinished elsewhere
            for i, c in enumerate(batch):
                assert not any(precedes(o, c) for o in cells if o not in done and o not in batch[:i])
        handed += batch
        if batch:
            running.append(batch)
        if running and (rng.random() < 0.5 or not batch):
            finished = running.pop(0)
            scheduler.finish(finished)
            done.update(finished)
    assert sorted(handed) == sorted(cells) and len(handed) == len(set(handed))
