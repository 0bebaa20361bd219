"""Bitter chocolate problems 1 and 2 (Miyadera et al., sections 3 and 5), impartial rulesets.

Two players in turn break a chocolate bar along a groove and eat the piece broken off; whoever
leaves the opponent only the bitter square wins (normal play: the player without a move loses).

**Chocolate 1** (code 20, Definition 2, Robin 1989): the bitter square sits inside a rectangle,
with ``x1`` rows over it, ``x2`` columns right of it, ``x3`` rows under it and ``x4`` columns left
of it. A break removes some of the rows (columns) on one side: one coordinate decreases to any
smaller value, the others are unchanged. This is Nim with four heaps in disguise (the paper's
Theorem 3, Bouton): the value is ``x1 ^ x2 ^ x3 ^ x4``, which ``direct_value`` returns.
Normalisation C1: the coordinates are independent heaps, so sorting them keeps the value.

**Chocolate 2** (code 21, Example 5): six coordinates ``x1..x6`` around the bitter square, tied by
the paper's six inequalities (read from its program, the text's last one is garbled)::

    x1 <= x2 + x6,   x2 <= x1 + x3 + 1,   x3 <= x2 + x4,
    x4 <= x3 + x5 + 1,   x5 <= x4 + x6,   x6 <= x5 + x1 + 1.

A move takes ``t >= 1`` from one coordinate ``s`` and then, exactly as the paper's ``pos[x, y]``,
clips every coordinate *at once* to the bound its two neighbours give after the subtraction:
``x1 <- min(x6 + x2, x1)``, ``x2 <- min(x1 + x3 + 1, x2)``, ... (one simultaneous pass). Positions
that do not satisfy the inequalities are refused by ``parse`` (``PositionError``). No
normalisation (the identity is always sound).

Text: ``6,4,2,3`` (also ``6 4 2 3`` or ``{6,4,2,3}``); ``format`` prints ``6,4,2,3``.
"""

from __future__ import annotations

import re
from typing import ClassVar

from ruma.engine.errors import NotationError, PositionError
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["CHOCOLATE1", "CHOCOLATE2", "Chocolate1Ruleset", "Chocolate2Ruleset", "chocolate2_valid"]

MAX_COORDINATE = 10_000
_SEPARATORS = re.compile(r"[\s,]+")


def _parse_numbers(text: str, count: int, what: str) -> State:
    if not isinstance(text, str):
        raise PositionError(f"a position must be text, not {text!r}")
    body = text.strip()
    if body.startswith(("{", "(", "[")) and body.endswith(("}", ")", "]")):
        body = body[1:-1]
    tokens = [t for t in _SEPARATORS.split(body) if t]
    for token in tokens:
        if not (token.isascii() and token.isdigit()):
            raise NotationError(text, max(text.find(token), 0), f"{token!r} is not a count")
        if len(token) > 9:
            raise PositionError(f"{token[:20]}... in {text[:60]!r} is larger than {MAX_COORDINATE}")
    if len(tokens) != count:
        raise PositionError(f"{what} needs {count} numbers, got {len(tokens)} in {text!r}")
    state = tuple(int(t) for t in tokens)
    if max(state) > MAX_COORDINATE:
        raise PositionError(f"{max(state)} in {text!r} is larger than {MAX_COORDINATE}")
    return state


class _ChocolateRuleset(Ruleset):
    impartial: ClassVar[bool] = True
    arity: ClassVar[int]

    def parse(self, text: str) -> State:
        """``a,b,c,...`` with the ruleset's number of coordinates."""
        return _parse_numbers(text, self.arity, self.name)

    def format(self, state: State) -> str:
        """``6,4,2,3``."""
        return ",".join(map(str, state))

    def options(self, state: State) -> list[State]:
        """Every option (defined by each chocolate)."""
        raise NotImplementedError

    def left_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)

    def right_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)


class Chocolate1Ruleset(_ChocolateRuleset):
    """Bitter chocolate 1: four independent coordinates (Nim with four heaps)."""

    name: ClassVar[str] = "chocolate1"
    code: ClassVar[int] = 20
    arity: ClassVar[int] = 4
    examples: ClassVar[tuple[str, ...]] = ("2,1,3,2",)
    description: ClassVar[str] = "bitter chocolate 1 (Miyadera et al. §3): four-heap Nim in disguise"

    def options(self, state: State) -> list[State]:
        """Lower one coordinate to any smaller value."""
        return [state[:i] + (v,) + state[i + 1 :] for i, x in enumerate(state) for v in range(x)]

    def normalise(self, state: State) -> tuple[State, bool]:
        """Sort the coordinates (C1)."""
        return tuple(sorted(state)), False

    def direct_value(self, state: State) -> int:
        """Bouton: the xor of the four coordinates."""
        total = 0
        for x in state:
            total ^= x
        return total


def chocolate2_valid(state: State) -> bool:
    """Whether six coordinates satisfy the paper's six inequalities (a possible chocolate)."""
    x1, x2, x3, x4, x5, x6 = state
    return (
        x1 <= x2 + x6
        and x2 <= x1 + x3 + 1
        and x3 <= x2 + x4
        and x4 <= x3 + x5 + 1
        and x5 <= x4 + x6
        and x6 <= x5 + x1 + 1
    )


def _clip(u: State) -> State:
    """The paper's ``pos``: every coordinate clipped by its neighbours, simultaneously."""
    u1, u2, u3, u4, u5, u6 = u
    return (
        min(u6 + u2, u1),
        min(u1 + u3 + 1, u2),
        min(u2 + u4, u3),
        min(u3 + u5 + 1, u4),
        min(u4 + u6, u5),
        min(u5 + u1 + 1, u6),
    )


class Chocolate2Ruleset(_ChocolateRuleset):
    """Bitter chocolate 2: six coordinates tied by six inequalities (Example 5)."""

    name: ClassVar[str] = "chocolate2"
    code: ClassVar[int] = 21
    arity: ClassVar[int] = 6
    examples: ClassVar[tuple[str, ...]] = ("2,1,2,1,2,1",)
    description: ClassVar[str] = "bitter chocolate 2 (Miyadera et al. §5): six coordinates, six inequalities"

    def parse(self, text: str) -> State:
        """Six numbers satisfying the six inequalities; raises ``PositionError`` otherwise."""
        state = super().parse(text)
        if not chocolate2_valid(state):
            raise PositionError(f"{text!r} is not a chocolate: it breaks the six inequalities of Example 5")
        return state

    def options(self, state: State) -> list[State]:
        """Take ``t >= 1`` from one coordinate, then clip (the paper's ``move``)."""
        result: set[State] = set()
        for s, x in enumerate(state):
            for t in range(1, x + 1):
                result.add(_clip(state[:s] + (x - t,) + state[s + 1 :]))
        return sorted(result)


CHOCOLATE1 = Chocolate1Ruleset()
CHOCOLATE2 = Chocolate2Ruleset()
