"""Property tests: every normalisation/decomposition rule preserves the value.

For each ruleset, 10,000 distinct random small positions (seeded, so failures reproduce) are valued by the
brute-force valuer of ``bruteforce.py`` — plain recursion over *raw* options, no rule at all — and
compared with the value after each rule: ``normalise`` (value, or its negative when mirrored),
``components`` (the sum of the components' raw values) and ``direct_value`` (Theorem 3.1). Each
rule must also actually fire on a good share of the positions, so a rule that silently does
nothing fails the test.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ruma.engine.cgt import Game
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.atomic_wari_board import trim_margins
from ruma.engine.rulesets.base import State
from ruma.engine.rulesets.notation import FULL
from ruma.engine.rulesets.sowing import simplify
from tests.support.bruteforce import raw_value, sum_values

pytestmark = pytest.mark.both_engines


N_POSITIONS = 10_000


def _negate(value: Game | int, mirrored: bool) -> Game | int:
    return -value if mirrored and isinstance(value, Game) else value


def random_sowing(rng: random.Random) -> State:
    """Rows of at most 9 pots and 8 seeds, with gaps (empty runs) and full pots (a huge count or
    more seeds than the row is long, so never sowable) and long empty/full runs."""
    n = rng.randint(1, 9)
    budget = rng.randint(2, 8)
    pots: list[int] = []
    while len(pots) < n and budget > 0:
        r = rng.random()
        if r < 0.25:
            pots.extend([0] * rng.randint(1, 3))
        elif r < 0.4:
            pots.extend([rng.choice((FULL, 12, 15))] * rng.randint(1, 3))
        else:
            v = min(budget, rng.choice((1, 1, 1, 2, 2, 3)))
            budget -= v
            pots.append(v)
    return tuple(pots[:9])


def random_wari(rng: random.Random) -> State:
    """Short rows of small counts with gaps; seeds kept small so brute force stays cheap."""
    n = rng.randint(1, 9)
    pots: list[int] = []
    budget = rng.randint(2, 9)
    while len(pots) < n:
        if rng.random() < 0.35:
            pots.extend([0] * rng.randint(1, 3))
        else:
            v = min(budget, rng.choice((1, 1, 2, 2, 2, 3, 4)))
            budget -= v
            pots.append(v)
    return tuple(pots)


def random_sparse(rng: random.Random) -> State:
    return tuple(rng.choice((0, 1, 2, 2)) for _ in range(rng.randint(1, 9)))


def check_rules(name: str, generate, fired: Counter[str]) -> None:  # type: ignore[no-untyped-def]
    rules = get_ruleset(name)
    rng = random.Random(f"{name}-normalisation")
    seen: set[State] = set()
    while len(seen) < N_POSITIONS:
        state = generate(rng)
        if state in seen:
            continue
        seen.add(state)
        value = raw_value(rules, state)
        canonical, mirrored = rules.normalise(state)
        assert rules.normalise(canonical) == (canonical, False), (name, state)  # idempotent
        assert _negate(raw_value(rules, canonical), mirrored) == value, (name, state, canonical, mirrored)
        if canonical != state:
            fired["normalise"] += 1
        if mirrored:
            fired["mirror"] += 1
        pieces = list(rules.components(state))
        assert rules.decompose(state) == [rules.normalise(p) for p in pieces], (name, state)  # the fused form
        assert sum_values(rules, [raw_value(rules, p) for p in pieces]) == value, (name, state, pieces)
        if len(pieces) > 1:
            fired["split"] += 1
        if not pieces:
            fired["dropped"] += 1
        for piece in pieces:
            normal, flipped = rules.normalise(piece)
            direct = rules.direct_value(normal)
            if direct is not None:
                fired["direct"] += 1
                assert _negate(direct, flipped) == raw_value(rules, piece), (name, piece)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["sowing", "impartial-sowing"])
def test_sowing_rules_preserve_value(name: str) -> None:
    fired: Counter[str] = Counter()
    check_rules(name, random_sowing, fired)
    assert fired["normalise"] > 5_000 and fired["mirror"] > 1_500, fired
    assert fired["split"] > 300 and fired["dropped"] > 300, fired


def test_sowing_full_pot_rules_fire() -> None:
    """N2/N3 fire: full pots are marked and long full end runs are shortened."""
    marked = shortened = 0
    rng = random.Random("sowing-full")
    for _ in range(N_POSITIONS):
        state = random_sowing(rng)
        t = simplify(state)
        marked += any(v == FULL for v in t) and sum(v >= FULL for v in t) > sum(v >= FULL for v in state)
        shortened += sum(v >= FULL for v in t) < sum(v >= FULL for v in state)
    assert marked > 500 and shortened > 300, (marked, shortened)


@pytest.mark.parametrize("name", ["atomic-wari", "impartial-atomic-wari"])
def test_atomic_wari_rules_preserve_value(name: str) -> None:
    fired: Counter[str] = Counter()
    check_rules(name, random_wari, fired)
    assert fired["normalise"] > 2_000 and fired["mirror"] > 2_000, fired
    assert fired["split"] > 300 and fired["dropped"] > 300 and fired["direct"] > 500, fired


def test_atomic_wari_board_rules_preserve_value() -> None:
    fired: Counter[str] = Counter()
    check_rules("atomic-wari-board", random_wari, fired)
    assert fired["normalise"] > 2_000 and fired["mirror"] > 2_000, fired
    assert fired["split"] > 100 and fired["dropped"] > 300 and fired["direct"] > 100, fired
    trimmed = sum(len(trim_margins(s)) < len(s) for s in (random_wari(random.Random(i)) for i in range(1000)))
    assert trimmed > 100


@pytest.mark.parametrize("name", ["atomic-wari", "impartial-atomic-wari", "atomic-wari-board"])
def test_sparse_direct_value(name: str) -> None:
    """Theorem 3.1 (``direct_value``) against brute force on random sparse rows."""
    rules = get_ruleset(name)
    rng = random.Random(f"{name}-sparse")
    hits = 0
    for _ in range(N_POSITIONS // 5):
        state = random_sparse(rng)
        if name == "atomic-wari-board":
            state = (0,) * len(state) + state + (0,) * len(state)  # wide margins: B4 applies
        direct = rules.direct_value(state)
        assert direct is not None, state
        hits += 1
        assert direct == raw_value(rules, state), state
    assert hits == N_POSITIONS // 5


def test_board_with_wide_margins_is_the_unbounded_game() -> None:
    """B1's claim: with margins as wide as the reach, the fixed board plays like the row."""
    board, row = get_ruleset("atomic-wari-board"), get_ruleset("atomic-wari")
    rng = random.Random("margins")
    for _ in range(2_000):
        state = random_wari(rng)
        pad = (0,) * sum(state)
        assert raw_value(board, pad + state + pad) == raw_value(row, state), state
