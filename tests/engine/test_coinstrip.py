"""Strips with coins 1 and 2 (Miyadera et al. §4, §7) against the paper's list and program."""

from __future__ import annotations

import random
from functools import cache

import pytest

from ruma.client.cli.impartial import p_positions, reachable_nim_values
from ruma.engine.errors import NotationError, PositionError
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.coinstrip import COINSTRIP1, COINSTRIP2

# Example 8: "the list of all the P-positions produced by Mathematica", as printed (OCR).
PAPER_LIST = [
    (1, 2, 3), (1, 2, 5), (1, 3, 6), (1, 3, 8), (1, 3, 10), (1, 3, 12), (1, 3, 14), (1, 4, 5),
    (1, 4, 7), (1, 4, 9), (1, 4, 11), (1, 4, 13), (1, 4, 15), (1, 5, 6), (1, 5, 8), (1, 5, 10),
    (1, 5, 12), (1, 5, 14), (1, 6, 9), (1, 6, 11), (1, 6, 13), (1, 6, 15), (1, 7, 8), (1, 7, 10),
    (1, 7, 12), (1, 7, 14), (1, 8, 11), (1, 8, 13), (1, 8, 15), (1, 9, 10), (1, 9, 12),
    (1, 9, 14), (1, 10, 11), (1, 10, 13), (1, 10, 15), (1, 11, 14), (1, 12, 13), (1, 12, 15),
    (1, 14, 15), (2, 3, 4), (2, 3, 7), (2, 3, 9), (2, 3, 11), (2, 3, 13), (2, 3, 15), (2, 4, 6),
    (2, 4, 8), (2, 4, 10), (2, 4, 12), (2, 4, 14), (2, 5, 7), (2, 5, 9), (2, 5, 11), (2, 5, 13),
    (2, 5, 15), (2, 6, 8), (2, 6, 10), (2, 6, 12), (2, 6, 14), (2, 7, 9), (2, 7, 11), (2, 7, 13),
    (2, 7, 15), (2, 8, 10), (2, 8, 12), (2, 8, 14), (2, 9, 11), (2, 9, 13), (2, 9, 15),
    (2, 10, 12), (2, 10, 14), (2, 11, 13), (2, 11, 15), (2, 12, 14), (2, 13, 15), (3, 4, 5),
    (3, 5, 6), (3, 5, 8), (3, 5, 10), (3, 9, 10), (3, 9, 12), (3, 9, 14), (3, 10, 11),
    (3, 10, 13), (3, 10, 15), (3, 11, 14),
]  # fmt: skip


def _program_po(pos: tuple[int, ...]) -> set[tuple[int, ...]]:
    """The paper's ``Po``: the three ReplaceList rules on a list with ``2`` marking corners."""
    out = set()
    for i in range(len(pos) - 1):
        if pos[i : i + 2] == (1, 0):
            out.add(pos[:i] + (0, 1) + pos[i + 2 :])
    for i in range(len(pos) - 2):
        if pos[i : i + 3] == (1, 1, 0):
            out.add(pos[:i] + (0, 1, 1) + pos[i + 3 :])
        if pos[i : i + 3] == (1, 2, 0):
            out.add(pos[:i] + (0, 2, 1) + pos[i + 3 :])
    return out


@cache
def _program_gr(pos: tuple[int, ...]) -> int:
    seen = {_program_gr(o) for o in _program_po(pos)}
    return min(set(range(len(seen) + 1)) - seen)


def _program_p_positions(yy: tuple[int, ...]) -> list[tuple[int, ...]]:
    """``data[n]`` (everything reachable from yy), ``gote`` (Gr == 0), ``gote3`` (square numbers)."""
    data = {yy}
    frontier = [yy]
    while frontier:
        new = {o for p in frontier for o in _program_po(p)} - data
        data.update(new)
        frontier = list(new)
    gote2 = sorted((p for p in data if _program_gr(p) == 0), reverse=True)  # Reverse[gote]
    squares = []
    for p in gote2:
        ones = [i + 1 for i, v in enumerate(p) if v == 1]  # Position[#, 1]
        squares.append(tuple(sum(1 for j in range(s) if p[j] != 2) for s in ones))
    return squares


