"""Partial boards and the Chinese Remainder Theorem (Section 4), beta-indexing beta_i = b_{i-1}.

Expected values are the paper's (Examples 4.4, 4.8, 4.9, Remark 4.6, Theorem 4.2's n = 29) or
brute force over ``n`` (Corollary 2.3 bounds the search by ``lcm(2..K)``)."""

from __future__ import annotations

import itertools
import random
from math import lcm

import pytest

from ruma.engine.errors import RumaInputError
from ruma.engine.tchoukaillon.board import board, board_length, min_stones
from ruma.engine.tchoukaillon.crt import (
    LENGTH_READINGS,
    agrees,
    complete,
    paper_reconstruction,
    parse_constraints,
    theorem_4_5_allowable,
)


def beta(n: int) -> tuple[int, ...]:
    """``(beta_2(n), beta_3(n), ...)`` as the paper prints it."""
    return board(n)


def brute_force(cons: dict[int, int], reading: str) -> int | None:
    top = max(cons)
    need = {"any": 0, "reach": top - 1, "beyond": top}[reading]
    for n in range(lcm(*range(2, top + 1)) + min_stones(top) + 1):
        b = board(n) + (0,) * top
        if all(b[i - 2] == v for i, v in cons.items()) and len(board(n)) >= need:
            return n
    return None


def test_theorem_4_2_example_n_29() -> None:
    assert beta(29) == (1, 1, 3, 4, 2, 4, 6, 8)
    partial = list(itertools.accumulate(beta(29)))
    assert partial == [1, 2, 5, 9, 11, 15, 21, 29]  # the increasing remainder board c~(29)
    assert all(c % i == 29 % i for i, c in enumerate(partial, 2))


def test_example_4_4_impossible_pair() -> None:
    for reading in LENGTH_READINGS:
        assert not complete({5: 1, 6: 2}, length=reading).feasible
    assert paper_reconstruction({5: 1, 6: 2}) is None
    assert all(not agrees(n, {5: 1, 6: 2}) for n in range(lcm(2, 3, 4, 5, 6)))


def test_example_4_4_all_pairs_and_the_readings() -> None:
    smallest: dict[str, dict[tuple[int, int], int]] = {r: {} for r in LENGTH_READINGS}
    for reading in LENGTH_READINGS:
        for x, y in itertools.product(range(4), range(7)):
            result = complete({4: x, 7: y}, length=reading)
            assert result.feasible and result.n is not None  # "there is always a board"
            smallest[reading][x, y] = result.n
    for reading in ("reach", "beyond"):
        assert smallest[reading][2, 5] == 18 and smallest[reading][1, 0] == 214
    # "any n" (bins past the board hold 0) contradicts the paper's 214: b(10) = (0,1,1,3,5)
    assert smallest["any"][1, 0] == 10 and board(10)[2] == 1
    # only "beyond" makes (2, 5) the smallest of all pairs, and (1, 0) is the largest
    beyond = smallest["beyond"]
    assert min(beyond, key=beyond.__getitem__) == (2, 5)
    assert max(beyond, key=beyond.__getitem__) == (1, 0)
    assert min(smallest["reach"].values()) == 12  # (0, 6): b(12) = (0, 0, 0, 2, 4, 6)


def test_example_4_8() -> None:
    cons = {3: 1, 7: 2}
    assert paper_reconstruction(cons) == 202
    assert beta(202) == (0, 1, 1, 0, 2, 2, 4, 3, 9, 4, 8, 12, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                         20, 22, 24)
    assert beta(34) == (0, 1, 1, 2, 0, 2, 4, 6, 8, 10)
    for reading in LENGTH_READINGS:
        result = complete(cons, length=reading)
        assert result.n == 34 and result.board == beta(34)


def test_example_4_9() -> None:
    cons = {3: 1, 7: 2, 9: 3}
    assert paper_reconstruction(cons) == 202
    for reading in LENGTH_READINGS:
        assert complete(cons, length=reading).n == 202


def test_remark_4_6() -> None:
    assert not complete({6: 0, 7: 1, 8: 1, 10: 0}).feasible
    assert paper_reconstruction({6: 0, 7: 1, 8: 1, 10: 0}) is None
    assert brute_force({6: 0, 7: 1, 8: 1, 10: 0}, "any") is None
    result = complete({6: 0, 7: 1, 8: 1, 10: 1})
    assert result.feasible and result.board is not None and result.board[9 - 2] == 7
    for n in range(2520):
        if agrees(n, {6: 0, 7: 1, 8: 1, 10: 1}):
            assert beta(n)[9 - 2] == 7  # m_9 = 7 is forced


def test_theorem_4_5_is_exactly_the_set_of_prefixes() -> None:
    for k in range(2, 9):
        period = lcm(*range(2, k + 1))
        prefixes = {(beta(n) + (0,) * k)[: k - 1] for n in range(period)}
        assert len(prefixes) == period  # Corollary 2.3: one prefix per residue
        allowable = {ms for ms in itertools.product(*[range(i) for i in range(2, k + 1)])
                     if theorem_4_5_allowable(ms)}
        assert allowable == prefixes


def test_complete_against_brute_force() -> None:
    rng = random.Random(45)
    for _ in range(120):
        top = rng.randrange(3, 10)
        idx = rng.sample(range(2, top + 1), rng.randrange(1, min(4, top - 1) + 1))
        cons = {i: rng.randrange(i) for i in idx}
        reading = rng.choice(LENGTH_READINGS)
        expected = brute_force(cons, reading)
        result = complete(cons, length=reading)
        assert result.n == expected, (cons, reading)
        witness = paper_reconstruction(cons)
        assert (witness is not None) == result.feasible
        if witness is not None:
            assert agrees(witness, cons)
        if result.n is not None:
            assert result.board == board(result.n)
            if reading == "beyond":
                assert board_length(result.n) >= max(cons)


def test_prime_indices_always_agree_corollary_4_7() -> None:
    rng = random.Random(47)
    primes = [2, 3, 5, 7, 11, 13, 17]
    for _ in range(30):
        cons = {p: rng.randrange(p) for p in rng.sample(primes, 3)}
        result = complete(cons)
        assert result.feasible and result.n is not None and agrees(result.n, cons)


def test_values_out_of_range_and_bad_text() -> None:
    assert not complete({4: 4}).feasible  # beta_4 = b_3 holds at most 3
    assert parse_constraints("3=1, 7=2") == {3: 1, 7: 2}
    for bad in ["3=1,7", "1=0", "x=2", "3=-1", "", "3=1,3=2"]:
        with pytest.raises(RumaInputError) as info:
            parse_constraints(bad)
        assert repr(bad) in str(info.value)
    with pytest.raises(RumaInputError):
        complete({3: 1}, length="sometimes")


def test_deep_bins_against_a_scan() -> None:
    # beta-indices far beyond the brute-force range above; the scan over n is independent
    for cons in [{29: 5}, {30: 0, 25: 3}, {40: 17}, {18: 4, 19: 0, 23: 22}]:
        result = complete(cons)
        assert result.n is not None
        assert agrees(result.n, cons)
        assert not any(agrees(n, cons) for n in range(result.n))
