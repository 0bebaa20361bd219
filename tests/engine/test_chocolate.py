"""Bitter chocolate 1 and 2 (Miyadera et al. §3, §5) against the paper and its program."""

from __future__ import annotations

import itertools
from functools import cache

import pytest

from ruma.client.cli.impartial import p_positions, reachable_nim_values
from ruma.engine.errors import NotationError, PositionError
from ruma.engine.evaluator import evaluate
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.chocolate import CHOCOLATE1, CHOCOLATE2, chocolate2_valid

# -- chocolate 1 ----------------------------------------------------------------------------------


def test_worked_example_6423_and_its_winning_moves() -> None:
    # Graph 3.4: (6, 4, 2, 3) is an N-position; Graph 3.5: removing one row over the bitter part
    # gives (5, 4, 2, 3), a P-position; "another option is to remove 3 columns from the left side".
    start = CHOCOLATE1.parse("6,4,2,3")
    assert evaluate(CHOCOLATE1, start).value != 0
    winning = [o for o in CHOCOLATE1.options(start) if evaluate(CHOCOLATE1, o).value == 0]
    assert (5, 4, 2, 3) in winning
    assert (6, 4, 2, 0) in winning
    # Bouton gives a third one the paper does not mention (docs/discrepancies.md): 2 -> 1 under.
    assert sorted(winning) == [(5, 4, 2, 3), (6, 4, 1, 3), (6, 4, 2, 0)]


def test_example_3_moves() -> None:
    # Example 3: Move[{1,1,1,2}] = {0,1,1,2}, {1,0,1,2}, {1,1,0,2}, {1,1,1,1}, {1,1,1,0}.
    expected = {(0, 1, 1, 2), (1, 0, 1, 2), (1, 1, 0, 2), (1, 1, 1, 1), (1, 1, 1, 0)}
    assert set(CHOCOLATE1.options((1, 1, 1, 2))) == expected


def test_chocolate1_is_nim_by_brute_force() -> None:
    # Theorem 3 (Bouton): P-positions are those where each power of 2 occurs evenly often.
    values = reachable_nim_values(CHOCOLATE1, (3, 4, 2, 5))
    for state, value in values.items():
        assert value == state[0] ^ state[1] ^ state[2] ^ state[3]
        assert CHOCOLATE1.direct_value(state) == value


def test_chocolate1_text() -> None:
    assert CHOCOLATE1.parse("{6, 4, 2, 3}") == (6, 4, 2, 3) == CHOCOLATE1.parse("6 4 2 3")
    assert CHOCOLATE1.format((6, 4, 2, 3)) == "6,4,2,3"
    assert get_ruleset("chocolate1") is CHOCOLATE1 and CHOCOLATE1.code == 20
    for bad in ("6,4,2", "6,4,2,x", ""):
        with pytest.raises((PositionError, NotationError)) as info:
            CHOCOLATE1.parse(bad)
        assert repr(bad) in str(info.value)


# -- chocolate 2: an independent transcription of the paper's Mathematica program ----------------


def _program_allcases(ss: int) -> list[tuple[int, ...]]:
    """``allcases``: the Table over the program's ranges filtered by its six conditions."""
    out = []
    for a, b, c, d, e, f in itertools.product(
        range(ss + 3), range(ss + 1), range(ss + 3), range(ss + 1), range(ss + 3), range(ss + 1)
    ):
        x = [None, a, b, c, d, e, f]
        if (
            x[1] + x[3] + 1 >= x[2]
            and x[2] + x[4] >= x[3]
            and x[3] + x[5] + 1 >= x[4]
            and x[4] + x[6] >= x[5]
            and x[5] + x[1] + 1 >= x[6]
            and x[6] + x[2] >= x[1]
        ):
            out.append((a, b, c, d, e, f))
    return out


def _program_pos(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...]:
    """``pos[x, y]``: subtract y's single entry, then the six Min[] clips (1-based as printed)."""
    u = [0, *x]
    t = sum(y)
    s = next(i for i, v in enumerate(y) if v == t) + 1
    u[s] -= t
    return (
        min(u[6] + u[2], u[1]),
        min(u[1] + u[3] + 1, u[2]),
        min(u[2] + u[4], u[3]),
        min(u[3] + u[5] + 1, u[4]),
        min(u[4] + u[6], u[5]),
        min(u[5] + u[1] + 1, u[6]),
    )


def _program_move(z: tuple[int, ...]) -> set[tuple[int, ...]]:
    result = set()
    for i in range(6):
        for t in range(1, z[i] + 1):
            y = tuple(t if j == i else 0 for j in range(6))
            result.add(_program_pos(z, y))
    return result


@cache
def _program_gr(z: tuple[int, ...]) -> int:
    seen = {_program_gr(o) for o in _program_move(z)}
    return min(set(range(len(seen) + 1)) - seen)  # Mex as the program defines it


def test_the_start_is_the_programs_last_case() -> None:
    cases = _program_allcases(1)
    assert cases[-1] == (2, 1, 2, 1, 2, 1)  # x1 = allcases[[num]]
    assert all(chocolate2_valid(c) for c in cases)


def test_chocolate2_p_positions_from_the_start_match_the_program() -> None:
    start = CHOCOLATE2.parse("2,1,2,1,2,1")
    found, reachable = p_positions(CHOCOLATE2, start)
    expected = sorted(z for z in _program_allcases(1) if _program_gr(z) == 0)
    # The program values every possible chocolate; every one of them is reachable from the start.
    assert reachable == len(_program_allcases(1))
    assert found == expected
    # The paper: the start is an N-position (it is not in Graph 5.2) ...
    assert start not in found
    # ... and "the 6th position in Graph 5.2" is {0,1,0,1,1,1}.
    assert found[5] == (0, 1, 0, 1, 1, 1)


def test_chocolate2_moves_equal_the_program_on_larger_chocolates() -> None:
    for z in _program_allcases(2):
        assert set(CHOCOLATE2.options(z)) == _program_move(z)
        assert all(chocolate2_valid(o) for o in CHOCOLATE2.options(z))


def test_chocolate2_refuses_impossible_shapes() -> None:
    with pytest.raises(PositionError) as info:
        CHOCOLATE2.parse("3,1,2,1,2,1")  # x1 <= x2 + x6 fails
    assert "'3,1,2,1,2,1'" in str(info.value)
    assert get_ruleset("chocolate2") is CHOCOLATE2 and CHOCOLATE2.code == 21
    assert CHOCOLATE2.format(CHOCOLATE2.parse("{2,1,2,1,2,1}")) == "2,1,2,1,2,1"
