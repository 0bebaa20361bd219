"""The claim search (G = H iff G - H is a second-player win) agrees with canonical forms."""

from __future__ import annotations

import random

import pytest

from ruma.engine.cgt import ONE, STAR, Game, integer, up_multiple
from ruma.engine.errors import LimitExceededError
from ruma.engine.evaluator import evaluate
from ruma.engine.rulesets import row_rulesets
from ruma.engine.verify import claim_holds

pytestmark = pytest.mark.both_engines


@pytest.mark.parametrize("ruleset", row_rulesets())
def test_claims_agree_with_the_evaluator_on_random_positions(ruleset: str) -> None:
    rng = random.Random(ruleset)
    for _ in range(150):
        position = "".join(str(rng.randint(0, 4)) for _ in range(rng.randint(1, 5)))
        value = evaluate(ruleset, position).game
        assert claim_holds(ruleset, position, value), position
        for wrong in (value + ONE, value + STAR, value - up_multiple(1)):
            assert not claim_holds(ruleset, position, wrong), (position, wrong)


def test_worked_examples() -> None:
    # Erickson §2-§3: 312 = {0|-2}, *, ^, *2 in the four rulesets
    assert claim_holds("sowing", "312", Game.from_options([integer(0)], [integer(-2)]))
    assert claim_holds("impartial-sowing", "312", 1) and not claim_holds("impartial-sowing", "312", 0)
    assert claim_holds("atomic-wari", "312", up_multiple(1))
    assert claim_holds("impartial-atomic-wari", "312", 2)


@pytest.mark.parametrize("n", range(1, 5))
def test_01300_is_n_up(n: int) -> None:  # Erickson §3
    assert claim_holds("atomic-wari", f"(01300)^{n}", up_multiple(n))
    assert not claim_holds("atomic-wari", f"(01300)^{n}", up_multiple(n + 1))


def test_search_limit() -> None:
    with pytest.raises(LimitExceededError, match="limit"):
        claim_holds("sowing", "1^9", integer(0), max_nodes=10)
