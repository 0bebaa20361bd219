"""Table-driven tests of ruma.engine.cgt.game: canonical forms, sums, order, outcomes, constructors.

Expected values come from theorems (cited per case) or from cgt-py (an independent implementation),
fed through a small brace printer of ruma's options.
"""

from __future__ import annotations

import copy
import pickle
import random
import subprocess
import sys
import threading
from fractions import Fraction

import cgt_py
import pytest

from ruma.engine.cgt import (
    DOWN,
    ONE,
    STAR,
    UP,
    ZERO,
    Game,
    Outcome,
    integer,
    mex,
    nim_sum,
    nimber,
    number,
    nus_game,
    up_multiple,
)
from ruma.engine.errors import RumaInputError

pytestmark = pytest.mark.both_engines


F = Game.from_options


def braces(g: Game) -> str:
    """cgt-py brace text of ruma's canonical options (independent of ruma's notation module)."""
    return "{" + ",".join(map(braces, g.left_options)) + "|" + ",".join(map(braces, g.right_options)) + "}"


def cgt(g: Game) -> cgt_py.CanonicalForm:
    return cgt_py.CanonicalForm(braces(g))


HALF = F([ZERO], [ONE])
PM1 = F([ONE], [-ONE])


def test_zero_is_id_zero_and_interning() -> None:
    assert ZERO.id == 0 and F([], []) is ZERO
    assert F([ZERO], []) is ONE and F([], [ZERO]) is -ONE
    assert F([ZERO, ZERO], [ONE, ONE]) is HALF
    assert hash(PM1) == PM1.id and HALF == F([ZERO], [ONE])
    assert hash(HALF) == hash(Fraction(1, 2)) and HALF == Fraction(1, 2)  # a number game hashes as its number
    assert copy.deepcopy(HALF) is HALF and pickle.loads(pickle.dumps(PM1 + UP)) is PM1 + UP


@pytest.mark.parametrize(
    "game, text",
    [
        # Winning Ways ch. 2-3 / Siegel II: the standard small canonical forms
        (HALF, "1/2"),
        (UP, "^"),
        (F([ZERO], [STAR]), "^"),
        (F([ZERO, STAR], [ZERO]), "^*"),
        (F([ZERO, STAR], [ZERO, STAR]), "*2"),
        (F([STAR], [ZERO]), "v"),
        (F([UP], [DOWN]), "*"),  # up reversible through *: {↑|↓} = ∗
        (PM1, "{1|-1}"),
        (F([ONE], [ONE]), "1*"),
        (F([ZERO], [UP]), "^2*"),
        (F([ZERO], [nimber(3)]), "^*2"),
    ],
)
def test_canonical_forms_match_cgt_py(game: Game, text: str) -> None:
    assert cgt(game) == cgt_py.CanonicalForm(text)


def test_erickson_sowing_312() -> None:
    # Erickson 1996 §2: 312 = {303 | 402, 420} = {0 | {|{|600}}, 0} = {0 | -2}
    g600 = ZERO
    g510 = F([], [g600])
    g402 = F([], [g510])
    g = F([ZERO], [g402, ZERO])
    assert g402 is integer(-2)
    assert g.left_options == (ZERO,) and g.right_options == (integer(-2),)
    assert g.outcome is Outcome.N and g.is_number is False  # a hot switch: first player wins


def test_erickson_atomic_wari_312() -> None:
    # Erickson 1996 §3: 312 = {0, * | *, *} = up; impartial version {0, *, *, *} = *2
    assert F([ZERO, STAR], [STAR, STAR]) is UP
    assert F([ZERO, STAR, STAR, STAR], [ZERO, STAR, STAR, STAR]) is nimber(2)


def test_table_sums() -> None:
    assert PM1 + PM1 is ZERO  # {1|-1} is its own negative
    assert HALF + HALF is ONE
    assert UP + DOWN is ZERO and STAR + STAR is ZERO
    assert UP + UP + STAR is F([ZERO], [UP])  # ⇑∗ = {0|↑}
    assert ONE + PM1 is F([integer(2)], [ZERO])  # number translation
    assert nimber(3) + nimber(5) is nimber(6)
    assert up_multiple(3) - UP is up_multiple(2)
    assert cgt(PM1 + UP + HALF) == cgt_py.CanonicalForm("{1|-1}") + cgt_py.CanonicalForm("^") + cgt_py.CanonicalForm("1/2")


@pytest.mark.parametrize(
    "g, h, relation",
    [
        (ZERO, UP, "<"),  # ↑ > 0
        (UP, HALF, "<"),  # infinitesimals are below every positive number
        (STAR, ZERO, "||"),
        (UP + STAR, ZERO, "||"),  # ↑∗ is fuzzy
        (ZERO, nus_game(0, 1, 2), "<"),  # ↑∗2 > 0
        (ZERO, up_multiple(2) + STAR, "<"),  # ⇑∗ > 0
        (PM1, ZERO, "||"),
        (PM1, integer(2), "<"),
        (DOWN, STAR, "||"),
        (-HALF, DOWN, "<"),
    ],
)
def test_order(g: Game, h: Game, relation: str) -> None:
    expected = {"<": (True, False), ">": (False, True), "||": (False, False)}[relation]
    assert (g <= h, h <= g) == expected
    assert (g < h) == (relation == "<") and (g > h) == (relation == ">")
    assert g.confused_with(h) == (relation == "||")
    assert ((cgt(g) <= cgt(h)), (cgt(h) <= cgt(g))) == expected


