"""Cooling, heating, overheating and reduced canonical forms against two independent
implementations: cgt-py (``CanonicalForm.cool``, ``.reduced``) and pycgt (``cool``, ``heat``,
``overheat``, ``reduced_canonical_form``), on random games (seeded; birthdays up to about 5).

pycgt freezes a game *at* its temperature (``t >= temperature`` gives the mean), where CGSuite,
Siegel and cgt-py still cool the options (``(±1)_1 = ∗``); the pycgt comparison of cooling takes
only temperatures that are no follower's temperature. pycgt's reduced forms are infinitesimally
close to the game but not always the simplest such game; cgt-py's are, and ruma's equal them.
Neither has Norton products or ordinal sums (``tests/engine/test_cgt_transforms.py`` checks those
against CGSuite's suite and theorems).
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from ruma.engine.cgt import Game
from ruma.engine.cgt import transforms as T
from tests.support.positions import random_games

cgt_py = pytest.importorskip("cgt_py")
pycgt = pytest.importorskip("pycgt")

pytestmark = pytest.mark.both_engines

F = Fraction
GAMES = random_games(20261206, 220)
TEMPERATURES = [F(0), F(1, 8), F(1, 4), F(1, 2), F(3, 4), F(1), F(5, 4), F(2)]


def braces(g: Game) -> str:
    return "{" + ",".join(map(braces, g.left_options)) + "|" + ",".join(map(braces, g.right_options)) + "}"


def to_pycgt(g: Game, memo: dict[Game, object]) -> object:
    p = memo.get(g)
    if p is None:
        p = pycgt.game([to_pycgt(x, memo) for x in g.left_options], [to_pycgt(x, memo) for x in g.right_options])
        memo[g] = p
    return p


def from_pycgt(p: object) -> Game:
    return Game.from_options([from_pycgt(x) for x in p.left], [from_pycgt(x) for x in p.right])  # type: ignore[attr-defined]


def temperatures(g: Game, seen: dict[Game, Fraction]) -> set[Fraction]:
    """The temperatures of ``g`` and its followers."""
    stack = [g]
    while stack:
        h = stack.pop()
        if h not in seen:
            seen[h] = h.temperature
            stack += h.left_options + h.right_options
    return set(seen.values())


def test_cooling_and_reduced_forms_agree_with_cgt_py() -> None:
    rng = random.Random(1)
    subzero = [F(-1, 2), F(-1, 4), F(-3, 4)]
    for g in GAMES:
        c = cgt_py.CanonicalForm(braces(g))
        for t in rng.sample(TEMPERATURES, 3) + [rng.choice(subzero), max(g.temperature, F(0))]:
            assert cgt_py.CanonicalForm(braces(T.cool(g, t))) == c.cool(str(t)), (braces(g), t)
        assert cgt_py.CanonicalForm(braces(g.rcf())) == c.reduced, braces(g)


def test_cooling_heating_overheating_and_reduced_forms_agree_with_pycgt() -> None:
    rng = random.Random(2)
    memo: dict[Game, object] = {}
    bases = [Game(0), Game(F(1, 2)), Game(1), Game("*"), Game("1*"), Game("^"), Game(F(-1, 2))]
    for g in GAMES[:120]:
        p = to_pycgt(g, memo)
        t = rng.choice([x for x in TEMPERATURES if x not in temperatures(g, {})] or [F(3)])
        assert to_pycgt(T.cool(g, t), memo) == pycgt.cool(p, t), (braces(g), t)
        h = rng.choice(bases)
        assert to_pycgt(T.heat(g, h), memo) == pycgt.heat(p, to_pycgt(h, memo)), (braces(g), h)
        s, u = rng.choice(bases[:5]), rng.choice(bases[:5])
        expected = pycgt.overheat(p, to_pycgt(s, memo), to_pycgt(u, memo))
        assert to_pycgt(T.overheat(g, s, u), memo) == expected, (braces(g), s, u)
        # pycgt's reduced form is infinitesimally close to g but not always the simplest such game
        # (it keeps options such as {0|-3, {0|-3}}): ruma's is as close, and no later born
        reduced = from_pycgt(pycgt.reduced_canonical_form(p))
        assert (g.rcf() - reduced).is_infinitesimal and g.rcf().birthday <= reduced.birthday, braces(g)
