"""The evaluator's own behaviour: memo use, signs, limits, cancellation, progress, deep games.

Expected values come from Erickson's worked examples (the four ``312`` evaluations of §2 and §3)
and from the mirror theorem (reversing a partizan sowing position swaps the players).
"""

from __future__ import annotations

import sys

import pytest

from ruma.engine.cgt import STAR, UP, Game, integer, nimber
from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError, UnknownRulesetError
from ruma.engine.evaluator import evaluate, option_values
from ruma.engine.memo import InMemoryMemo

pytestmark = pytest.mark.both_engines


def switch(left: Game, right: Game) -> Game:
    return Game.from_options([left], [right])


# Erickson §2 and §3: 312 in all four rulesets.
WORKED_312 = [
    ("sowing", switch(integer(0), integer(-2))),
    ("impartial-sowing", 1),
    ("atomic-wari", UP),
    ("impartial-atomic-wari", 2),
]


@pytest.mark.parametrize("ruleset,expected", WORKED_312)
def test_worked_example_312(ruleset: str, expected: object) -> None:
    assert evaluate(ruleset, "312").value == expected


def test_mirror_image_is_the_negative() -> None:
    memo = InMemoryMemo()
    forward = evaluate("sowing", "312", memo)
    backward = evaluate("sowing", "213", memo)
    assert backward.value == -forward.value  # type: ignore[operator]
    assert backward.mirrored != forward.mirrored
    assert backward.from_memo  # the mirror image was already known


def test_second_query_is_a_pure_lookup() -> None:
    memo = InMemoryMemo()
    first = evaluate("sowing", "2^5", memo)
    assert first.stats.positions_valued > 0
    again = evaluate("sowing", "2^5", memo)
    assert again.value == first.value
    assert again.stats.positions_valued == 0 and again.from_memo


def test_every_follower_is_stored() -> None:
    memo = InMemoryMemo()
    result = evaluate("impartial-sowing", "1^8", memo)
    assert len(memo) >= result.stats.positions_valued
    # any option of the position is now a pure lookup
    lefts, _ = option_values("impartial-sowing", "1^8", memo)
    assert lefts
    for position, value in lefts:
        again = evaluate("impartial-sowing", position, memo)
        assert again.from_memo and again.value == value


def test_impartial_values_are_ints_and_match_the_game() -> None:
    result = evaluate("impartial-sowing", "312")
    assert isinstance(result.value, int)
    assert result.game == STAR == nimber(1)


def test_limit_raises_and_keeps_what_was_valued() -> None:
    memo = InMemoryMemo()
    with pytest.raises(LimitExceededError, match="limit"):
        evaluate("sowing", "1^10", memo, max_positions=50)
    assert len(memo) > 0


def test_cancellation_stops_the_search() -> None:
    calls = 0

    def cancel_after_a_while() -> bool:
        nonlocal calls
        calls += 1
        return calls > 3

    memo = InMemoryMemo()
    with pytest.raises(CancelledError):
        evaluate("sowing", "1^11", memo, should_cancel=cancel_after_a_while)
    assert len(memo) > 0
    # the memo is still sound: finishing the job gives the same value as a fresh evaluation
    assert evaluate("sowing", "1^9", memo).value == evaluate("sowing", "1^9").value


def test_progress_reports_positions_valued() -> None:
    seen: list[int] = []
    result = evaluate("impartial-sowing", "1^10", progress=seen.append)
    assert seen and seen[-1] == result.stats.positions_valued
    assert seen == sorted(seen)


def test_deep_games_do_not_hit_the_recursion_limit() -> None:
    # 1^n has lines of play 2^(n-1) - 1 moves long (Erickson, Theorem 2.1's Towers of Hanoi).
    # With the interpreter's recursion limit at 150 frames, a recursive evaluator could not value
    # 1^9 (lines of 255 moves); the iterative one does not care.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)
    try:
        deep = evaluate("impartial-sowing", "1^9")
    finally:
        sys.setrecursionlimit(limit)
    assert deep.value == 0  # Erickson, Table 4: 1^9 = 0
    evaluate("atomic-wari", "5555")


def test_bad_input_is_quoted() -> None:
    with pytest.raises(UnknownRulesetError, match="'no-such-game'"):
        evaluate("no-such-game", "312")
    with pytest.raises(RumaInputError, match="3x2"):
        evaluate("sowing", "3x2")
