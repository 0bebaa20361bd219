"""Tchoukaillon boards (Sections 1-3 of Jones-Taalman-Tongen): every expected value is from the
paper or from an independent computation (unplaying, actual play, the sieve)."""

from __future__ import annotations

import itertools
import random
from math import lcm

import pytest

from ruma.engine.errors import LimitExceededError, RumaInputError
from ruma.engine.tchoukaillon.board import (
    board,
    board_length,
    board_prefix,
    board_runs,
    boards_by_unplay,
    boards_of_length,
    clearing_moves,
    expand_runs,
    is_winning,
    min_stones,
    min_stones_by_sieve,
    min_stones_by_unplay,
    parse_board,
    play,
    sieve,
    theorem_3_2_failure,
    unplay,
)
from ruma.engine.tchoukaillon.crt import theorem_4_5_allowable

# Figure 2 of the paper: n -> b(n) for n <= 17.
FIGURE_2 = {
    0: (), 1: (1,), 2: (0, 2), 3: (1, 2), 4: (0, 1, 3), 5: (1, 1, 3), 6: (0, 0, 2, 4),
    7: (1, 0, 2, 4), 8: (0, 2, 2, 4), 9: (1, 2, 2, 4), 10: (0, 1, 1, 3, 5), 11: (1, 1, 1, 3, 5),
    12: (0, 0, 0, 2, 4, 6), 13: (1, 0, 0, 2, 4, 6), 14: (0, 2, 0, 2, 4, 6), 15: (1, 2, 0, 2, 4, 6),
    16: (0, 1, 3, 2, 4, 6), 17: (1, 1, 3, 2, 4, 6),
}


def test_figure_2_by_formula_runs_and_unplay() -> None:
    unplayed = list(boards_by_unplay(18))
    for n, expected in FIGURE_2.items():
        assert board(n) == expected
        assert expand_runs(board_runs(n)) == expected
        assert unplayed[n] == expected
        assert board_length(n) == len(expected)


def test_example_2_2_reverse_sowing() -> None:
    assert board(15) == (1, 2, 0, 2, 4, 6)
    # the stones left in hand after each bin, as listed in Example 2.2
    assert [board_prefix(15, k).in_hand for k in range(1, 7)] == [14, 12, 12, 10, 6, 0]


def test_fast_methods_equal_direct_unplay_up_to_2000() -> None:
    for n, b in enumerate(boards_by_unplay(2001)):
        assert board(n) == b
        assert expand_runs(board_runs(n)) == b
        assert sum(b) == n and is_winning(b)


def test_unplay_and_play_are_inverse() -> None:
    for n in range(300):
        b = board(n)
        nxt = unplay(b)
        assert nxt == board(n + 1)
        p = next(i for i, v in enumerate(nxt, 1) if v == i)
        assert play(nxt, p) == b


def test_figure_1_and_the_unclearable_board() -> None:
    assert clearing_moves((0, 1, 3)) == (3, 1, 2, 1)
    assert clearing_moves((1, 1)) is None and not is_winning((1, 1, 0))
    with pytest.raises(RumaInputError):
        play((1, 1), 2)


def test_clearing_moves_are_the_unplay_bins_reversed() -> None:
    # the bins played to win b(n) are p(n-1), ..., p(0), p(m) the leftmost empty bin of b(m)
    boards = list(boards_by_unplay(400))
    p = [(list(b) + [0]).index(0) + 1 for b in boards]
    for n in range(1, 400):
        assert clearing_moves(boards[n]) == tuple(reversed(p[:n]))


def test_example_3_3_congruences() -> None:
    b = (1, 2, 0, 2, 4, 6)
    suffixes = [sum(b[i:]) for i in range(6)]
    assert suffixes == [15, 14, 12, 12, 10, 6]  # as printed in Example 3.3
    assert is_winning(b) and theorem_3_2_failure(b) is None
    assert theorem_3_2_failure((1, 2, 1, 2, 4, 6)) == 2  # 1+2+4+6+2 = 15 is odd
    assert theorem_3_2_failure((0, 1, 3, 4)) == 3  # 3 + 4 = 7 is not 0 mod 3
    assert theorem_3_2_failure((2,)) == 1  # b_1 > 1


def test_theorem_3_2_equals_actual_play() -> None:
    for k in range(1, 6):
        for bins in itertools.product(*[range(i + 2) for i in range(1, k + 1)]):
            assert is_winning(bins) == (clearing_moves(bins) is not None), bins


