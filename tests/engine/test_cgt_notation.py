"""Notation: CGSuite plain text, Unicode and cgt-py braces; printing, parsing, round trips, errors.

Expected printed forms follow CGSuite's and cgt-py's conventions (braces are checked against
cgt-py itself); the games they denote are checked against cgt-py's canonical forms.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruma.engine.cgt import DOWN, STAR, UP, ZERO, Game, integer, nimber, number, nus_game, up_multiple
from ruma.engine.cgt.notation import CGSUITE, STYLES, cgsuite_text, format_cgsuite, format_game, parse_game
from ruma.engine.errors import NotationError, RumaInputError

cgt_py = pytest.importorskip("cgt_py")

pytestmark = pytest.mark.both_engines

F = Fraction


def _switch(a: Game, b: Game) -> Game:
    return Game.from_options([a], [b])


def _tiny(x: Game) -> Game:
    return _switch(ZERO, _switch(ZERO, -x))


# (game, ascii, unicode, braces)
TABLE = [
    (integer(5), "5", "5", "5"),
    (number(F(-1, 2)), "-1/2", "-1/2", "-1/2"),
    (STAR, "*", "∗", "*"),
    (nimber(3), "*3", "∗3", "*3"),
    (UP, "^", "↑", "^"),
    (up_multiple(2), "^^", "⇑", "^2"),
    (up_multiple(3), "^3", "3·↑", "^3"),
    (DOWN, "v", "↓", "v"),
    (up_multiple(-2), "vv", "⇓", "v2"),
    (up_multiple(-2) + STAR, "vv*", "⇓∗", "v2*"),
    (number(F(1, 2)) + STAR, "1/2*", "1/2∗", "1/2*"),
    (UP + nimber(6), "^*6", "↑∗6", "^*6"),
    (UP + STAR, "^*", "↑∗", "^*"),
    (nus_game(F(73, 16), -9, 8), "73/16v9*8", "73/16+9·↓∗8", "73/16v9*8"),
    (nus_game(F(-1), 1, 0), "-1^", "-1↑", "-1^"),
    (nus_game(F(1, 2), 3, 2), "1/2^3*2", "1/2+3·↑∗2", "1/2^3*2"),
    (_switch(integer(1), integer(-1)), "+-1", "±1", "{1|-1}"),
    (_switch(_switch(integer(2), integer(1)), _switch(integer(-1), integer(-2))), "+-{2|1}", "±{2|1}", "{{2|1}|{-1|-2}}"),
    (_switch(integer(1) + STAR, STAR), "{1*|*}", "{1∗|∗}", "{1*|*}"),
    (_switch(integer(2), _switch(integer(1), ZERO)), "{2||1|0}", "{2||1|0}", "{2|{1|0}}"),
    (_switch(integer(2), _switch(integer(1), _switch(ZERO, integer(-1)))), "{2|||1||0|-1}", "{2|||1||0|-1}", "{2|{1|{0|-1}}}"),
    (_switch(_switch(integer(3), integer(2)), integer(0)), "{3|2||0}", "{3|2||0}", "{{3|2}|0}"),
    (_tiny(integer(2)), "Tiny(2)", "⧾₂", "{0|{0|-2}}"),
    (_tiny(number(F(1, 2))), "Tiny(1/2)", "⧾(1/2)", "{0|{0|-1/2}}"),
    (-_tiny(integer(2)), "Miny(2)", "⧿₂", "{{2|0}|0}"),
    (Game.from_options([STAR, UP], [DOWN, STAR]), "{*,^|v,*}", "{∗, ↑|↓, ∗}", "{*, ^|v, *}"),
    (Game.from_options([UP, STAR], [ZERO, STAR]), "{*,^|0,*}", "{∗, ↑|0, ∗}", "{*, ^|0, *}"),
]


@pytest.mark.parametrize("game,ascii_,unicode_,braces", TABLE, ids=[row[1] for row in TABLE])
def test_printing_table(game: Game, ascii_: str, unicode_: str, braces: str) -> None:
    assert format_game(game, "ascii") == ascii_ == format(game, "") and repr(game) == f"Game({ascii_!r})"
    assert format_game(game, "unicode") == unicode_ == str(game)  # print() shows what the CLI shows
    assert format_game(game, "braces") == braces
    for text in (ascii_, unicode_, braces):
        assert parse_game(text) is game


@pytest.mark.parametrize("game,ascii_,unicode_,braces", TABLE, ids=[row[1] for row in TABLE])
def test_braces_are_what_cgt_py_prints(game: Game, ascii_: str, unicode_: str, braces: str) -> None:
    assert repr(cgt_py.CanonicalForm(braces)) == f"CanonicalForm('{braces}')"


def test_five_slashes_fall_back_to_braces() -> None:
    g = ZERO
    for k in range(1, 7):
        g = _switch(integer(k), g)
    text = format_game(g)
    assert "|||||" not in text and "||||" in text
    assert parse_game(text) is g


# Expressions in any notation (left) and the same game written for cgt-py (right).
EXPRESSIONS = [
    ("{2||1|0} + ^*", "{2|{1|0}}", "^*"),
    ("-(1/2 + *)", "-1/2*", None),
    ("-1/2*", "-1/2*", None),
    ("+-1 + +-1", "{1|-1}", "{1|-1}"),
    ("v2*", "v2*", None),
    ("2·↑ + ∗", "^2*", None),
    ("↑ - ↓", "^2", None),
    ("±(1 + ∗)", "{1*|-1*}", None),
    ("Tiny(1) + Miny(1)", "0", None),
    ("{0, * | v}", "{0, *|v}", None),
    ("{ 1 , 2 | } - 3", "0", None),
    ("{|}", "0", None),
    ("3 − 1/4", "11/4", None),
    ("{2|||1||0|-1} - {2|{1|{0|-1}}}", "0", None),
    ("(((1)))", "1", None),
    ("{1|0}+{1|0}", "{1|0}", "{1|0}"),
    ("^^^", "^3", None),
    ("1^", "1^", None),
    ("⧾₁₀", "{0|{0|-10}}", None),
]


@pytest.mark.parametrize("text,cgt_a,cgt_b", EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_parse_expressions_against_cgt_py(text: str, cgt_a: str, cgt_b: str | None) -> None:
    expected = cgt_py.CanonicalForm(cgt_a)
    if cgt_b is not None:
        expected = expected + cgt_py.CanonicalForm(cgt_b)
    assert f"CanonicalForm('{format_game(parse_game(text), 'braces')}')" == repr(expected)


MALFORMED = [
    ("", 0, "empty expression"),
    ("{1|0", 4, "unclosed '{'"),
    ("{1,2}", 0, "needs '|'"),
    ("1/3", 2, "not a power of two"),
    ("{1|0}}", 5, "unexpected '}'"),
    ("^^3", 0, "arrow count"),
    ("{1||2||3}", 5, "two separators"),
    ("Tiny(2", 6, "expected ')'"),
    ("(1 + *", 6, "expected ')'"),
    ("1 +", 3, "expected a game"),
    ("{1,,2|0}", 3, "empty option"),
    ("abc", 0, "expected a game"),
    ("* x", 2, "unexpected 'x'"),
    ("1/", 2, "denominator"),
    ("{1|0} {2|1}", 6, "unexpected '{'"),
    ("2·", 2, "after the multiplier"),
]


@pytest.mark.parametrize("text,index,reason", MALFORMED, ids=[m[0] or "empty" for m in MALFORMED])
def test_malformed_input_is_quoted_with_its_column(text: str, index: int, reason: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_game(text)
    error = info.value
    assert isinstance(error, ValueError)
    assert (error.text, error.index) == (text, index)
    assert reason in error.reason
    assert repr(text) in str(error) and f"column {index + 1}" in str(error)


def test_unknown_style_and_non_string() -> None:
    with pytest.raises(RumaInputError, match="'latex'"):
        format_game(UP, "latex")
    with pytest.raises(RumaInputError):
        parse_game(3)  # type: ignore[arg-type]


# -- round trips -------------------------------------------------------------------------------------
_dyadics = st.builds(lambda n, e: F(n, 2**e), st.integers(-12, 12), st.integers(0, 3))
_leaves = st.one_of(
    st.builds(number, _dyadics),
    st.builds(nimber, st.integers(0, 5)),
    st.builds(nus_game, _dyadics, st.integers(-4, 4), st.integers(0, 3)),
)


def _extend(children: st.SearchStrategy[Game]) -> st.SearchStrategy[Game]:
    return st.one_of(
        st.builds(Game.from_options, st.lists(children, max_size=3), st.lists(children, max_size=3)),
        st.builds(lambda a: _switch(a, -a), children),
        st.builds(_tiny, children),
        st.builds(lambda a: -_tiny(a), children),
    )


games = st.recursive(_leaves, _extend, max_leaves=14)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_round_trip_every_style(g: Game) -> None:
    for style in STYLES + (CGSUITE,):
        assert parse_game(format_game(g, style)) is g, format_game(g, style)
    assert cgsuite_text(format_game(g, "ascii")) == format_cgsuite(g)


# printed by CGSuite itself: its test suite (github.com/aaron-siegel/cgsuite, lib/core/src/test/
# scala/org/cgsuite/lang/GameTest.scala and CanonicalShortGameTestCase.scala)
CGSUITE_PRINTED = ["{1||+-(1*)|-1,{-1|-3}}", "{7/2|||5/2|3/2||+-1/2}", "{^^*||0|v4}", "^6", "v4", "^^", "vv",
                   "73/16v9*8", "Tiny(3/2)", "Miny({5||3|1})", "{1|^^||^}", "{^3|vv}", "{2,{4|0}|-2,{0|-4}}",
                   "{4|||3|1||0|-2}", "9/4*", "-5/16*", "+-2", "{3*||2|1}"]


@pytest.mark.parametrize("text", CGSUITE_PRINTED)
def test_cgsuite_style_is_what_cgsuite_prints(text: str) -> None:
    assert format_cgsuite(parse_game(text)) == text


def test_cgsuite_text_from_ascii_text_on_random_games() -> None:
    from tests.support.positions import random_games

    games_ = random_games(5, 600)
    compound = [parse_game(t) for t in ("1*", "^*", "1^", "1/2v*3", "Tiny(1)")]
    shown = 0
    for i, g in enumerate(games_):
        a = g + compound[i % len(compound)]
        for h in (g, Game.from_options([a], [-a]), Game.from_options([Game.from_options([a], [-a])], [g])):
            text = format_cgsuite(h)
            assert cgsuite_text(format_game(h, "ascii")) == text and parse_game(text) is h
            shown += "+-(" in text
    assert shown > 50  # (most ± of a compound game reduce to other forms)


def test_cgsuite_style_parenthesises_compound_operands_of_plus_minus() -> None:
    for operand, shown in (("1*", "(1*)"), ("1^", "(1^)"), ("^*", "(^*)"), ("1/2", "1/2"), ("*2", "*2"),
                           ("^^", "^^"), ("{2|1}", "{2|1}"), ("Tiny(2)", "(Tiny(2))")):
        a = parse_game(operand)
        g = Game.from_options([a], [-a])
        if g.left_options == (a,):  # ±(^*) is 0, ±Tiny(2) is ∗: no ± left to print
            assert format_cgsuite(g) == "+-" + shown and format_game(g, "ascii") == "+-" + operand


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, games, st.sampled_from(STYLES))
def test_round_trip_expressions(a: Game, b: Game, style: str) -> None:
    ta, tb = format_game(a, style), format_game(b, style)
    assert parse_game(f"({ta}) + ({tb})") is a + b
    assert parse_game(f"({ta}) - ({tb})") is a - b
    assert parse_game(f"-({ta})") is -a
    assert parse_game(f"{{{ta}, {tb} | {tb}}}") is Game.from_options([a, b], [b])


def test_braces_match_cgt_py_on_random_games() -> None:
    from tests.support.positions import random_games

    games_ = random_games(99, 2000)
    wrong = []
    for g in games_:
        text = format_game(g, "braces")
        if repr(cgt_py.CanonicalForm(text)) != f"CanonicalForm('{text}')":
            wrong.append(text)
    assert not wrong, f"{len(wrong)} of {len(games_)} differ from cgt-py, e.g. {wrong[:3]}"
