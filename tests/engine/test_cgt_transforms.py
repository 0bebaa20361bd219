"""Cooling, heating, overheating, Norton products, ordinal sums and reduced canonical forms.

Expected values come from CGSuite's own test suite (github.com/aaron-siegel/cgsuite,
``lib/core/src/test/scala/org/cgsuite/lang/``: ``GameTest.scala`` — its ``Cool``, ``Heat``,
``NortonProduct`` and ``Overheat`` table —, ``EvalTest.scala`` — ``Heat`` as an infix operator —,
``CompoundGameTestCase.scala`` — ordinal sums — and ``CanonicalShortGameTestCase.scala`` — its
``freeze`` and ``reducedCanonicalForm`` columns), from Winning Ways and Siegel's *Combinatorial
Game Theory* (theorems checked on many games: a switch cooled, ``∗`` and ``↑`` heated, Berlekamp's
rule for Hackenbush strings as ordinal sums, ``∗a:∗b = ∗(a+b)``, cooling additive and its stops
the thermograph's walls, Norton multiplication linear for ``U > 0``, ``rcf`` infinitesimally
close and idempotent), and from the issue's examples, which are such theorems' instances.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from ruma.engine.cgt import ONE, STAR, UP, ZERO, Game, integer, nimber, number, parse_game, up_multiple
from ruma.engine.cgt import transforms as T
from ruma.engine.cgt.analysis import thermograph
from ruma.engine.errors import LimitExceededError, NotationError, RumaInputError
from tests.support.positions import random_games

pytestmark = pytest.mark.both_engines

F = Fraction
G = parse_game


# -- the issue's examples (each an instance of a theorem below) ----------------------------------
@pytest.mark.parametrize(("expression", "expected"), [
    ("cool(±1, 1)", "*"),  # {a|b} cooled by its temperature (a-b)/2 is (a+b)/2 + * (WW ch. 6)
    ("cool(±1, 2)", "0"),  # ... and beyond it the mean (a+b)/2
    ("heat(*, 1)", "+-1"),  # ∫^t * = {t | -t} (WW ch. 6)
    ("ordinal(1, 1)", "2"),  # the Hackenbush string BB (Berlekamp's rule)
    ("ordinal(1, -1)", "1/2"),  # the Hackenbush string BR
    ("rcf(^)", "0"),  # ↑ is infinitesimal
    ("rcf(1*)", "1"),  # 1* is infinitesimally close to 1
    ("norton(2, ^)", "^^"),  # an integer n times U is n copies of U
])
def test_the_issues_examples(expression: str, expected: str) -> None:
    assert G(expression) is G(expected)


# -- CGSuite's test suite -------------------------------------------------------------------------
# GameTest.scala: `{3||2+*|1+*}.Cool(t)`, `.Heat(t)`, `.Overheat(s, t)`, `x.NortonProduct(^)`
GAME = "{3||2*|1*}"
CGSUITE = [
    (T.cool, (GAME, 0), "{3||2*|1*}"),
    (T.cool, (GAME, F(1, 4)), "{11/4||2|3/2}"),
    (T.cool, (GAME, F(1, 2)), "{5/2|2*}"),
    (T.cool, (GAME, F(5, 8)), "{19/8|17/8}"),
    (T.cool, (GAME, F(3, 4)), "9/4*"),
    (T.cool, (GAME, 70), "9/4"),
    (T.cool, (GAME, F(-1, 2)), "{7/2|||5/2|3/2||+-1/2}"),
    (T.cool, ("1/4", F(-1, 8)), "1/4"),
    (T.cool, ("1/4", F(-1, 4)), "1/4*"),
    (T.cool, ("1/4", F(-3, 8)), "{3/8|1/8}"),
    (T.heat, (GAME, 0), "{3||2*|1*}"),
    (T.heat, (GAME, F(1, 2)), "{7/2|||5/2|3/2||+-1/2}"),
    (T.heat, (GAME, 1), "{4|||3|1||0|-2}"),
    (T.heat, (GAME, F(-3, 4)), "9/4*"),
    (T.heat, (GAME, -1), "9/4"),
    (T.heat, (GAME, -2), "3/2"),
    (T.heat, (GAME, -3), "1"),
    (T.heat, (GAME, -4), "0"),
    (T.heat, (GAME, "*"), "{3*||2|1}"),
    (T.norton, (0, "^"), "0"),
    (T.norton, (6, "^"), "^6"),
    (T.norton, (-4, "^"), "v4"),
    (T.norton, ("1/2", "^"), "{^^*|v*}"),
    (T.norton, ("^", "^"), "{^^*||0|v4}"),
    (T.norton, ("Tiny(2)", "^"), "{^^*||0|v6}"),
    (T.overheat, (GAME, "*", "1*"), "{1||+-(1*)|-1,{-1|-3}}"),
    # `(7/16).Overheat(0,0)` is CGSuite's ^[3] = '{*|*}':3 = {0|*}:... = {↑|∗||∗}
    (T.overheat, ("7/16", 0, 0), "{^|*||*}"),
    # EvalTest.scala: `G Heat 2` and `^^ Heat *`
    (T.heat, ("*", 2), "+-2"),
    (T.heat, ("*2", 2), "{2,{4|0}|-2,{0|-4}}"),  # CGSuite writes +-{2,{4|0}}
    (T.heat, ("^", 2), "{2||0|-4}"),
    (T.heat, ("^*", 2), "{2,{4|0}|-2}"),
    (T.heat, ("^^", 2), "{2||0,+-2|-4}"),
    (T.heat, ("^^", "*"), "0"),
    # CompoundGameTestCase.scala: `(g) : (h)`
    (T.ordinal, ("1/2", "1/4"), "9/16"),
    (T.ordinal, ("*5", "*6"), "*11"),
    # CGSuite writes the inner game {1,±1 | -1,±1} as +-{1,+-1}
    (T.ordinal, ("+-1", "^^"), "{1,+-1|-1,{1,+-1,{1,+-1|-1,+-1}|-1,+-1}}"),
    (T.ordinal, ("{1|0}", "0"), "{1|0}"),
]


@pytest.mark.parametrize(("operation", "args", "expected"), CGSUITE)
def test_cgsuites_examples(operation: object, args: tuple[object, ...], expected: str) -> None:
    assert callable(operation)
    assert operation(*args) is G(expected)


# CanonicalShortGameTestCase.scala: the value, its `Freeze` (cooled by its temperature) and its
# `ReducedCanonicalForm`
FREEZE_RCF = [
    ("0", "0", "0"), ("5", "5", "5"), ("-1/2", "-1/2", "-1/2"), ("25/16", "25/16", "25/16"),
    ("*8", "*8", "0"), ("9/8*", "9/8*", "9/8"), ("^", "^", "0"), ("v*", "v*", "0"), ("6^*", "6^*", "6"),
    ("^*6", "^*6", "0"), ("73/16v9*8", "73/16v9*8", "73/16"), ("Tiny(3/2)", "Tiny(3/2)", "0"),
    ("Tiny({3|1})", "Tiny({3|1})", "0"), ("Miny({5||3|1})", "Miny({5||3|1})", "0"),
    ("{1|^^||^}", "{1|^^||^}", "0"), ("{0||0|v3}", "{0||0|v3}", "0"), ("{^3|vv}", "{^3|vv}", "0"),
    ("{3||2*|1*}", "9/4*", "{3||2|1}"),
    ("{3/2*|1/2||{0|-3},{-1*,{-1/2|-1*}|-5/2}}", "-5/16*", "{3/2|1/2||{0|-3},{-1/2|-1||-5/2}}"),
]


@pytest.mark.parametrize(("value", "freeze", "reduced"), FREEZE_RCF)
def test_cgsuites_freeze_and_reduced_canonical_form(value: str, freeze: str, reduced: str) -> None:
    g = G(value)
    assert g.cool(0 if g.is_number else g.temperature) is G(freeze)
    assert g.rcf() is G(reduced)


# -- theorems ---------------------------------------------------------------------------------------
GAMES = random_games(20261205, 160)
TEMPERATURES = [F(0), F(1, 4), F(1, 2), F(3, 4), F(1), F(3, 2), F(2), F(-1, 2), F(-3, 4)]


def test_switches_cool_to_their_mean_and_star_then_freeze() -> None:
    # WW ch. 6 / Siegel II.5: {a|b} (a > b numbers) cooled by t is {a-t | b+t} below its
    # temperature (a-b)/2, (a+b)/2 + * at it and (a+b)/2 above
    for a in (F(1), F(2), F(3, 2), F(5, 4), F(-1, 2)):
        for b in (F(-1), F(0), F(1, 2), F(-3, 2)):
            if a <= b:
                continue
            g, half, mean = Game.from_options([number(a)], [number(b)]), (a - b) / 2, (a + b) / 2
            for t in (F(0), half / 2, half, half + F(1, 8), half + 1):
                expected = (Game.from_options([number(a - t)], [number(b + t)]) if t < half
                            else number(mean) + STAR if t == half else number(mean))
                assert g.cool(t) is expected, (a, b, t)


def test_cooling_is_additive_and_its_stops_are_the_thermographs_walls() -> None:
    # Siegel II.5: (G + H)_t = G_t + H_t, and the walls of G's thermograph at t are the stops of G_t
    rng = random.Random(7)
    for g in GAMES:
        h, t = rng.choice(GAMES), rng.choice(TEMPERATURES)
        cooled = g.cool(t)
        assert (g + h).cool(t) is cooled + h.cool(t)
        assert (cooled.left_stop, cooled.right_stop) == thermograph(g).at(t)
        assert (-g).cool(t) is -cooled


def test_heating_star_and_up() -> None:
    # WW ch. 6: ∫^t * = ±t and ∫^t ↑ = {t || 0 | -2t}; numbers are fixed
    for t in (F(1, 2), F(1), F(3), F(7, 4)):
        assert T.heat(STAR, t) is Game.from_options([number(t)], [number(-t)])
        inner = Game.from_options([ZERO], [number(-2 * t)])
        assert T.heat(UP, t) is Game.from_options([number(t)], [inner])
        assert T.heat(number(t), t) is number(t)


def test_heating_commutes_with_negation_and_by_zero_is_identity() -> None:
    rng = random.Random(8)
    for g in GAMES:
        t = rng.choice([ONE, STAR, number(F(1, 2)), UP])
        assert g.heat(t) is -(-g).heat(t)
        assert g.heat(0) is g


def hackenbush_string(edges: str) -> Fraction:
    """Berlekamp's rule (WW ch. 2): the first run of one colour counts ±1 an edge, each later edge
    ±1/2, ±1/4, ... (blue +, red -)."""
    sign = {"B": 1, "R": -1}
    value, i = F(0), 0
    while i < len(edges) and edges[i] == edges[0]:
        value += sign[edges[i]]
        i += 1
    step = F(1, 2)
    for edge in edges[i:]:
        value += sign[edge] * step
        step /= 2
    return value


def test_hackenbush_strings_are_ordinal_sums() -> None:
    # WW ch. 2 and ONAG ch. 15: a Hackenbush string is the ordinal sum of its edges, and a number's
    # canonical form is the string of its sign expansion
    rng = random.Random(9)
    for _ in range(200):
        edges = "".join(rng.choice("BR") for _ in range(rng.randint(1, 8)))
        g = ZERO
        for edge in edges:
            g = g.ordinal(1 if edge == "B" else -1)
        assert g is number(hackenbush_string(edges)), edges


def test_ordinal_sums_of_nimbers_and_by_zero() -> None:
    # ONAG ch. 15 / Siegel: *a : *b = *(a + b); G : 0 = G
    for a in range(6):
        for b in range(6):
            assert nimber(a).ordinal(nimber(b)) is nimber(a + b)
    for g in GAMES:
        assert g.ordinal(0) is g
        assert g.ordinal(-ONE) is -((-g).ordinal(ONE))


def test_norton_products() -> None:
    # Siegel (Norton multiplication): n.U is n copies of U; G.1 = G; for U > 0, G.U depends on G's
    # value only and is linear in G
    rng = random.Random(10)
    for u in (UP, G("{3|1}"), G("Tiny(1)")):
        copies = ZERO
        for n in range(0, 6):
            assert T.norton(n, u) is integer(n).norton(u) is copies
            assert T.norton(-n, u) is -copies
            copies = copies + u
    units = [UP, ONE, G("{3|1}"), G("^*") + ONE, G("Tiny(1)")]
    small = [g for g in GAMES if g.birthday <= 3]
    for g in small:
        assert g.norton(ONE) is g
        u, h = rng.choice(units), rng.choice(small)
        assert (g + h).norton(u) is g.norton(u) + h.norton(u), (g, h, u)


def test_reduced_canonical_form() -> None:
    # Siegel II.6: rcf(G) is infinitesimally close to G, is its own rcf, and ignores infinitesimals
    rng = random.Random(11)
    for g in GAMES:
        r = g.rcf()
        assert (r - g).is_infinitesimal
        assert r.rcf() is r
        assert (g + rng.choice([UP, STAR, G("Tiny(2)"), G("^*3")])).rcf() is r
        assert r.birthday <= g.birthday
    assert T.rcf(G("+-1") + UP) is G("+-1")


def test_deep_games_need_no_deep_recursion() -> None:
    # 300·↑ is born on day 301: the operations run from an explicit stack. G.1 = G; 300·↑ is
    # infinitesimal and cools to 0 (its mean) beyond temperature 0, {2|0} to {3/2|1/2} by 1/2, and
    # cooling is additive; rcf ignores infinitesimals; heating commutes with negation
    deep, switch = up_multiple(300), G("{2|0}")
    assert deep.norton(ONE) is deep and deep.ordinal(0) is deep
    assert (deep + switch).cool(F(1, 2)) is G("{3/2|1/2}")
    assert (deep + switch).rcf() is switch
    assert deep.heat(1) is -((-deep).heat(1)) and deep.heat(1).birthday > 300
    assert (deep + switch).overheat(1, 1) is -((-deep - switch).overheat(1, 1))


# -- arguments and expressions ----------------------------------------------------------------------
@pytest.mark.parametrize(("call", "quoted"), [
    (lambda: T.cool(STAR, STAR), "'*'"),
    (lambda: T.cool(ONE, -1), "'-1'"),
    (lambda: T.cool("{1|-1}", "-3/2"), "'-3/2'"),
])
def test_meaningless_arguments_are_input_errors(call: object, quoted: str) -> None:
    assert callable(call)
    with pytest.raises(RumaInputError, match=quoted):
        call()
    with pytest.raises(TypeError, match="temperature"):
        T.cool(ONE, [1])  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "expected"), [
    ("{1|-1}.cool(1)", "*"), ("(+-1).Cool(1)", "*"), ("1:1", "2"), ("1:-1", "1/2"), ("1:1:-1", "3/2"),
    ("1:1 + 1", "3"), ("^.rcf", "0"), ("{3||2*|1*}.ReducedCanonicalForm", "{3||2|1}"),
    ("(1/2).NortonProduct(^)", "{^^*|v*}"), ("{cool(+-1, 1)|0}", "v"), ("-1.cool(1)", "-1"),
    ("*.heat(1) + heat(*, 1)", "0"), ("{3||2*|1*}.Overheat(*, 1+*)", "{1||+-(1*)|-1,{-1|-3}}"),
])
def test_expressions(text: str, expected: str) -> None:
    assert G(text) is G(expected)


@pytest.mark.parametrize(("text", "error", "says"), [
    ("cool(1)", NotationError, "cool takes 2 arguments"),
    ("rcf", NotationError, "rcf takes 1 argument"),
    ("1.frobnicate(2)", NotationError, "unknown operation 'frobnicate'"),
    ("cool(+-1, 1", NotationError, "expected ')'"),
    ("cool(*, *)", RumaInputError, "cannot cool"),
    ("norton(20000, ^)", LimitExceededError, "birthday"),
    ("*1000:*1000", LimitExceededError, "nimber index 2000"),
    ("heat(heat(heat({1|0}, 100), 100), 100)", LimitExceededError, "birthday"),
    ("^" + ".rcf" * 150, NotationError, "nested more than 100 levels deep"),
    ("1" + ":1" * 150, NotationError, "nested more than 100 levels deep"),
])
def test_bad_expressions(text: str, error: type[Exception], says: str) -> None:
    with pytest.raises(error, match=says.replace("(", r"\(").replace(")", r"\)")):
        G(text)
