"""Strips with coins 1 and 2 (Miyadera et al., Definitions 7 and 9), impartial rulesets.

``k`` coins lie on a strip of ``n`` squares numbered ``1..n``. A move takes one coin rightwards:

* a *step* from square ``m`` to ``m + 1`` when ``m + 1`` is empty (rule (1)), or
* a *jump* from ``m`` over a coin on ``m + 1`` to ``m + 2`` when ``m + 2`` is empty (rule (2)).

The game ends when no coin can move (the coins sit together at the right end, rule (3)); the
player who cannot move loses.

**Coin strip 2** (code 23, Definition 9): the strip is bent into sub-strips ``{1..5}``,
``{6..10}``, ``{11..15}``, ...; a coin may step around a corner (``5 -> 6``) but may not jump
another coin at a corner: a jump needs its three squares in one sub-strip. This is exactly the
paper's program, where a marker ``2`` sits between sub-strips and the rewriting rules are
``1,0 -> 0,1``, ``1,1,0 -> 0,1,1`` and ``1,2,0 -> 0,2,1``.

A state is the strip itself: a tuple of ``n`` cells, 1 for a coin and 0 for an empty square.
Text: ``15:1,2,3`` (length, then the squares holding coins) or the cells ``111000000000000``;
``format`` prints ``15:1,2,3``.

Normalisation, coin strip 1 only (S1): coins never move left, so empty squares left of the first
coin are never used, and coins packed against the right end never move and act as the end of the
strip (a coin next to them can neither step nor jump onto them or past them). Dropping both keeps
the game. Coin strip 2 is not normalised (the corners fix absolute positions).
"""

from __future__ import annotations

import re
from typing import ClassVar

from ruma.engine.errors import NotationError, PositionError
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["COINSTRIP1", "COINSTRIP2", "CoinStrip1Ruleset", "CoinStrip2Ruleset", "SUBSTRIP"]

MAX_SQUARES = 256
SUBSTRIP = 5
"""Squares per sub-strip of coin strip 2."""
_SQUARES = re.compile(r"^\s*([0-9]{1,9})\s*:\s*(.*?)\s*$")


class _CoinStripRuleset(Ruleset):
    impartial: ClassVar[bool] = True

    def parse(self, text: str) -> State:
        """``15:1,2,3`` (or ``15: 1 2 3``) or a string of 0/1 cells such as ``1110000``."""
        if not isinstance(text, str):
            raise PositionError(f"a position must be text, not {text!r}")
        match = _SQUARES.match(text)
        if match is None:
            cells = text.strip()
            if not cells:
                raise PositionError(f"empty strip {text!r}")
            for i, ch in enumerate(cells):
                if ch not in "01":
                    raise NotationError(text, i, "write the cells as 0/1 or the squares as 'n:1,2,3'")
            state = tuple(int(ch) for ch in cells)
        else:
            n = int(match.group(1))
            if n > MAX_SQUARES:
                raise PositionError(f"a strip of {n} squares in {text!r}: at most {MAX_SQUARES}")
            cells_list = [0] * n
            for token in (t for t in re.split(r"[\s,]+", match.group(2).strip("{}()[] ")) if t):
                if not (token.isascii() and token.isdigit()) or len(token) > 9:
                    raise NotationError(text, max(text.find(token), 0), f"{token[:20]!r} is not a square number")
                square = int(token)
                if not 1 <= square <= n:
                    raise PositionError(f"square {square} in {text!r} is not on a strip of {n}")
                if cells_list[square - 1]:
                    raise PositionError(f"square {square} appears twice in {text!r}")
                cells_list[square - 1] = 1
            state = tuple(cells_list)
        if len(state) > MAX_SQUARES:
            raise PositionError(f"a strip of {len(state)} squares: at most {MAX_SQUARES}")
        return state

    def format(self, state: State) -> str:
        """``n:squares`` (1-based), e.g. ``15:1,2,3``."""
        return f"{len(state)}:" + ",".join(str(i + 1) for i, c in enumerate(state) if c)

    def left_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)

    def right_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)

    def _may_jump(self, m: int) -> bool:
        return True

    def options(self, state: State) -> list[State]:
        """Every step and every permitted jump of one coin."""
        n = len(state)
        result: list[State] = []
        for m in range(n - 1):
            if not state[m]:
                continue
            if not state[m + 1]:
                result.append(state[:m] + (0, 1) + state[m + 2 :])
            elif m + 2 < n and not state[m + 2] and self._may_jump(m):
                result.append(state[:m] + (0, 1, 1) + state[m + 3 :])
        return result

    def size(self, state: State) -> tuple[int, int]:
        """``(squares, coins)``."""
        return len(state), sum(state)

    def listing_key(self, state: State) -> tuple[int, ...]:
        """The squares holding coins, as ``format`` writes them (0-based)."""
        return tuple(i for i, c in enumerate(state) if c)


class CoinStrip1Ruleset(_CoinStripRuleset):
    """A strip with coins (Definition 7): steps and jumps along a straight strip."""

    name: ClassVar[str] = "coinstrip1"
    code: ClassVar[int] = 22
    description: ClassVar[str] = "a strip with coins (Miyadera et al. Definition 7)"
    examples: ClassVar[tuple[str, ...]] = ("15:1,2,3", "1110000")

    def normalise(self, state: State) -> tuple[State, bool]:
        """Drop empty squares before the first coin and coins packed at the right end (S1)."""
        start = 0
        while start < len(state) and not state[start]:
            start += 1
        end = len(state)
        while end > start and state[end - 1]:
            end -= 1
        return state[start:end], False


class CoinStrip2Ruleset(_CoinStripRuleset):
    """A bent strip with coins (Definition 9): no jump at a corner."""

    name: ClassVar[str] = "coinstrip2"
    code: ClassVar[int] = 23
    description: ClassVar[str] = "a strip with coins 2 (Miyadera et al. Definition 9): sub-strips of 5"
    examples: ClassVar[tuple[str, ...]] = ("15:1,2,3",)

    def _may_jump(self, m: int) -> bool:
        return m // SUBSTRIP == (m + 2) // SUBSTRIP


COINSTRIP1 = CoinStrip1Ruleset()
COINSTRIP2 = CoinStrip2Ruleset()
