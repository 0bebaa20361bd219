"""The sweep's potential never increases along a move (so scheduling cells by it never makes
two workers value the same follower), and the scheduler hands out every cell exactly once, each
after every cell that precedes it."""

from __future__ import annotations

import random

import pytest

from ruma.engine.family_enum import ROW_RULESETS, Family, enumerate_family
from ruma.engine.rulesets import get_ruleset
from ruma.engine.sweep_order import CellScheduler, cell, group, precedes


@pytest.mark.parametrize("ruleset", sorted(ROW_RULESETS))
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
