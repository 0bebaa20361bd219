"""Differential test: ruma's evaluator against reference evaluators on cgt-py and pycgt.

The references (``tests/support/reference_evaluators.py``) have their own move generators and no
normalisation; they value positions by recursion and canonicalise with cgt-py
(``CanonicalForm`` of brace strings) or pycgt (``pycgt.game``). 500 random positions per
ruleset are compared with cgt-py; a subset also with pycgt.
"""

from __future__ import annotations

import random

import pytest

from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset, row_rulesets
from ruma.engine.rulesets.base import State
from tests.support.positions import random_position
from tests.support.reference_evaluators import RULESETS as REFERENCE_RULESETS
from tests.support.reference_evaluators import CgtPyEvaluator, PycgtEvaluator, moves, to_cgt_py, to_pycgt

N_POSITIONS = 500
RULESETS = row_rulesets()

pytestmark = pytest.mark.both_engines


def distinct_positions(name: str, seed: str, count: int) -> list[State]:
    """``count`` distinct random positions (seeded)."""
    rng = random.Random(seed)
    seen: dict[State, None] = {}
    while len(seen) < count:
        seen[random_position(name, rng)] = None
    return list(seen)


def test_the_references_cover_every_row_ruleset() -> None:
    assert set(RULESETS) <= set(REFERENCE_RULESETS)


def test_reference_move_generators_agree_with_the_rulesets() -> None:
    """Raw options (after stripping empty end pots of unbounded rows) are the same multisets."""
    for name in RULESETS:
        rules = get_ruleset(name)
        strip = rules.unbounded

        def norm(states: list[State]) -> list[State]:
            out = []
            for s in states:
                s = tuple(s)
                if strip:
                    while s and s[0] == 0:
                        s = s[1:]
                    while s and s[-1] == 0:
                        s = s[:-1]
                out.append(s)
            return sorted(out)

        for state in distinct_positions(name, "moves", 1_000):
            lefts, rights = moves(name, state)
            assert norm(list(rules.left_options(state))) == norm(lefts), (name, state)
            assert norm(list(rules.right_options(state))) == norm(rights), (name, state)


@pytest.mark.parametrize("name", RULESETS)
def test_against_cgt_py(name: str) -> None:
    reference = CgtPyEvaluator(name)
    memo = InMemoryMemo()
    cache: dict[int, object] = {}
    rules = get_ruleset(name)
    values = set()
    for state in distinct_positions(name, f"{name}-differential", N_POSITIONS):
        ours = evaluate(name, state, memo).value
        expected = reference.value(state)
        assert to_cgt_py(ours, cache) == expected, (name, rules.format(state), ours, expected)
        values.add(ours)
    assert len(values) >= 5  # the sample is not all zeros


@pytest.mark.parametrize("name", RULESETS)
def test_against_pycgt(name: str) -> None:
    import pycgt

    reference = PycgtEvaluator(name)
    memo = InMemoryMemo()
    cache: dict[int, object] = {}
    for state in distinct_positions(name, f"{name}-pycgt", N_POSITIONS // 5):
        ours = evaluate(name, state, memo).value
        assert pycgt.equals(to_pycgt(ours, cache), reference.value(state)), (name, state)
