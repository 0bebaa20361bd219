"""Atomic Wari on a fixed board (Mancala World's rules for Erickson's game).

The moves are those of ``atomic_wari`` (sow ``s >= 2`` seeds starting with the pot itself, Left
rightwards and Right leftwards, capture 2s and 3s backwards from the last pot), except that *a
move that would sow past the end of the board is illegal*. The board length is part of the
position: ``0220`` and ``22`` are different positions, and the notation keeps the empty pots.

Normalisation rules (each property-tested against a brute-force valuer without any rule). They
rest on the reach invariant proved in ``ruma.engine.rulesets.atomic_wari``: with ``Q`` and ``P``
computed from the seeds, no rightward sowing, now or later, passes index ``Q`` and no leftward
one passes ``P`` (a fixed board only removes moves, so the invariant still holds).

B1. *Unreachable margins are cut off.* Empty pots after ``max(Q, last seed)`` decide no move's
    legality: every Left move reaches at most ``Q``, so it is legal on the board ``0..Q`` iff on
    the longer one (both: always). Hence the board becomes pots ``max(0, P) .. min(n-1, Q)``.
    A board whose margins are both wide enough (``P >= 0`` and ``Q <= n-1``) plays exactly like
    the unbounded row: every move reaches inside the board, so none is ever illegal.
B2. *Mirror.* Reversing the board swaps the players: ``value(reversed) = -value``;
    ``normalise`` picks the lexicographically smaller orientation.
B3. *Cuts.* At a cut ``(a, b, q, p)`` of ``atomic_wari.cuts`` the left part touches only pots
    ``<= q`` and the right part only pots ``>= p`` (``q < p``), so the position is the sum of the
    boards ``0..q`` and ``p..n-1``; a middle segment between cuts ``c`` and ``c'`` is the board
    ``p_c .. q_c'``. Each part's moves reach only inside its board, so they are legal exactly
    when they are legal on the whole board. Parts without a pot of 2 or more seeds (value 0) are
    omitted.
B4. *Sparse, wide margins.* When B1 says the board plays like the unbounded row and every pot
    holds at most 2 seeds, Theorem 3.1 gives the value directly (``direct_value``).

A board's pots are its board (``fill_pots`` keeps the default, one pot a seed), and by B1 the
board only shrinks: a sweep's potential is ``Ruleset.size``'s ``(seeds, pots)``, the default.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

from ruma.engine.rulesets.atomic_wari import (
    _sow_left_from,
    _sow_right_from,
    cuts,
    reach_left,
    reach_right,
    sparse_nim_value,
)
from ruma.engine.rulesets.base import State
from ruma.engine.rulesets.notation import PotRowRuleset

__all__ = ["ATOMIC_WARI_BOARD", "AtomicWariBoardRuleset", "trim_margins"]


def trim_margins(state: State) -> State:
    """B1: the board cut down to the pots any sowing can ever reach (``()`` if no seeds)."""
    n = len(state)
    lo = max(0, reach_left(state))
    hi = min(n - 1, reach_right(state))
    if lo == 0 and hi == n - 1:
        return state
    return state[lo : hi + 1]


class AtomicWariBoardRuleset(PotRowRuleset):
    """Partizan Atomic Wari on a fixed board: sowing past either end is illegal."""

    name: ClassVar[str] = "atomic-wari-board"
    code: ClassVar[int] = 5
    version: ClassVar[int] = 1
    impartial: ClassVar[bool] = False
    description: ClassVar[str] = "Atomic Wari on a fixed board (Mancala World rules): no sowing past the ends"
    examples: ClassVar[tuple[str, ...]] = ("312", "2202")

    def left_options(self, state: State) -> list[State]:
        """Rightward sowings that stay on the board."""
        n = len(state)
        return [_sow_right_from(state, i, s) for i, s in enumerate(state) if s >= 2 and i + s <= n]

    def right_options(self, state: State) -> list[State]:
        """Leftward sowings that stay on the board."""
        return [_sow_left_from(state, i, s) for i, s in enumerate(state) if s >= 2 and i - s + 1 >= 0]

    def normalise(self, state: State) -> tuple[State, bool]:
        """B1 (cut unreachable margins), then the lexicographically smaller orientation (B2)."""
        return self.oriented(trim_margins(state))

    def components(self, state: State) -> Sequence[State]:
        """Independent boards (B3), margins cut (B1), value-0 boards omitted."""
        pieces: list[State] = []
        start = 0
        for _, _, q, p in cuts(state):
            pieces.append(state[start : q + 1])
            start = p
        pieces.append(state[start:])
        return [trim_margins(piece) for piece in pieces if max(piece, default=0) >= 2]

    def decompose(self, state: State) -> list[tuple[State, bool]]:
        """``components`` oriented: they are already trimmed, so only the mirror is left."""
        out: list[tuple[State, bool]] = []
        for piece in self.components(state):
            r = piece[::-1]
            out.append((r, True) if r < piece else (piece, False))
        return out

    def direct_value(self, state: State) -> object | None:
        """B4: Theorem 3.1 when the margins are wide and every pot holds at most 2 seeds."""
        if reach_left(state) < 0 or reach_right(state) > len(state) - 1:
            return None
        k = sparse_nim_value(state)
        if k is None:
            return None
        from ruma.engine.cgt import nimber

        return nimber(k)


ATOMIC_WARI_BOARD = AtomicWariBoardRuleset()
