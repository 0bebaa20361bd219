"""The heap rulesets (nim, grundy, octal:<code>): text, keys, moves and values by brute force."""

from __future__ import annotations

import itertools
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruma.engine.errors import NotationError, PositionError, RumaInputError
from ruma.engine.evaluator import evaluate
from ruma.engine.rulesets import Ruleset, State, get_ruleset
from ruma.engine.rulesets.heaps import GRUNDY, NIM, octal_ruleset


def brute_force(rules: Ruleset, state: State) -> int:
    """Nim value by the definition (mex over ``rules.options``), with no sum rule."""

    @cache
    def value(s: State) -> int:
        seen = {value(o) for o in rules.options(s)}
        v = 0
        while v in seen:
            v += 1
        return v

    return value(rules.normalise(state)[0])


@pytest.mark.parametrize("text", ["3 5 7", "3,5,7", "3+5+7", " 7 3 5 ", "{3, 5, 7}", "3, 0, 5, 7"])
def test_heap_notations(text: str) -> None:
    assert NIM.parse(text) == (3, 5, 7)
    assert NIM.format(NIM.parse(text)) == "3 5 7"


@pytest.mark.parametrize("rules", [NIM, GRUNDY, octal_ruleset("0.37")])
@given(heaps=st.lists(st.integers(0, 300), max_size=8))
@settings(max_examples=60, deadline=None)
def test_format_round_trips(rules: Ruleset, heaps: list[int]) -> None:
    state = rules.normalise(tuple(heaps))[0]
    assert rules.parse(rules.format(state)) == state


@pytest.mark.parametrize("text", ["", "3 x", "-1", "3.5", "()"])
def test_bad_positions_quote_the_input(text: str) -> None:
    with pytest.raises((NotationError, PositionError)) as info:
        NIM.parse(text)
    assert repr(text) in str(info.value)


def test_too_large_heaps_are_refused() -> None:
    with pytest.raises(PositionError):
        GRUNDY.parse("3000000")


def test_registry_names_and_codes() -> None:
    assert get_ruleset("nim") is NIM and NIM.code == 10
    assert get_ruleset("grundy") is GRUNDY and GRUNDY.code == 11
    octal = get_ruleset("octal:.37")
    assert octal.name == "octal:0.37" and octal.code == 12 and octal.impartial
    assert get_ruleset("octal:0.37") is octal
    with pytest.raises(RumaInputError):
        get_ruleset("octal:0.9")


def test_octal_keys_carry_the_code() -> None:
    a, b = octal_ruleset("0.37"), octal_ruleset("0.07")
    state = (3, 5)
    assert a.key(state) != b.key(state)
    assert a.key(state).startswith(bytes((12, a.version)))
    assert b"0.37" in a.key(state) and b"0.07" in b.key(state)
    assert octal_ruleset(".370").key(state) == a.key(state)  # the same game
    assert NIM.key(state) != GRUNDY.key(state)


def test_bouton_against_brute_force() -> None:
    # Bouton's rule (Grundy 1939, Miyadera Theorem 3): a Nim position's value is the xor of its
    # heaps; checked against the definition on every position of up to 4 heaps of at most 7.
    for count in range(5):
        for heaps in itertools.combinations_with_replacement(range(8), count):
            expected = 0
            for h in heaps:
                expected ^= h
            assert brute_force(NIM, heaps) == expected, heaps
            assert NIM.direct_value(heaps) == expected


@pytest.mark.parametrize("code", ["0.37", "0.07", "4.07", "0.156"])
def test_octal_direct_values_against_brute_force(code: str) -> None:
    rules = octal_ruleset(code)
    for heaps in itertools.combinations_with_replacement(range(1, 9), 3):
        assert rules.direct_value(heaps) == brute_force(rules, heaps), heaps


def test_grundy_direct_values_against_brute_force() -> None:
    for heaps in itertools.combinations_with_replacement(range(1, 14), 2):
        assert GRUNDY.direct_value(heaps) == brute_force(GRUNDY, heaps), heaps


def test_options_replace_one_heap() -> None:
    assert NIM.options((1, 2)) == [(1,), (1, 1), (2,)]
    assert GRUNDY.options((3, 4)) == [(1, 2, 4), (1, 3, 3)]
    assert octal_ruleset("0.37").options((3,)) == [(1,), (2,)]
    assert GRUNDY.left_options((7,)) == GRUNDY.right_options((7,)) == GRUNDY.options((7,))


def test_normalise_and_components() -> None:
    assert NIM.normalise((5, 0, 3, 3)) == ((3, 3, 5), False)
    assert list(NIM.components((3, 3, 5))) == [(3,), (3,), (5,)]
    assert list(NIM.components(())) == [()]


def test_evaluator_uses_the_sequence() -> None:
    assert evaluate("octal:0.37", "3 11 19 29").value == 0
    assert evaluate("grundy", "13").value == 3  # Grundy 1939: g(13) = 3
    assert evaluate("nim", "3 5 7").value == 1
    # A periodic game answers a heap far beyond the computed sequence.
    big = 10**9 + 7
    dawson = octal_ruleset("0.07")
    start, period = 53, 34
    assert evaluate(dawson, str(big)).value == dawson.direct_value((start + (big - start) % period,))
