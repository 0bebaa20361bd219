"""The small surface every ruleset shares.

A ruleset works on *states*: plain tuples of ints (pot counts, heap sizes, coordinates), because
the evaluator's hot path creates millions of them. ``Position`` wraps a state with its ruleset at
the API's edges (parsing, printing, the service).

Normalisation contract (the memo keys on it, so it must be *sound*):

* ``normalise(state) -> (canonical_state, mirrored)``: ``canonical_state`` has the same value as
  ``state`` when ``mirrored`` is False, and the *negative* value when it is True (for impartial
  rulesets the value is the same either way and ``mirrored`` is only informative).
* ``components(state)``: a list of component states whose values *sum* (disjunctive sum; xor of
  nim values) to the value of ``state``. ``[state]`` is always a correct answer. Components may
  be stripped or otherwise value-preservingly simplified, but must NOT be mirrored (a mirror
  negates a partizan value): the evaluator calls ``normalise`` on each component itself. Each
  rule used is stated and argued in the implementing module's docstring, and property-tested.
* ``key(state)``: bytes identifying a normalised state, prefixed by ``bytes([code, version])`` so
  that a changed rule never serves a stale value.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Iterable, Sequence

State = tuple[int, ...]


def strip_ends(state: State) -> State:
    """``state`` without its empty end pots (the same tuple when it has none)."""
    lo, hi = 0, len(state)
    while lo < hi and state[lo] == 0:
        lo += 1
    while hi > lo and state[hi - 1] == 0:
        hi -= 1
    return state if lo == 0 and hi == len(state) else state[lo:hi]


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable position of a named ruleset; ``str()`` prints it in the paper's notation."""

    ruleset: "Ruleset"
    state: State

    def __str__(self) -> str:
        return self.ruleset.format(self.state)

    def __repr__(self) -> str:
        return f"Position({self.ruleset.name!r}, {str(self)!r})"


class Ruleset(ABC):
    """One game: its positions, moves, normalisation and decomposition."""

    name: ClassVar[str]
    """The name users type (``sowing``, ``impartial-atomic-wari``, ``octal:0.37``)."""
    code: ClassVar[int]
    """A small unique integer (0–255) used as the first byte of every memo key."""
    version: ClassVar[int] = 1
    """Bumped whenever moves, normalisation or key encoding change."""
    impartial: ClassVar[bool]
    """Impartial rulesets are valued with nim values (ints), never partizan canonical forms."""
    description: ClassVar[str] = ""

    # -- text ------------------------------------------------------------------------------
    @abstractmethod
    def parse(self, text: str) -> State:
        """Parse the paper's notation; raise ``PositionError``/``NotationError`` quoting ``text``."""

    @abstractmethod
    def format(self, state: State) -> str:
        """The paper's notation for ``state``; ``parse(format(s)) == s``."""

    def position(self, text: str) -> Position:
        """Parse ``text`` into a ``Position`` of this ruleset."""
        return Position(self, self.parse(text))

    # -- moves -----------------------------------------------------------------------------
    @abstractmethod
    def left_options(self, state: State) -> Iterable[State]:
        """Left's options (for impartial rulesets: every option)."""

    @abstractmethod
    def right_options(self, state: State) -> Iterable[State]:
        """Right's options (for impartial rulesets: every option)."""

    def options(self, state: State) -> Iterable[State]:
        """All options of an impartial position."""
        return self.left_options(state)

    # -- normalisation -----------------------------------------------------------------------
    def normalise(self, state: State) -> tuple[State, bool]:
        """The canonical state and whether it is the mirror image (see module docstring)."""
        return state, False

    def components(self, state: State) -> Sequence[State]:
        """Independent components (not mirrored) whose values sum to the value of ``state``."""
        return [state]

    def decompose(self, state: State) -> list[tuple[State, bool]]:
        """``components`` with each component normalised: ``[(canonical_state, mirrored), ...]``.

        The evaluator calls this once per new follower; rulesets may fuse the two steps.
        """
        normalise = self.normalise
        return [normalise(piece) for piece in self.components(state)]

    def key(self, state: State) -> bytes:
        """The memo key of a normalised state, prefixed by ruleset code and version.

        ``prefix + 0x00 + one byte per value`` when every value is in 0..255, else
        ``prefix + 0x01 + the values as comma-separated decimal text``.
        """
        prefix = bytes((self.code, self.version))
        try:
            return prefix + b"\x00" + bytes(state)
        except ValueError:
            return prefix + b"\x01" + ",".join(map(str, state)).encode()

    def canonical_key(self, state: State) -> tuple[bytes, bool]:
        """``(key(canonical), mirrored)`` for ``canonical, mirrored = normalise(state)``: what a
        stored lookup needs (compiled rulesets do it in one call)."""
        canonical, mirrored = self.normalise(state)
        return self.key(canonical), mirrored

    def direct_value(self, state: State) -> "object | None":
        """A value known by theorem without search (``Game``/nim value), or ``None``."""
        return None

    def size(self, state: State) -> tuple[int, int]:
        """``(pots or heaps, seeds or total)`` for the service's limits."""
        return len(state), sum(v for v in state if v > 0)
