"""How many distinct positions are reachable from a position: a plain walk of its game graph.

Erickson (*Sowing Games*, §3) asks: "Are there Atomic Wari positions with exponentially many
followers?" Here the **followers** of a position are the positions reachable from it by a
sequence of one or more legal moves, by either player in any order (not necessarily
alternating), each written as a row of pots without its empty end pots (an unbounded row's
empty end pots never change the position). A position and its mirror image are *different*
positions (they are not identified, as a search's normalisation would), and so are two rows that
differ in a full Sowing pot's count. The position itself is not a follower of itself (no game
here has a cycle).

``count_followers`` walks the graph depth first with a set of the rows seen — no evaluator, no
memo, no decomposition into components — so what it counts is exactly the definition above.

A sum of independent parts (``(01300)^n``, parts kept apart by empty pots) has as many followers
as the product of its parts' — exponentially many for a trivial reason — while an evaluator
that splits a position into components (``Ruleset.decompose``) values only the parts. So
``count_followers`` also counts the **distinct components** of the followers: every follower split
by ``Ruleset.decompose`` into its independent components, each normalised (empty end pots
stripped, a component and its mirror image one), counted once; the walk itself is not changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ruma.engine.errors import LimitExceededError, RumaInputError
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import Ruleset, State, strip_ends

__all__ = ["count_followers", "stripped", "Followers", "DEFAULT_LIMIT"]

#: the most followers a walk collects before it stops (a set of rows in memory)
DEFAULT_LIMIT = 20_000_000


def stripped(row: State) -> State:
    """``row`` (a tuple, or any sequence of counts) without its empty end pots."""
    return strip_ends(tuple(row))


def _moves(rules: Ruleset) -> Callable[[State], list[State]]:
    if rules.impartial:
        return lambda state: list(rules.options(state))
    return lambda state: list(rules.left_options(state)) + list(rules.right_options(state))


@dataclass(frozen=True)
class Followers:
    """How many followers a position has, and how many distinct components they are made of."""

    positions: int
    components: int


def count_followers(ruleset: str | Ruleset, position: State | str, limit: int = DEFAULT_LIMIT) -> Followers:
    """The followers of ``position`` (a row, or text in the ruleset's notation) and their distinct
    components — see the module docstring. Raises ``LimitExceededError`` past ``limit`` followers."""
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if rules.row_family and not rules.unbounded:
        raise RumaInputError(f"count_followers walks unbounded rows; {rules.name!r} keeps its empty pots")
    start = stripped(rules.parse(position) if isinstance(position, str) else tuple(position))
    moves = _moves(rules)
    decompose = rules.decompose
    seen: set[State] = set()
    parts: set[State] = set()
    stack = [start]
    while stack:
        for option in moves(stack.pop()):
            row = stripped(option)
            if row not in seen:
                seen.add(row)
                if len(seen) > limit:
                    raise LimitExceededError(f"{rules.name} position {rules.format(start)!r} has more than "
                                             f"{limit:,} followers")
                stack.append(row)
                parts.update(part for part, _ in decompose(row))
    return Followers(len(seen), len(parts))