def test_six_boards_of_length_six() -> None:
    assert list(boards_of_length(6)) == [FIGURE_2[n] for n in range(12, 18)]


def test_boards_of_length_are_the_boards_between_consecutive_minima() -> None:
    for length in range(0, 40):
        found = list(boards_of_length(length))
        lo = min_stones(length) if length else 0
        hi = min_stones(length + 1)
        assert found == [board(n) for n in range(lo, hi)]


def test_min_stones_three_methods_up_to_1000() -> None:
    formula = [min_stones(length) for length in range(1, 1001)]
    assert formula[:7] == [1, 2, 4, 6, 10, 12, 18]  # Section 1.1 (A002491)
    assert min_stones_by_unplay(1000) == formula
    assert min_stones_by_sieve(1000) == formula


def test_sieve_table_and_its_tchoukaillon_definition() -> None:
    assert sieve(2, 18)[:9] == [2, 4, 6, 8, 10, 12, 14, 16, 18]
    s3 = sieve(3, 60)
    assert [s3[0]] + s3[2:9] == [4, 10, 12, 16, 18, 22, 24, 28]  # S_2^(3) is illegible in the OCR
    s4 = sieve(4, 60)
    assert (s4[0], s4[1], s4[3], s4[7], s4[8]) == (6, 10, 18, 34, 36)
    assert sieve(5, 60)[:9] == [10, 12, 18, 22, 30, 34, 36, 42, 48]
    # S^(k): the n whose first played bin p(n-1) (smallest i with b_i(n) = i) is >= k
    first_bin = {n: next(i for i, v in enumerate(b, 1) if v == i)
                 for n, b in enumerate(boards_by_unplay(2001)) if n}
    for k in range(1, 12):
        assert sieve(k, 2000) == [n for n in range(1, 2001) if first_bin[n] >= k]


def test_periodicity_corollary_2_3() -> None:
    for i in range(1, 5):
        period = lcm(*range(2, i + 2))
        for n in range(0, 200):
            assert board_prefix(n, i).bins == board_prefix(n + period, i).bins
            for k in range(1, period):
                if board_prefix(n, i).bins == board_prefix(n + k, i).bins:
                    raise AssertionError((n, i, k))


def test_large_boards_runs_against_theorem_2_1_and_3_2() -> None:
    rng = random.Random(7)
    for n in [10**11 + 3, rng.randrange(10**9, 10**10)]:
        b = board(n)
        assert expand_runs(board_runs(n)) == b
        assert sum(b) == n and is_winning(b) and board_length(n) == len(b)


def test_300_digit_board() -> None:
    n = 3**628 + 17
    assert len(str(n)) == 300
    with pytest.raises(LimitExceededError):
        board(n)  # ~10**150 bins: refused, not attempted
    prefix = board_prefix(n, 1500)
    assert sum(prefix.bins) + prefix.in_hand == n and prefix.in_hand % 1501 == 0
    # Theorem 3.2 on the written part: b_i <= i and (stones from bin i on) = n - (b_1 + ... +
    # b_{i-1}) is 0 mod i, for i up to 1501 (the bins from 1501 on hold the stones in hand)
    partial = 0
    for i, v in enumerate(prefix.bins + (None,), 1):
        assert (n - partial) % i == 0
        if v is not None:
            assert v <= i
            partial += v
    # Theorem 4.5 (an independent criterion): the prefix agrees with a winning board
    assert theorem_4_5_allowable(prefix.bins)  # (b_1, b_2, ...) = (beta_2, beta_3, ...)
    # Corollary 2.3: the first 10 bins repeat with period lcm(2..11); compare with unplaying
    period = lcm(*range(2, 12))
    small = list(boards_by_unplay(n % period + 1))[-1]
    assert prefix.bins[:10] == (small + (0,) * 10)[:10]
    assert all(0 <= v <= i for i, v in enumerate(prefix.bins, 1))
    assert not theorem_4_5_allowable(prefix.bins[:5] + ((prefix.bins[5] + 1) % 7,) + prefix.bins[6:])


def test_bad_input() -> None:
    for bad in ["1,x", "1,-2"]:
        with pytest.raises(RumaInputError, match="board"):
            parse_board(bad)
    with pytest.raises(RumaInputError):
        board(-1)
    assert parse_board("(1, 2, 0, 2, 4, 6)") == parse_board("1 2 0 2 4 6 0") == board(15)
