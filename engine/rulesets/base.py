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
* ``key(state)``: bytes identifying a normalised state, prefixed by ``key_prefix`` (``bytes([code,
  version])``; for an installed ruleset, ``PLUGIN_CODE`` and a hash of its name and version) so
  that a changed rule never serves a stale value; ``state_from_key(key)`` is its inverse.

What the rest of ruma asks a ruleset about itself, each with a default that suits a game on
tuples of ints (a ruleset overrides those that say more about it):

* ``row_family``, ``unbounded``: whether its positions are rows of pots (families of positions,
  sweeps and censuses are defined for those), and whether the row is unbounded (``normalise``
  strips empty end pots, so a family's classes are walked as stripped rows);
* ``impartial_twin``: the name of its impartial version, if it has one (a theorem's
  ``impartial-twin`` property compares the two);
* ``properties``: the named theorem properties about this ruleset besides those every ruleset has;
* ``examples``: positions in its notation, as a researcher types them (``ruma rulesets``);
* ``seeds(state)``: the seeds ``size`` counts; ``fill_pots(seeds)``: the most pots a row of that
  many seeds spans as one component (``ruma.engine.families.bounds``);
* ``sweep_cell(state)`` and ``sweep_cell_of()``: the potential that orders a sweep
  (``ruma.engine.families.order``), and ``native_cells()``: whether the compiled core's grouping
  by cell (where it has one) computes that potential;
* ``listing_key(state)``: the order positions are listed in.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable, ClassVar, Iterable, Sequence

State = tuple[int, ...]
COMMENT = "%"
"""The first character of a comment line in a list of positions (a file for ``ruma load``,
positions on standard input): no ruleset's notation starts a position with it (every ruleset's
``parse`` refuses it), while ``#`` is a full pot in Sowing's (``#1^11#``)."""
Pair = tuple[int, int]
Cell = tuple[Pair, ...]
"""A sweep's potential: a tuple of levels, each a pair of ints (``ruma.engine.families.order``)."""


PLUGIN_CODE = 0xFF
"""The key code of every ruleset installed from outside ruma (``ruma.engine.rulesets.installed``):
its keys start with this byte and ``PLUGIN_HASH`` bytes of a hash of its name and version."""
PLUGIN_HASH = 7
"""The bytes of BLAKE2b of ``name NUL version`` after ``PLUGIN_CODE`` in an installed ruleset's keys."""


@cache
def plugin_prefix(name: str, version: int) -> bytes:
    """The key prefix of the installed ruleset ``name`` at ``version``: ``PLUGIN_CODE``, then the
    first ``PLUGIN_HASH`` bytes of BLAKE2b of ``name``, a NUL and ``version`` as decimal text."""
    digest = hashlib.blake2b(f"{name}\0{version}".encode(), digest_size=PLUGIN_HASH).digest()
    return bytes((PLUGIN_CODE,)) + digest


def prefix_length(key: bytes) -> int:
    """The length of the ruleset prefix that starts ``key`` (``Ruleset.key_prefix``): two bytes
    (code, version), or ``1 + PLUGIN_HASH`` for a key of an installed ruleset."""
    return 1 + PLUGIN_HASH if key[:1] == bytes((PLUGIN_CODE,)) else 2


def key_prefix_of(key: bytes) -> bytes:
    """The ruleset prefix that starts ``key``: what tells a store whose key it is."""
    return bytes(key[:prefix_length(key)])


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
    """A small unique integer (0–254) used as the first byte of every memo key; ``PLUGIN_CODE``
    (255) for every ruleset installed from outside ruma, whose keys carry a hash after it."""
    version: ClassVar[int] = 1
    """Bumped whenever moves, normalisation or key encoding change (0–255)."""
    impartial: ClassVar[bool]
    """Impartial rulesets are valued with nim values (ints), never partizan canonical forms."""
    description: ClassVar[str] = ""
    examples: ClassVar[tuple[str, ...]] = ()
    """Positions in this ruleset's notation, as a researcher types them (each one parses)."""
    row_family: ClassVar[bool] = False
    """Positions are rows of pots: families of positions (sweeps, censuses) are defined for it."""
    unbounded: ClassVar[bool] = False
    """A row with no ends: ``normalise`` strips empty end pots, so a family's classes are walked as
    stripped rows, each weighed by its paddings (``ruma.engine.families.classes``)."""
    impartial_twin: ClassVar[str | None] = None
    """The name of this partizan ruleset's impartial version: the same positions, either player
    making either player's moves."""
    properties: ClassVar[frozenset[str]] = frozenset()
    """Named theorem properties about this ruleset (``theorem verify``) beyond ``outcome:X``, which
    every ruleset has, and ``impartial-twin``, which every ruleset with a twin has."""

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

    def unmoves(self, state: State, left: bool, extra: int = 0) -> list[State] | None:
        """The positions (empty end pots stripped) from which Left (``left``) or Right has a move
        to ``state``, with at most ``extra`` seeds more than ``state`` (what the move captured);
        ``None`` when the ruleset cannot undo its moves. A value-directed search builds
        candidates with it (``ruma.studies.beyond``)."""
        return None

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

    @property
    def key_prefix(self) -> bytes:
        """What every key of this ruleset starts with: ``bytes((code, version))``, or for an
        installed ruleset (``code == PLUGIN_CODE``) ``plugin_prefix(name, version)``."""
        if self.code == PLUGIN_CODE:
            return plugin_prefix(self.name, self.version)
        return bytes((self.code, self.version))

    def key(self, state: State) -> bytes:
        """The memo key of a normalised state, prefixed by ``key_prefix``.

        ``prefix + 0x00 + one byte per value`` when every value is in 0..255, else
        ``prefix + 0x01 + the values as comma-separated decimal text``.
        """
        prefix = self.key_prefix
        try:
            return prefix + b"\x00" + bytes(state)
        except ValueError:
            return prefix + b"\x01" + ",".join(map(str, state)).encode()

    def state_from_key(self, key: bytes) -> State:
        """The state ``key`` encodes: the inverse of ``key`` (a ruleset that changes ``key``'s
        encoding overrides this too). Raises ``ValueError`` (or ``IndexError``) on a key it
        cannot read; the caller checks the answer by encoding it again."""
        at = prefix_length(key)
        tag, body = key[at], bytes(key[at + 1:])
        if tag == 0:
            return tuple(body)
        if tag == 1:
            text = body.decode("ascii")
            return tuple(int(part) for part in text.split(",")) if text else ()
        raise ValueError(f"key {bytes(key)!r} has no base encoding (tag {tag})")

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

    def seeds(self, state: State) -> int:
        """The seeds (or total) of a canonical ``state``: ``size(state)[1]``."""
        return self.size(state)[1]

    # -- families and sweeps -------------------------------------------------------------------
    def fill_pots(self, seeds: int) -> int:
        """The most pots a row of at most ``seeds`` seeds (3 or more) spans without ``components``
        splitting it: one seed a pot, unless the ruleset's rules keep gaps together."""
        return seeds

    def sweep_cell(self, state: State) -> Cell:
        """The sweep's potential of a canonical ``state`` (``ruma.engine.families.order``): every
        follower's cell is this one or precedes it. ``((seeds, pots),)`` from ``size``: sound for
        every game whose moves never add seeds or pots."""
        pots, seeds = self.size(state)
        return ((seeds, pots),)

    def sweep_cell_of(self) -> Callable[[State], Cell]:
        """``sweep_cell`` as one function of a state, for the hundreds of thousands of calls of a
        sweep's grouping (a ruleset may hand out a faster path)."""
        return self.sweep_cell

    def native_cells(self) -> bool:
        """Whether the compiled core's grouping by cell (``Rules.cells``, where a compiled ruleset
        has it) computes ``sweep_cell``."""
        return True

    def listing_key(self, state: State) -> Any:
        """The order in which positions are listed (``ruma p-positions``): the state itself."""
        return state
