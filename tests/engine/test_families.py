"""Family templates, domains, instance order and claim substitution (ruma.engine.families.templates)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruma.engine.cgt import ZERO, Game, integer, nimber, number, up_multiple
from ruma.engine.cgt.notation import parse_game
from ruma.engine.errors import NotationError, RumaInputError
from ruma.engine.families.templates import enumerate_instances, parse_domain, parse_template, substitute_claim
from ruma.engine.rulesets import get_ruleset

pytestmark = pytest.mark.both_engines


def test_erickson_templates_expand_as_written_in_the_paper() -> None:
    # Theorem 2.2's proof: (10)^m 03 (01)^n with m = 2, n = 1 is 10 10 03 01
    assert parse_template("(10)^m 03 (01)^n").position_text({"m": 2, "n": 1}) == "10100301"
    assert parse_template("(01)^m 2 (01)^n").position_text({"m": 1, "n": 2}) == "0120101"
    assert parse_template("11(01)^n").position_text({"n": 2}) == "110101"
    assert parse_template("(01300)^n").position_text({"n": 2}) == "0130001300"
    assert parse_template("1^{n+1} 2^k").instantiate({"n": 2, "k": 2}) == (1, 1, 1, 2, 2)


def test_pot_count_parameters_and_comma_mode() -> None:
    template = parse_template("1,{y}")
    assert template.parameters == ("y",)
    assert template.instantiate({"y": 7}) == (1, 7)
    adjacent = parse_template("{x},{x+1}")
    assert adjacent.position_text({"x": 9}) == "9,10"  # a count of ten switches to comma mode
    assert get_ruleset("atomic-wari").parse(adjacent.position_text({"x": 9})) == (9, 10)
    assert parse_template("{2x+1}").instantiate({"x": 3}) == (7,)


def test_parameters_in_order_of_first_appearance() -> None:
    assert parse_template("(01)^n 2 (10)^m").parameters == ("n", "m")
    assert parse_template("{b}{a}{b}").parameters == ("b", "a")


def test_empty_instance_is_an_empty_group() -> None:
    template = parse_template("(01300)^n")
    assert template.position_text({"n": 0}) == "()"


@pytest.mark.parametrize("bad", ["(10", "10)^2", "(10)", "1^", "{x", "1 ? 2", ""])
def test_bad_templates_are_refused_quoting_the_input(bad: str) -> None:
    with pytest.raises(RumaInputError) as info:
        parse_template(bad)
    assert repr(bad) in str(info.value) or bad == ""


def test_negative_counts_and_missing_parameters_are_refused() -> None:
    with pytest.raises(RumaInputError, match="negative"):
        parse_template("{x-3}").instantiate({"x": 1})
    with pytest.raises(RumaInputError, match="needs values for n"):
        parse_template("(01)^n").instantiate({})


def test_both_domain_spellings_of_theorem_2_3_are_the_same_set() -> None:
    formal = parse_domain("m>=0,n>=0,not(m=0,n=0)")
    prose = parse_domain("all m, n ≥ 0 except m = n = 0")
    for m, n in itertools.product(range(6), repeat=2):
        expected = not (m == 0 and n == 0)
        assert formal.contains({"m": m, "n": n}) is expected
        assert prose.contains({"m": m, "n": n}) is expected


def test_domain_chains_and_exclusions() -> None:
    d = parse_domain("1 < x <= y-2, x != 4")
    got = [(x, y) for x, y in itertools.product(range(8), repeat=2) if d.contains({"x": x, "y": y})]
    assert got == [(x, y) for x, y in itertools.product(range(8), repeat=2) if 1 < x <= y - 2 and x != 4]
    with pytest.raises(NotationError, match="m >> 0"):
        parse_domain("m >> 0")


def test_instance_order_is_by_sum_then_lexicographic() -> None:
    domain = parse_domain("m>=0,n>=0,not(m=0,n=0)")
    got = [(v["m"], v["n"]) for v in enumerate_instances(["m", "n"], domain, 3)]
    expected = sorted(((m, n) for m, n in itertools.product(range(4), repeat=2) if (m, n) != (0, 0)),
                      key=lambda t: (sum(t), t))
    assert got == expected
    assert got[0] == (0, 1)  # so "(01)^m 2 (01)^n = n" is first refuted at m = 0, n = 1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 4), st.lists(st.integers(0, 3), min_size=1, max_size=3))
def test_enumeration_matches_a_filtered_product(bound: int, caps: list[int]) -> None:
    names = [f"p{i}" for i in range(len(caps))]
    text = ",".join(f"{n}<={c}" for n, c in zip(names, caps))
    got = [tuple(v.values()) for v in enumerate_instances(names, parse_domain(text), bound)]
    expected = sorted((t for t in itertools.product(range(bound + 1), repeat=len(caps))
                       if all(x <= c for x, c in zip(t, caps))), key=lambda t: (sum(t), t))
    assert got == expected


def test_claims_substitute_to_the_values_of_the_theorems() -> None:
    values = {"m": 2, "n": 3}
    assert parse_game(substitute_claim("n+1", values)) is integer(4)
    assert parse_game(substitute_claim("{n+1|0}", values)) is Game.from_options([integer(4)], [ZERO])
    assert parse_game(substitute_claim("{n|-m}", values)) is Game.from_options([integer(3)], [integer(-2)])
    assert parse_game(substitute_claim("n.^", values)) is up_multiple(3)
    assert parse_game(substitute_claim("*n", values)) is nimber(3)
    assert substitute_claim("0", values) == "0"
    assert substitute_claim("^*", values) == "^*"  # no parameters: untouched
    half = Fraction(1, 2)
    assert parse_game(substitute_claim("2^-n", values)) is number(half ** 3)
    assert parse_game(substitute_claim("2^-{n+m}", values)) is number(half ** 5)
    assert parse_game(substitute_claim("2^-(n-m-1)", values)) is integer(1)
    assert parse_game(substitute_claim("2^-(m-n)", values)) is integer(2)
    assert parse_game(substitute_claim("{0|2^-m}", values)) is number(half ** 3)  # {0 | 1/4} = 1/8
    assert (parse_game(substitute_claim("{0||0|-n}", values))
            is Game.from_options([ZERO], [Game.from_options([ZERO], [integer(-3)])]))
    assert substitute_claim("2^-k", values) == "2^-k"  # not a parameter: left to the parser (which refuses it)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 5), st.integers(0, 5))
def test_position_text_round_trips_through_the_sowing_parser(m: int, n: int) -> None:
    template = parse_template("(10)^m 03 (01)^n")
    text = template.position_text({"m": m, "n": n})
    assert get_ruleset("sowing").parse(text) == template.instantiate({"m": m, "n": n})


def test_claim_errors_quote_the_claim_as_typed() -> None:
    from ruma.engine.families.templates import claim_value

    assert claim_value("{n+1|0}", {"n": 2}) is parse_game("{3|0}")
    with pytest.raises(RumaInputError) as error:
        claim_value("{n|", {"n": 0})
    message = str(error.value)
    assert message.startswith("cannot parse claim '{n|' at n=0 ('{0|')") and "expected a game" in message
    with pytest.raises(RumaInputError, match=r"^cannot parse claim '\{1\|': "):
        claim_value("{1|", {"n": 0})  # no parameter in it: nothing substituted to show
