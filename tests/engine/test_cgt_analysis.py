"""Analyses of canonical games: stops, temperature, thermographs, atomic weight, birthday.

Expected values come from Erickson (1996) §3 (Table 5 discussion), from theorems about switches
(Winning Ways ch. 6; Siegel, CGT II.5) and, differentially, from cgt-py (an independent
implementation of CGSuite's algorithms) on a few thousand random games.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from ruma.engine.cgt import DOWN, STAR, UP, ZERO, Game, integer, nimber, number, up_multiple
from ruma.engine.cgt import analysis as A
from ruma.engine.cgt.notation import format_game, parse_game
from ruma.engine.errors import NotAtomicError
from tests.support.positions import random_games

cgt_py = pytest.importorskip("cgt_py")

pytestmark = pytest.mark.both_engines

F = Fraction


def g_(text: str) -> Game:
    return parse_game(text)


# -- Erickson (1996) §3: the exotic values of two-pot Atomic Wari ---------------------------------
# ↑G = {*, ↑G^L | *, ↑G^R}; the paper states the forms and the atomic weights.
ERICKSON = {
    "up(1|0)": ("{^,*|0,*}", 1),
    "up(+-1)": ("{^,*|v,*}", 0),
    "up^2*": ("{0,*|v}", 0),
    "down(1|0)": ("{0,*|v,*}", -1),
    "down_2*": ("{^|0,*}", 0),
    "up": ("^", 1),
    "down": ("v", -1),
    "star": ("*", 0),
    "star2": ("*2", 0),
    "zero": ("0", 0),
}


def _up_of(g: Game) -> Game:
    """Erickson's (Conway's) ↑G = {*, ↑G^L | *, ↑G^R}, recursing through canonical options."""
    return Game.from_options(
        [STAR] + [_up_of(h) for h in g.left_options], [STAR] + [_up_of(h) for h in g.right_options]
    )


def test_erickson_forms_match_the_up_operator() -> None:
    assert _up_of(ZERO) is ZERO and _up_of(integer(1)) is UP
    assert _up_of(g_("{1|0}")) is g_("{^,*|0,*}")
    assert _up_of(g_("+-1")) is g_("{^,*|v,*}")
    assert -_up_of(g_("{1|0}")) is g_("{0,*|v,*}")
    up_second = _up_of(integer(2)) - _up_of(integer(1))  # ↑² = ↑2 − ↑1 (Erickson §3)
    assert up_second + STAR is g_("{0,*|v}")
    assert -up_second + STAR is g_("{^|0,*}")


@pytest.mark.parametrize("name", sorted(ERICKSON))
def test_erickson_atomic_weights(name: str) -> None:
    text, weight = ERICKSON[name]
    g = g_(text)
    assert A.is_atomic(g)
    assert A.atomic_weight(g) is integer(weight)
    assert g.atomic_weight is integer(weight)


def test_erickson_partial_order_matches_cgt_py() -> None:
    games = [g_(text) for text, _ in ERICKSON.values()]
    for a in games:
        ca = cgt_py.CanonicalForm(format_game(a, "braces"))
        for b in games:
            cb = cgt_py.CanonicalForm(format_game(b, "braces"))
            assert (a <= b) == (ca <= cb), (format_game(a), format_game(b))


def test_atomic_weight_of_multiples_of_up_and_nimbers() -> None:
    for n in range(-4, 5):
        for k in range(4):
            assert A.atomic_weight(up_multiple(n) + nimber(k)) is integer(n)


def test_atomic_weight_is_additive_on_all_small_sums() -> None:
    # Atomic weight is a homomorphism on all-small games (Winning Ways ch. 8; Siegel II.7).
    parts = [g_(text) for text, _ in ERICKSON.values()]
    for a in parts:
        for b in parts:
            assert A.atomic_weight(a + b) is A.atomic_weight(a) + A.atomic_weight(b)


def test_not_atomic_raises_with_the_game_quoted() -> None:
    with pytest.raises(NotAtomicError, match=r"'\{1\|0\}' is not atomic: it is not infinitesimal"):
        A.atomic_weight(g_("{1|0}"))
    assert not A.is_atomic(integer(1))


# -- stops, mean and temperature of switches (theorems) ----------------------------------------------
@pytest.mark.parametrize("x,y", [(1, -1), (3, 1), (F(1, 2), F(-1, 2)), (5, F(-3, 4)), (F(7, 8), 0)])
def test_switch_analyses(x: Fraction, y: Fraction) -> None:
    g = Game.from_options([number(x)], [number(y)])
    assert (g.left_stop, g.right_stop) == (x, y)
    assert g.mean == (F(x) + F(y)) / 2
    assert g.temperature == (F(x) - F(y)) / 2
    th = g.thermograph
    assert th.temperature == g.temperature and th.mast == g.mean
    assert th.at(F(0)) == (x, y)  # at temperature 0 the walls are the stops
    assert th.at(g.temperature + 5) == (g.mean, g.mean)  # a vertical mast above


def test_integer_switch_thermograph_exact() -> None:
    th = g_("{3|1}").thermograph
    assert th.left_breakpoints == [(F(-1), F(4)), (F(1), F(2))]
    assert th.right_breakpoints == [(F(-1), F(0)), (F(1), F(2))]
    assert repr(th) == "Thermograph(Trajectory(2, [1], [0, -1]), Trajectory(2, [1], [0, 1]))"


def test_two_stage_switch_thermograph() -> None:
    # {2||1|0}: left scaffold 2 − t, right scaffold 1 until t = 1/2 then 1/2 + t; they meet at
    # t = 3/4, value 5/4 (Winning Ways ch. 6 / Lessons in Play ch. 6 method).
    g = g_("{2||1|0}")
    th = g.thermograph
    assert (g.left_stop, g.right_stop, g.mean, g.temperature) == (2, 1, F(5, 4), F(3, 4))
    assert th.left_breakpoints == [(F(-1), F(3)), (F(3, 4), F(5, 4))]
    assert th.right_breakpoints == [(F(-1), F(1)), (F(1, 2), F(1)), (F(3, 4), F(5, 4))]


def test_numbers_and_infinitesimals() -> None:
    assert integer(7).temperature == -1 and number(F(5, 4)).temperature == F(-1, 4)
    assert number(F(-5, 4)).mean == F(-5, 4)
    assert UP.temperature == 0 and (UP.left_stop, UP.right_stop) == (0, 0)
    assert (DOWN + STAR).mean == 0 and ZERO.birthday == 0
    assert [integer(3).birthday, number(F(5, 4)).birthday, nimber(3).birthday, UP.birthday] == [3, 4, 3, 2]


# -- differential tests against cgt-py ---------------------------------------------------------------
def _dyadic(x: Fraction) -> str:
    return f"DyadicRationalNumber('{x}')"


def test_differential_stops_temperature_thermograph_birthday_vs_cgt_py() -> None:
    games = random_games(20261122, 2000)
    failures = []
    for g in games:
        braces = format_game(g, "braces")
        c = cgt_py.CanonicalForm(braces)
        ours = (  # canonical forms themselves are compared in test_cgt_notation
            str(c.left_stop) == _dyadic(g.left_stop),
            str(c.right_stop) == _dyadic(g.right_stop),
            str(c.temperature) == _dyadic(g.temperature),
            repr(c.thermograph) == f"Thermograph({g.thermograph!r})",
            c.birthday == g.birthday,
        )
        if not all(ours):
            failures.append((braces, repr(c), ours))
    assert not failures, f"{len(failures)} of {len(games)} differ, e.g. {failures[:5]}"


def test_differential_mean_is_the_thermograph_mast_and_lies_between_the_stops() -> None:
    for g in random_games(7, 400):
        assert g.right_stop <= g.mean <= g.left_stop
        assert g.thermograph.at(max(g.temperature, F(0)) + 1) == (g.mean, g.mean)
        if not g.is_number:
            assert g.temperature >= 0
            assert g.thermograph.at(F(0)) == (g.left_stop, g.right_stop)


def test_number_up_star_values_against_cgt_py() -> None:
    from ruma.engine.cgt import nus_game

    for x in (F(0), F(3), F(-5, 4), F(7, 16), F(-33, 32)):
        for n in range(-5, 6):
            for k in range(5):
                g = nus_game(x, n, k)
                c = cgt_py.CanonicalForm(format_game(g, "braces"))
                assert repr(c.thermograph) == f"Thermograph({g.thermograph!r})"
                assert (c.birthday, str(c.temperature)) == (g.birthday, _dyadic(g.temperature))
                assert (str(c.left_stop), str(c.right_stop)) == (_dyadic(g.left_stop), _dyadic(g.right_stop))
                assert g.mean == x


def _random_all_small(rng: random.Random, depth: int) -> Game:
    if depth == 0 or rng.random() < 0.25:
        return up_multiple(rng.randint(-2, 2)) + nimber(rng.randint(0, 2))
    lefts = [_random_all_small(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    rights = [_random_all_small(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    return Game.from_options(lefts, rights)


def test_atomic_weight_theorems_on_random_all_small_games() -> None:
    # Two-ahead rule (Winning Ways ch. 8; Lessons in Play ch. 9): weight >= 2 => G > 0, weight
    # >= 1 => Left wins moving first (G is not <= 0); and atomic weight is additive.
    rng = random.Random(5)
    found: dict[int, Game] = {}
    while len(found) < 300:
        g = _random_all_small(rng, 3)
        if g.is_all_small:
            found[g.id] = g
    games = list(found.values())
    weights = {A.atomic_weight(g).number_value for g in games}
    assert {-2, -1, 0, 1, 2} <= weights  # the sample does exercise the rule
    for g in games:
        n = A.atomic_weight(g).number_value
        if n is not None and n >= 2:
            assert g > ZERO and -g < ZERO
        if n is not None and n >= 1:
            assert not g <= ZERO
    for _ in range(200):
        a, b = rng.choice(games), rng.choice(games)
        assert A.atomic_weight(a + b) is A.atomic_weight(a) + A.atomic_weight(b)


# -- deep games: n·↑ = {0 | (n-1)·↑∗} (Winning Ways ch. 3), so its birthday is n + 1, its atomic
# weight n (Winning Ways ch. 8: aw(n·↑) = n), and, an infinitesimal, its thermograph is the mast at 0
@pytest.mark.parametrize("n", [350, 400, 2000, 9999])
def test_analyses_of_deep_games_do_not_recurse(n: int) -> None:
    g = up_multiple(n)
    assert A.birthday(g) == n + 1 and g.birthday == n + 1
    assert g.atomic_weight == integer(n)
    th = g.thermograph
    assert (th.temperature, th.mast) == (0, 0)
