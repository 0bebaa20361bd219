"""Checking a claimed value without computing the canonical form: ``G = H`` iff ``G − H`` is a
second-player win (Conway, *On Numbers and Games*, ch. 1: equality is defined this way).

``claim_holds(ruleset, position, claim)`` searches the sum ``position + (−claim)`` for a winning
first move of each player, stopping at the first one found. Where the claim is true for a reason a
paper's proof can state in a few lines (Erickson's Theorems 2.2–2.5: "Left has no move; Right's
only move allows Left a move to a terminal position"), the search visits a handful of positions,
while the canonical form of the same position may need hundreds of thousands of followers
(Erickson, Theorem 2.1). The search is iterative, so long games cannot exhaust Python's stack.
"""

from __future__ import annotations

from typing import Callable, Iterator

from ruma.engine.cgt import Game, Value, as_game
from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import Ruleset, State

Node = tuple[State, int, bool]  # (position, id of the game added to it, is Left to move)


class SumSearch:
    """Who wins moving first in ``position + g``; results cached across queries."""

    def __init__(self, rules: Ruleset, max_nodes: int | None = None,
                 should_cancel: Callable[[], bool] | None = None) -> None:
        self.rules = rules
        self.max_nodes = max_nodes
        self.should_cancel = should_cancel
        self.wins: dict[Node, bool] = {}

    def _children(self, node: Node) -> Iterator[Node]:
        state, gid, left = node
        game = Game.by_id(gid)
        if left:
            for option in self.rules.left_options(state):
                yield option, gid, False
            for option_game in game.left_options:
                yield state, option_game.id, False
        else:
            for option in self.rules.right_options(state):
                yield option, gid, True
            for option_game in game.right_options:
                yield state, option_game.id, True

    def first_player_wins(self, state: State, game: Game, left: bool) -> bool:
        """Whether the player to move (Left if ``left``) wins ``state + game`` moving first."""
        root: Node = (state, game.id, left)
        wins = self.wins
        if root in wins:
            return wins[root]
        # frames: [node, its children, the child being searched]
        stack: list[tuple[Node, Iterator[Node], list[Node]]] = [(root, self._children(root), [])]
        on_path = {root}
        while stack:
            node, children, pending = stack[-1]
            result: bool | None = None
            if pending and not wins[pending.pop()]:
                result = True  # the child just searched is a loss for its mover: a winning move
            if result is None:
                for child in children:
                    known = wins.get(child)
                    if known is None:
                        if child in on_path:
                            raise RumaInputError(f"{self.rules.name} play repeats: the sum is loopy")
                        pending.append(child)
                        stack.append((child, self._children(child), []))
                        on_path.add(child)
                        break
                    if not known:
                        result = True
                        break
                else:
                    result = False
            if result is None:
                continue
            wins[node] = result
            on_path.discard(node)
            stack.pop()
            if self.max_nodes is not None and len(wins) > self.max_nodes:
                raise LimitExceededError(f"the search needs more than {self.max_nodes} positions (limit)")
            if self.should_cancel is not None and len(wins) % 64 == 0 and self.should_cancel():
                raise CancelledError(f"the search of {self.rules.name} {self.rules.format(root[0])!r} was cancelled")
        return wins[root]

    def equals(self, state: State, claim: Game) -> bool:
        """Whether ``state`` has value ``claim``: ``state − claim`` is a second-player win."""
        negated = -claim
        return not self.first_player_wins(state, negated, True) and not self.first_player_wins(
            state, negated, False
        )


def claim_holds(
    ruleset: str | Ruleset, position: str | State, claim: Value, *, max_nodes: int | None = None,
    should_cancel: Callable[[], bool] | None = None,
) -> bool:
    """Whether ``position`` of ``ruleset`` has value ``claim`` (a game, or a nim value ``k`` = ``*k``).

    Decided by searching ``position − claim`` for winning first moves, without canonical forms.
    ``should_cancel`` is polled as the search goes (``CancelledError`` when it answers True).
    """
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    state = rules.parse(position) if isinstance(position, str) else tuple(position)
    game = as_game(claim)
    return SumSearch(rules, max_nodes, should_cancel).equals(state, game)
