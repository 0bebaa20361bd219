"""Size limits of value expressions and positions: refused before anything is built, quoted.

The costs the limits guard against are facts of the canonical forms: ``*k`` has the ``k`` options
``*0 … *(k-1)`` on each side, the integer ``n`` is built on ``n - 1``, ``n·↑`` on ``(n-1)·↑∗``
(Winning Ways ch. 3), so building them builds every smaller one. Each test checks that a value
beyond a limit is refused *without* growing the table of canonical forms, and that sums of
literals are folded exactly (``*1000 + *1000 = 0``, nim addition) before any limit is applied.
"""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from ruma.engine.cgt import ZERO, integer, nimber, up_multiple
from ruma.engine.cgt.expression import ExpressionLimits, nus_birthday
from ruma.engine.cgt.game import KERNEL
from ruma.engine.cgt.notation import parse_game
from ruma.engine.errors import LimitExceededError, NotationError, PositionError, RumaInputError
from ruma.engine.rulesets import get_ruleset

pytestmark = pytest.mark.alone  # (it times what it runs)


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("100000000", "birthday up to 100000000; the limit is 10000"),
        ("*5000", "nimber index 5000; the limit is 1024"),
        ("^30000", "birthday up to 30001"),
        ("1/" + str(2**70), "denominator 2^70; the limit is 2^64"),
        ("{*2000 | 0}", "nimber index 2000"),
        ("10000 + {1|0}", "a sum may have birthday up to 10002"),
        ("⧾₁₀₀₀₀₀₀", "birthday up to 1000000"),
        ("+-10000", "a game ±G may have birthday up to 10001"),
    ],
)
def test_values_beyond_the_limits_are_refused_before_building(text: str, fragment: str) -> None:
    before = KERNEL.count()
    started = time.perf_counter()
    with pytest.raises(LimitExceededError) as error:
        parse_game(text)
    assert time.perf_counter() - started < 0.5
    assert fragment in str(error.value), str(error.value)
    assert KERNEL.count() == before  # nothing was built


@pytest.mark.parametrize(
    "text,reason",
    [
        ("(" * 10_000 + "1" + ")" * 10_000, None),  # 20,001 characters: too long to be an expression
        ("(" * 200 + "1" + ")" * 200, "nested more than 100 levels deep"),
        ("-" * 150 + "1", "nested more than 100 levels deep"),
        ("{" * 150 + "|" + "}" * 150, "nested more than 100 levels deep"),
        ("1" * 5000, "a numeral of 5000 digits (at most 30)"),
        ("*" + "7" * 40, "digits"),
        ("1²", "is not a decimal number"),
    ],
)
def test_malformed_or_absurd_text_is_an_input_error(text: str, reason: str | None) -> None:
    with pytest.raises(RumaInputError) as error:
        parse_game(text)
    if reason:
        assert isinstance(error.value, NotationError) and reason in error.value.reason
    else:
        assert "too long (at most 10000)" in str(error.value)


def test_literal_sums_are_folded_exactly_before_the_limits() -> None:
    assert parse_game("*1000 + *1000") is ZERO  # nim addition: nothing is built but 0
    assert parse_game("6000 + 6000 - 9999 - 2000") is integer(1)
    assert parse_game("^6000 + v5999") is up_multiple(1)
    with pytest.raises(LimitExceededError):
        parse_game("9000 + 9000")


def test_values_within_the_limits_are_built() -> None:
    assert parse_game("*1024") is nimber(1024)
    assert parse_game("10000") is integer(10000)
    assert parse_game("^9999") is up_multiple(9999)
    started = time.perf_counter()
    assert parse_game("v9999 + ^9999") is ZERO
    assert time.perf_counter() - started < 2.0  # the n·↑ chain is built once, in O(n)


def test_limits_are_parameters() -> None:
    small = ExpressionLimits(max_birthday=10, max_nimber=4, max_depth=3, max_length=20)
    assert parse_game("*4 + 6", small) is nimber(4) + integer(6)
    for text in ("*5", "11", "((((1))))", "1+" * 10 + "1"):
        with pytest.raises(LimitExceededError if text in ("*5", "11") else RumaInputError):
            parse_game(text, small)


def test_birthday_bound_of_literals_is_exact_on_each_part() -> None:
    from ruma.engine.cgt import nus_game
    from ruma.engine.cgt.analysis import birthday

    for x in (Fraction(0), Fraction(3), Fraction(-5, 4), Fraction(7, 8), Fraction(1, 2)):
        assert nus_birthday((x, 0, 0)) == birthday(nus_game(x, 0, 0))
    for n in (1, 2, 5, -3):
        assert nus_birthday((Fraction(0), n, 0)) == birthday(up_multiple(n))
    for k in (0, 1, 7):
        assert nus_birthday((Fraction(0), 0, k)) == birthday(nimber(k))
    assert nus_birthday((Fraction(1, 2), 3, 2)) >= birthday(nus_game(Fraction(1, 2), 3, 2))


@pytest.mark.parametrize(
    "ruleset,text,error",
    [
        ("sowing", "(" * 10_000 + "1" + ")" * 10_000, NotationError),
        ("nim", "1" * 5000, PositionError),
        ("chocolate1", "1" * 5000 + ",2", PositionError),
        ("coinstrip1", "9" * 5000 + ":1", NotationError),
        ("nim", "1²", NotationError),
        ("sowing", "1,2," + "9" * 5000, PositionError),
    ],
)
def test_absurd_positions_are_input_errors(ruleset: str, text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        get_ruleset(ruleset).parse(text)