# The reading that reproduces the list: three sub-strips of five (the OCR'd yy lost one 0).
YY_15 = (1, 1, 1, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0)
# The program as printed: 5 + 4 + 5 = 14 squares.
YY_AS_PRINTED = (1, 1, 1, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0)


@pytest.fixture(scope="module")
def ours() -> list[tuple[int, ...]]:
    found, _ = p_positions(COINSTRIP2, COINSTRIP2.parse("15:1,2,3"))
    return [tuple(i + 1 for i, c in enumerate(s) if c) for s in found]


def test_every_listed_p_position_is_found(ours: list[tuple[int, ...]]) -> None:
    assert set(PAPER_LIST) <= set(ours)
    # The printed list is our list with two runs missing (a lost page/column of the OCR):
    # everything up to {3,5,10}, then {3,9,10} .. {3,11,14}.
    i = ours.index((3, 5, 10)) + 1
    j, k = ours.index((3, 9, 10)), ours.index((3, 11, 14)) + 1
    assert PAPER_LIST == ours[:i] + ours[j:k]
    assert len(ours) == 197


def test_our_list_equals_the_program_on_fifteen_squares(ours: list[tuple[int, ...]]) -> None:
    assert _program_p_positions(YY_15) == ours


def test_the_program_as_printed_does_not_reproduce_the_list() -> None:
    printed = set(_program_p_positions(YY_AS_PRINTED))
    assert max(max(p) for p in printed) == 14
    assert not set(PAPER_LIST) <= printed


def test_no_jump_at_a_corner() -> None:
    # Coins on 4 and 5: the coin on 4 may not jump to 6 (a corner); the coin on 5 may step to 6.
    assert COINSTRIP2.options(COINSTRIP2.parse("15:4,5")) == [COINSTRIP2.parse("15:4,6")]
    # Within a sub-strip jumps are allowed: 7 over 8 to 9.
    assert COINSTRIP2.parse("15:8,9") in COINSTRIP2.options(COINSTRIP2.parse("15:7,8"))
    # Coin strip 1 has no corners.
    assert COINSTRIP1.parse("15:5,6") in COINSTRIP1.options(COINSTRIP1.parse("15:4,5"))


def test_example_4_start_has_two_options() -> None:
    # Graph 4.1 -> Graph 4.2 (two strips): from coins on 1, 2, 3 the coin on 3 steps to 4 or the
    # coin on 2 jumps to 4.
    start = COINSTRIP1.parse("15:1,2,3")
    assert sorted(COINSTRIP1.options(start)) == sorted([COINSTRIP1.parse("15:1,2,4"), COINSTRIP1.parse("15:1,3,4")])


def test_coinstrip1_equals_the_rewriting_program_without_corners() -> None:
    for n, coins in [(15, (1, 2, 3)), (12, (1, 2, 3, 4)), (9, (1, 3, 4, 6))]:
        state = COINSTRIP1.parse(f"{n}:" + ",".join(map(str, coins)))
        values = reachable_nim_values(COINSTRIP1, state)
        for position, value in values.items():
            assert value == _program_gr(position), position


def test_coinstrip1_normalisation_keeps_the_value() -> None:
    rng = random.Random(1)
    for _ in range(40):
        n = rng.randint(1, 12)
        state = tuple(rng.randint(0, 1) for _ in range(n))
        normal, _ = COINSTRIP1.normalise(state)
        assert _program_gr(normal) == _program_gr(state), state


@pytest.mark.parametrize("text", ["15:1,2,3", "111000000000000", "15: 1 2 3", "15:{1,2,3}"])
def test_text(text: str) -> None:
    assert COINSTRIP2.parse(text) == (1, 1, 1) + (0,) * 12
    assert COINSTRIP2.format(COINSTRIP2.parse(text)) == "15:1,2,3"
    assert get_ruleset("coinstrip1").code == 22 and get_ruleset("coinstrip2").code == 23


@pytest.mark.parametrize("text", ["15:16", "15:1,1", "15:x", "1102", ""])
def test_bad_text_quotes_the_input(text: str) -> None:
    with pytest.raises((PositionError, NotationError)) as info:
        COINSTRIP2.parse(text)
    assert repr(text) in str(info.value)
