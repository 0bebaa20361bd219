"""``Game`` mixes with ints and Fractions as CGSuite values do; every answer checked against cgt-py.

cgt-py's ``CanonicalForm`` does not mix with Python numbers, so each mixed expression here is
computed in cgt-py with the number written as a game (``CanonicalForm('1/2')``): ``UP + 1`` must
be the canonical form of ``^ + 1``, ``h > 0`` must be cgt-py's ``h > 0`` between forms, and so on.
"""

from __future__ import annotations

import random
from fractions import Fraction

import cgt_py
import pytest

from ruma.engine.cgt import DOWN, ONE, STAR, UP, ZERO, Game, number
from ruma.engine.cgt.notation import format_game
from ruma.engine.errors import RumaInputError

C = cgt_py.CanonicalForm


def cgt(g: Game) -> cgt_py.CanonicalForm:
    return C(format_game(g, "braces"))


def cgt_number(x: Fraction | int) -> cgt_py.CanonicalForm:
    return C(str(Fraction(x)))


GAMES = [ZERO, ONE, STAR, UP, DOWN, UP + STAR, Game("{1|-1}"), Game("{2||1|0}"), Game("{1/2|*}"), Game("{3|1/4}"),
         Game("{^,*|0,*}"), Game("^^*"), Game("{0|-2}"), -Game("{5/2|1}")]
NUMBERS: list[int | Fraction] = [0, 1, -1, 2, Fraction(1, 2), Fraction(-3, 4), Fraction(5, 8), Fraction(1, 1024)]


@pytest.mark.parametrize("x", NUMBERS, ids=str)
def test_sums_and_differences_with_numbers(x: int | Fraction) -> None:
    for g in GAMES:
        assert cgt(g + x) == cgt(g) + cgt_number(x)
        assert cgt(x + g) == cgt_number(x) + cgt(g)
        assert cgt(g - x) == cgt(g) + (-cgt_number(x) if x else cgt_number(0))
        assert cgt(x - g) == cgt_number(x) + cgt(-g)
        assert g + x is g + number(x) and x - g is number(x) - g


@pytest.mark.parametrize("x", NUMBERS, ids=str)
def test_comparisons_with_numbers(x: int | Fraction) -> None:
    for g in GAMES:
        c, n = cgt(g), cgt_number(x)
        assert (g > x, g < x, g >= x, g <= x) == (c > n, c < n, c >= n, c <= n), format_game(g)
        assert (x < g, x > g, x <= g, x >= g) == (c > n, c < n, c >= n, c <= n)  # reflected
        assert g.confused_with(x) == (not c >= n and not c <= n)
        assert (g == x) == (c == n) and (g != x) == (not c == n)


def test_random_games_against_numbers() -> None:
    rng = random.Random(13)
    pool = list(GAMES)
    for _ in range(60):
        pool.append(Game.from_options(rng.sample(pool, rng.randint(0, 2)), rng.sample(pool, rng.randint(0, 2))))
    for g in pool[-60:]:
        x = rng.choice(NUMBERS)
        c, n = cgt(g), cgt_number(x)
        assert cgt(g + x) == c + n
        assert (g > x, g < x, g == x) == (c > n, c < n, c == n)


def test_the_issue_examples() -> None:
    assert UP + 1 is Game("1^") and cgt(UP + 1) == C("^") + C("1")
    h = Game("{1|-1}")
    assert not h > 0 and not h < 0 and h.confused_with(0)  # ±1 is hot: confused with 0
    assert Game(1 / 2) is number(Fraction(1, 2)) and Game(1 / 2) < UP + 1 and cgt(Game(0.5)) == C("1/2")
    assert Game(Fraction(3, 8)) is Game("3/8") and Game(5) == 5 and Game(UP) is UP
    assert sum([UP, UP, 1]) is Game("1^^")  # sum() starts from the int 0


def test_numbers_hash_like_their_values() -> None:
    assert {Game(1), 1, Fraction(1)} == {1} and len({Game(Fraction(1, 2)), Fraction(1, 2), 0.5}) == 1
    assert hash(UP) == UP.id and UP != 0 and STAR != 0 and ZERO == 0 and not (ONE == True)  # noqa: E712


@pytest.mark.parametrize("bad, error", [(Fraction(1, 3), RumaInputError), (0.1, RumaInputError),
                                         (float("nan"), RumaInputError), ("{1|", RumaInputError),
                                         (None, TypeError), ([1], TypeError)])
def test_bad_numbers_and_types(bad: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        Game(bad)  # type: ignore[arg-type]
    if isinstance(bad, (Fraction, float)):
        with pytest.raises(error):
            UP + bad
    elif not isinstance(bad, str):
        with pytest.raises(TypeError):
            UP + bad  # type: ignore[operator]
