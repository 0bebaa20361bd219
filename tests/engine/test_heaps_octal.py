"""Octal-game sequences (ruma.engine.octal) against the papers, theorems and the plain definition."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruma.engine.errors import NotationError, RumaInputError
from ruma.engine.octal import GrundyGame, OctalGame, guy_smith_period, quadratic_values

# Erickson 1996 §3: "A computer search of the first 200,000 values of this game [·37] ... finds
# only thirteen P-positions".
ERICKSON_37_P_POSITIONS = [0, 3, 11, 19, 29, 45, 71, 97, 123, 149, 175, 313, 407]

# Grundy 1939 (Eureka 2), the table of g(x) for Grundy's game, x = 1..17.
GRUNDY_1939 = [0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0.37", "0.37"),
        (".37", "0.37"),
        ("·37", "0.37"),
        (" 0.370 ", "0.37"),
        ("0.07", "0.07"),
        ("4.07", "4.07"),
        ("0.137", "0.137"),
        ("4.0", "4.0"),
        ("0.0", "0.0"),
    ],
)
def test_codes_parse_to_a_canonical_form(text: str, canonical: str) -> None:
    assert OctalGame(text).code == canonical


@pytest.mark.parametrize("text", ["", "37", "0.", "1.07", "2.3", "0.8", "0.3a", "0.3.7", "x.37", "0." + "1" * 65])
def test_bad_codes_raise_a_notation_error_quoting_the_input(text: str) -> None:
    with pytest.raises(NotationError) as info:
        OctalGame(text)
    assert repr(text) in str(info.value) or text == ""
    assert isinstance(info.value, RumaInputError) and isinstance(info.value, ValueError)


def test_digits_mean_leave_none_one_two_heaps() -> None:
    # 0.37: take 1 leaving 0 or 1 heap; take 2 leaving 0, 1 or 2 heaps (Erickson: "remove one seed
    # from any pile, or remove two seeds ... and optionally split the remainder into two piles").
    game = OctalGame("0.37")
    assert game.heap_options(1) == [()]
    assert game.heap_options(2) == [(), (1,)]
    assert game.heap_options(6) == [(1, 3), (2, 2), (4,), (5,)]
    assert OctalGame("4.07").heap_options(4) == [(1, 1), (1, 3), (2,), (2, 2)]
    assert OctalGame("0.4").heap_options(1) == []  # leaving two nonempty heaps needs >= 3


@pytest.fixture(scope="module")
def game_37() -> OctalGame:
    game = OctalGame("0.37")
    game.values(200_000)  # about 20 s of CPU (benchmarks/bench_octal.py)
    return game


@pytest.mark.slow
def test_37_p_positions_as_erickson_found(game_37: OctalGame) -> None:
    # Erickson's search: the first 200,000 values have exactly these 13 P-positions.
    assert game_37.p_positions(200_000) == ERICKSON_37_P_POSITIONS
    assert game_37.period(200_000) is None  # "reveals no periodicity"


@pytest.mark.parametrize("code", ["0.37", "0.07", "0.77", "4.07", "0.137", "0.6", "0.156", "0.7", "4.7", "0.51"])
def test_fast_sequence_equals_the_plain_definition(code: str) -> None:
    assert OctalGame(code).values(3000) == quadratic_values(OctalGame(code), 3000)


@pytest.mark.parametrize("mask", [0, 1, 2, 3, 5, 110, 238, 494, 1023])
def test_the_split_is_exact_for_every_mask(mask: int) -> None:
    expected = quadratic_values(OctalGame("0.37"), 1500)
    assert OctalGame("0.37", mask=mask).values(1500) == expected
    assert GrundyGame(mask=mask).values(1500) == quadratic_values(GrundyGame(), 1500)


def test_values_are_cached_and_extendable() -> None:
    game = OctalGame("0.37")
    head = game.values(100)
    assert game.values(2500)[:100] == head
    assert game.value(2499) == game.values(2500)[-1]
    assert game.values(0) == []
    with pytest.raises(ValueError):
        game.value(-1)


def test_grundy_game_values_printed_in_grundy_1939() -> None:
    assert GrundyGame().values(18)[1:] == GRUNDY_1939


def test_grundy_game_fast_equals_plain_definition() -> None:
    assert GrundyGame().values(4000) == quadratic_values(GrundyGame(), 4000)


def test_shifted_codes_agree() -> None:
    # 0.137 (Dawson's chess) and 0.07 (Dawson's Kayles) are the same game shifted by one bean:
    # a heap of n in 0.07 is a heap of n-1 in 0.137 (Winning Ways ch. 4).
    a, b = OctalGame("0.07").values(600), OctalGame("0.137").values(599)
    assert a[1:] == b


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        # Winning Ways: Dawson's chess 0.137 has period 34, last exceptional heap 51.
        ("0.137", (52, 34)),
        # Dawson's Kayles 0.07 is 0.137 shifted by one: last exceptional heap 52.
        ("0.07", (53, 34)),
        # Kayles 0.77: period 12, last exceptional heap 70 (Guy–Smith 1956).
        ("0.77", (71, 12)),
        # 0.6 and 0.4: see the docstring of test_small_periods.
    ],
)
def test_known_periods_are_detected(code: str, expected: tuple[int, int]) -> None:
    game = OctalGame(code)
    assert game.period(1000) == expected
    start, period = expected
    values = game.values(3000)
    assert all(values[i] == values[i + period] for i in range(start, 3000 - period))
    assert values[start - 1] != values[start - 1 + period]


def test_no_period_is_claimed_without_enough_values() -> None:
    assert OctalGame("0.77").period(150) is None  # needs 2*71 + 12 + 2 + 12 = 168 values
    assert OctalGame("0.77").period(168) == (71, 12)


def test_guy_smith_on_small_sequences() -> None:
    # Nim with heaps of at most 1 bean (0.3): 0 1 0 1 ... period 2 from 0, t = 1: needs 5 values.
    assert OctalGame("0.3").period(5) == (0, 2)
    assert guy_smith_period([0, 1, 0, 1], 1) is None
    # A sequence whose repetition begins late.
    seq = [5, 4] + [0, 1, 2] * 10
    assert guy_smith_period(seq, 2) == (2, 3)
    assert guy_smith_period([], 0) is None


@pytest.mark.slow
def test_rare_values_of_37_are_few(game_37: OctalGame) -> None:
    # The split the adaptive choice settles on leaves few rare heaps among the later values.
    assert game_37.rare_mask != 0
    late = [n for n in game_37.rare_heaps if n >= 20_000]
    assert len(late) < 100


@given(
    head=st.sampled_from(["0", "4"]),
    digits=st.lists(st.integers(0, 7), min_size=1, max_size=4),
    mask=st.one_of(st.none(), st.integers(0, 63)),
)
@settings(max_examples=40, deadline=None)
def test_random_codes_fast_equals_plain(head: str, digits: list[int], mask: int | None) -> None:
    code = head + "." + "".join(map(str, digits))
    expected = quadratic_values(OctalGame(code), 300)
    assert OctalGame(code, mask=mask).values(300) == expected
    game = OctalGame(code)
    for n in (0, 1, 7, 40):
        # heap_options agrees with the sequence: G(n) is the mex of the options' values.
        seen = set()
        for option in game.heap_options(n):
            v = 0
            for h in option:
                v ^= expected[h]
            seen.add(v)
        mex = 0
        while mex in seen:
            mex += 1
        assert expected[n] == mex
