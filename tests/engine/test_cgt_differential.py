"""Differential test of ruma's CGT algebra against two independent implementations.

2,400 games are built from random option lists over previously built games (seeded RNG, options of
birthday <= 3, so birthdays <= 4). For each one: ruma's canonical form equals cgt-py's canonical
form of the same option lists (compared by cgt-py equality), the sum and both comparisons with a
random earlier game agree with cgt-py, and outcome / is_number / number value / is_infinitesimal /
is_all_small agree with pycgt.
"""

from __future__ import annotations

import random
from fractions import Fraction

import cgt_py
import pycgt
import pytest

from ruma.engine.cgt import ONE, STAR, UP, ZERO, Game

pytestmark = pytest.mark.both_engines


C = cgt_py.CanonicalForm
GAMES = 2400


def braces(g: Game) -> str:
    return "{" + ",".join(map(braces, g.left_options)) + "|" + ",".join(map(braces, g.right_options)) + "}"


def cgt_text(c: cgt_py.CanonicalForm) -> str:
    text = repr(c)
    assert text.startswith("CanonicalForm('") and text.endswith("')")
    return text[len("CanonicalForm('") : -2]


def to_pycgt(g: Game, memo: dict[Game, pycgt.Game]) -> pycgt.Game:
    p = memo.get(g)
    if p is None:
        p = pycgt.game([to_pycgt(x, memo) for x in g.left_options], [to_pycgt(x, memo) for x in g.right_options])
        memo[g] = p
    return p


OUTCOMES = {"LEFT": "L", "RIGHT": "R", "FIRST": "N", "SECOND": "P"}


def pycgt_outcome(p: pycgt.Game) -> str:
    return OUTCOMES[pycgt.outcome(p).name]


def test_random_games_agree_with_cgt_py_and_pycgt() -> None:
    rng = random.Random(20261122)
    pool: list[Game] = [ZERO, ONE, -ONE, STAR, UP]
    cp: dict[Game, cgt_py.CanonicalForm] = {g: C(braces(g)) for g in pool}
    builders = list(pool)  # games of birthday <= 3, usable as options
    pmemo: dict[Game, pycgt.Game] = {}
    checked = 0
    for _ in range(GAMES):
        lefts = rng.sample(builders, rng.randint(0, 3))
        rights = rng.sample(builders, rng.randint(0, 3))
        g = Game.from_options(lefts, rights)
        expected = C("{" + ",".join(cgt_text(cp[x]) for x in lefts) + "|" + ",".join(cgt_text(cp[x]) for x in rights) + "}")
        c = C(braces(g))
        assert c == expected, (braces(g), expected)
        if g not in cp:
            cp[g] = c
            pool.append(g)
            if g.birthday <= 3:
                builders.append(g)
        h = rng.choice(pool)
        assert C(braces(g + h)) == expected + cp[h], (expected, cp[h])
        assert C(braces(g - h)) == expected - cp[h], (expected, cp[h])
        assert (g <= h) == (expected <= cp[h]) and (h <= g) == (cp[h] <= expected), (expected, cp[h])
        p = to_pycgt(g, pmemo)
        assert g.outcome == pycgt_outcome(p), expected
        assert g.is_number == pycgt.is_number(p), expected
        if g.is_number:
            assert g.number_value == Fraction(str(pycgt.as_number(p)))
        assert g.is_infinitesimal == pycgt.is_infinitesimal(p), expected
        assert g.is_all_small == pycgt.is_all_small(p), expected
        checked += 1
    assert checked == GAMES
    assert len(pool) > 500  # the run explored many distinct canonical forms