@pytest.mark.parametrize(
    "g, outcome",
    [(ZERO, "P"), (ONE, "L"), (-ONE, "R"), (STAR, "N"), (UP, "L"), (DOWN, "R"), (UP + STAR, "N"), (PM1, "N"),
     (F([ZERO], [integer(-2)]), "N"), (F([integer(2)], [ONE]), "L"), (nimber(2) + nimber(2), "P")],
)
def test_outcomes(g: Game, outcome: str) -> None:
    assert g.outcome == outcome and g.outcome is Outcome(outcome)


def test_predicates() -> None:
    assert ONE.is_integer and HALF.is_number and not HALF.is_integer and HALF.number_value == Fraction(1, 2)
    assert nimber(4).is_nimber and nimber(4).nim_value == 4 and ZERO.nim_value == 0 and not UP.is_nimber
    assert UP.number_value is None and STAR.number_value is None
    # infinitesimal: -x < G < x for every positive number x; 0 counts
    assert all(g.is_infinitesimal for g in (ZERO, UP, STAR, UP + nimber(5), F([ZERO], [F([ZERO], [-ONE])])))
    assert not any(g.is_infinitesimal for g in (ONE, HALF, PM1, ONE + STAR))
    # all-small: every follower with options has options for both players
    assert all(g.is_all_small for g in (ZERO, STAR, UP, UP + STAR, nimber(3)))
    assert not any(g.is_all_small for g in (ONE, HALF, F([ZERO], [F([ZERO], [-ONE])])))
    assert (HALF + UP).nus == (Fraction(1, 2), 1, 0) and PM1.nus is None


def test_constructors_and_bad_input() -> None:
    assert number(Fraction(3, 4)) is F([HALF], [ONE]) and number(5) is integer(5)
    assert up_multiple(-2) is -up_multiple(2) and DOWN is -UP
    for bad in (lambda: number(Fraction(1, 3)), lambda: nimber(-1), lambda: integer(True), lambda: nimber(1.5)):  # type: ignore[arg-type]
        with pytest.raises(RumaInputError):
            bad()
    with pytest.raises(ValueError, match="1/3"):
        number(Fraction(1, 3))


def test_nim_helpers() -> None:
    assert mex([0, 1, 3]) == 2 and mex([]) == 0 and mex(iter([1, 2])) == 0
    assert nim_sum(1, 2, 3) == 0 and nim_sum(5, 9) == 12 and nim_sum() == 0
    assert nimber(nim_sum(3, 6)) is nimber(3) + nimber(6)


def test_deep_games_do_not_overflow_the_stack() -> None:
    big = integer(3000)
    assert big.number_value == 3000 and (big - integer(2999)) is ONE
    ups = up_multiple(400)
    assert ups.nus == (0, 400, 0) and ups > ZERO and (ups - up_multiple(399)) is UP
    # a generic chain of birthday ~2 * 200: G_i = {i mod 3 + *, G_(i-1) | {G_(i-1) | -i}}
    g = ZERO
    for i in range(1, 200):
        g = F([integer(i % 3) + STAR, g], [F([g], [integer(-i)])])
    assert g <= g + UP and not (g + UP <= g) and (g + UP) - UP is g


def test_nus_detection_in_a_fresh_process() -> None:
    # every x + n.up + *k built generically from cgt-py's canonical options is recognised as NUS
    code = r"""
import cgt_py
from fractions import Fraction
from ruma.engine.cgt import Game
C = cgt_py.CanonicalForm
memo = {}
def build(c):
    s = repr(c)
    if s not in memo:
        memo[s] = Game.from_options([build(x) for x in c.left_options], [build(x) for x in c.right_options])
    return memo[s]
def name(x, n, k):
    s = '' if x == 0 and (n or k) else str(x)
    s += ('^' if n > 0 else 'v' if n < 0 else '') + (str(abs(n)) if abs(n) > 1 else '')
    return s + ('*' + (str(k) if k > 1 else '') if k else '')
for x in (Fraction(0), Fraction(-2), Fraction(5, 4)):
    for n in range(-4, 5):
        for k in range(6):
            assert build(C(name(x, n, k))).nus == (x, n, k), name(x, n, k)
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


def test_concurrent_construction_interns_once() -> None:
    # four threads build the same random games (fresh ones: nested switches of large integers)
    recipe = [(random.Random(7).sample(range(1000, 1100), 3), k) for k in range(60)]
    results: list[list[Game]] = []

    def work() -> None:
        out = []
        for picks, k in recipe:
            g = F([integer(picks[0]) + nimber(k)], [F([integer(-picks[1])], [integer(-picks[2])])])
            out.append(g + up_multiple(k))
        results.append(out)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(r == results[0] for r in results)
    assert all(a is b for r in results for a, b in zip(r, results[0]))
