"""Capture Sowing: Conway's Sowing (``ruma.engine.rulesets.sowing``) with a pair capture.

The moves are Sowing's — Left takes every seed of a pot and sows them one a pot rightwards,
Right leftwards, and the last seed must land on a nonempty pot — and then, when the last pot
holds exactly two seeds (it held one), those two are captured: the pot is emptied. So ``11`` is
``{0 | 0} = ∗`` (either sowing makes a pair and captures it), and ``111`` is ``∗`` where Sowing's
``111`` is 0.

Every play ends: a capture removes seeds, and between captures the moves are Sowing's, whose
plays end. The rules the class relies on, each argued here (and checked in ruma's tests against
a plain recursion over raw rows):

C1. *Empty end pots are dropped* (as Sowing's N1): a sowing ends on a nonempty pot, so no seed
    lands beyond the first or last nonempty pot, and a capture only empties pots.
C2. *Mirror*: reversing the row swaps the players' moves, captures included, so the reversed
    row's value is the negative.
C3. *Empty gap* (as Sowing's D1): a run of ``g`` empty pots with ``g >= sA`` and ``g >= sB`` seeds
    on its two sides splits the row into independent components. No pot of a side ever holds
    more than that side's seeds (seeds never cross, captures only remove), so no sowing reaches
    past the gap; and a capture only looks at its own last pot.

Sowing's full pots (its N2–N3) are not used: the notation has none. The rest comes from Sowing
by inheritance — the notation's printing, the keys, the pots a row of seeds spans (its F1, which
rests on C3 alone) — and the sweep's potential is ``Ruleset``'s default, ``(seeds, pots)``, which
no move raises.
"""

from __future__ import annotations

from typing import Callable, ClassVar, Iterator, Sequence

from ruma.engine.rulesets.base import PLUGIN_CODE, Cell, Ruleset, State, strip_ends
from ruma.engine.rulesets.notation import PotRowRuleset
from ruma.engine.rulesets.sowing import SowingRuleset

__all__ = ["CAPTURE_SOWING", "CaptureSowingRuleset", "capture"]

PAIR = 2
"""The count a sowing's last pot must reach to be captured."""


def capture(option: State, last: int) -> State:
    """``option``, a sowing whose last seed fell in pot ``last``, after the capture."""
    if option[last] != PAIR:
        return option
    return option[:last] + (0,) + option[last + 1:]


def _captured(row: State, sowings: list[State], last_of: Callable[[Iterator[int]], int]) -> list[State]:
    """``capture`` of each of ``row``'s ``sowings``, whose last pot is ``last_of`` (``max`` for a
    rightward sowing, ``min`` for a leftward one) the pots it changed."""
    return [capture(o, last_of(k for k in range(len(row)) if o[k] != row[k])) for o in sowings]


def _split(row: State) -> list[State]:
    """C3 on a row whose end pots are nonempty: its components, each with nonempty end pots."""
    total, left, i = sum(row), 0, 0
    while i < len(row):
        if row[i]:
            left += row[i]
            i += 1
            continue
        j = i
        while row[j] == 0:  # (the last pot is nonempty)
            j += 1
        if left <= j - i and total - left <= j - i:
            return _split(row[:i]) + _split(row[j:])
        i = j
    return [row]


class CaptureSowingRuleset(SowingRuleset):
    """Sowing whose last seed, making a pair, captures it."""

    name: ClassVar[str] = "capture-sowing"
    code: ClassVar[int] = PLUGIN_CODE  # every installed ruleset's: its keys carry a hash of name and version
    version: ClassVar[int] = 1
    impartial: ClassVar[bool] = False
    description: ClassVar[str] = "Sowing whose last seed, making a pair, captures it (an installed example)"
    examples: ClassVar[tuple[str, ...]] = ("11", "111", "2112")
    impartial_twin: ClassVar[str | None] = None
    properties: ClassVar[frozenset[str]] = frozenset()

    def parse(self, text: str) -> State:
        """Digits or comma-separated counts, ``^`` repetition and ``( )`` groups (no full pots)."""
        return PotRowRuleset.parse(self, text)

    def left_options(self, state: State) -> list[State]:
        """Sowing's rightward sowings, each ending on the last pot it changed, then the capture."""
        return _captured(state, super().left_options(state), max)

    def right_options(self, state: State) -> list[State]:
        """Sowing's leftward sowings, each ending on the first pot it changed, then the capture."""
        return _captured(state, super().right_options(state), min)

    def normalise(self, state: State) -> tuple[State, bool]:
        """C1, then the lexicographically smaller orientation (C2)."""
        return self.oriented(strip_ends(state))

    def components(self, state: State) -> Sequence[State]:
        """C3's components (not mirrored: Sowing's ``decompose`` orients them)."""
        row = strip_ends(state)
        return _split(row) if row else []

    def sweep_cell(self, state: State) -> Cell:
        """``Ruleset``'s default potential, ``((seeds, pots),)``: no move adds seeds or pots."""
        return Ruleset.sweep_cell(self, state)

    def sweep_cell_of(self) -> Callable[[State], Cell]:
        """``sweep_cell`` itself."""
        return self.sweep_cell

    def native_cells(self) -> bool:
        """No compiled core computes this ruleset's cells."""
        return False


CAPTURE_SOWING = CaptureSowingRuleset()
