"""A tiny brute-force valuer for the row-of-pots rulesets: no normalisation, no decomposition.

``raw_value(ruleset, state)`` recurses over the ruleset's *raw* options (exactly as generated:
empty end pots kept, full pots with their literal counts, nothing mirrored or split) and builds
``Game.from_options`` (partizan) or the ``mex`` of option values (impartial). It is the "without
the rule" side of the normalisation property tests. A dict caches raw states only.
"""

from __future__ import annotations

import sys

from ruma.engine.cgt import Game, Value, as_game
from ruma.engine.cgt.nim import mex
from ruma.engine.rulesets.base import Ruleset, State

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))

_CACHES: dict[str, dict[State, Value]] = {}


def raw_value(rules: Ruleset, state: State) -> Value:
    """The value of ``state`` by plain recursion over raw options (nim value if impartial)."""
    cache = _CACHES.setdefault(rules.name, {})
    return _value(rules, tuple(state), cache)


def _value(rules: Ruleset, state: State, cache: dict[State, Value]) -> Value:
    known = cache.get(state)
    if known is not None:
        return known
    if rules.impartial:
        value: Value = mex(_value(rules, o, cache) for o in rules.options(state))  # type: ignore[misc]
    else:
        value = Game.from_options(
            [_value(rules, o, cache) for o in rules.left_options(state)],  # type: ignore[misc]
            [_value(rules, o, cache) for o in rules.right_options(state)],  # type: ignore[misc]
        )
    cache[state] = value
    return value


def sum_values(rules: Ruleset, values: list[Value]) -> Value:
    """The disjunctive sum of component values (xor for impartial rulesets)."""
    if rules.impartial:
        total = 0
        for v in values:
            assert isinstance(v, int)
            total ^= v
        return total
    game = as_game(0)
    for v in values:
        assert isinstance(v, Game)
        game = game + v
    return game
