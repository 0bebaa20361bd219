"""Heap games: Nim, Grundy's game and every octal game, as impartial rulesets.

A state is a tuple of heap sizes. Text: heaps separated by spaces, commas or ``+`` (``3 5 7``,
``3,5,7``, ``3+5+7``); the empty position prints as ``0``. ``format`` prints ``3 5 7``.

Normalisation and decomposition (sound by the Sprague–Grundy theorem, Grundy 1939 eq. (3)):

H1. *Order and empty heaps.* A position is a disjunctive sum of its heaps, so the order of the
    heaps is irrelevant and an empty heap (no move) adds nothing: ``normalise`` sorts the heaps
    ascending and drops zeros.
H2. *Components.* Each heap is its own component ``(h,)``; the value of a position is the xor of
    its heaps' values, which ``direct_value`` reads from the game's nim sequence
    (``ruma.engine.octal``): ``G(h) = h`` for Nim (Bouton), the cached sequence otherwise.

Memo keys: ``nim`` (code 10) and ``grundy`` (code 11) use the shared encoding; ``octal:<code>``
(code 12) puts the canonical octal code in the key body, so two octal games never share keys.
"""

from __future__ import annotations

import re
from typing import ClassVar, Sequence, cast

from ruma.engine.errors import LimitExceededError, NotationError, PositionError
from ruma.engine.octal import GrundyGame, HeapGame, OctalGame
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["NIM", "GRUNDY", "octal_ruleset", "HeapRuleset", "NimRuleset", "OctalRuleset", "parse_heaps"]

MAX_HEAPS = 10_000
"""The most heaps a parsed position may have."""
MAX_NIM_HEAP = 10**18
"""The largest Nim heap accepted (Nim values need no sequence)."""
MAX_SEQUENCE_HEAP = 2_000_000
"""The largest heap of a non-Nim game valued from its sequence unless the sequence is periodic."""

PERIOD_SEARCH = 1 << 14
"""How many values of an octal game are searched for a period before a large heap is computed."""

_SEPARATORS = re.compile(r"[\s,+]+")


def parse_heaps(text: str, max_heap: int) -> State:
    """Parse ``3 5 7`` / ``3,5,7`` / ``3+5+7`` (``{3,5,7}`` too) into a normalised state."""
    if not isinstance(text, str):
        raise PositionError(f"a position must be text, not {text!r}")
    body = text.strip()
    if body.startswith(("{", "(", "[")) and body.endswith(("}", ")", "]")):
        body = body[1:-1]
    tokens = [t for t in _SEPARATORS.split(body) if t]
    if not tokens:
        raise PositionError(f"empty position {text!r}: write 0 for no heaps")
    heaps: list[int] = []
    for token in tokens:
        if not (token.isascii() and token.isdigit()):
            raise NotationError(text, max(text.find(token), 0), f"{token!r} is not a heap size")
        if len(token) > 18:
            raise PositionError(f"heap {token[:20]}... in {text[:60]!r} is larger than {max_heap}")
        heaps.append(int(token))
    if len(heaps) > MAX_HEAPS:
        raise PositionError(f"{len(heaps)} heaps in {text[:40]!r}...: at most {MAX_HEAPS}")
    if max(heaps) > max_heap:
        raise PositionError(f"heap {max(heaps)} in {text!r} is larger than {max_heap}")
    return tuple(sorted(h for h in heaps if h))


class HeapRuleset(Ruleset):
    """Shared text, normalisation and decomposition of the heap games (rules H1–H2)."""

    impartial: ClassVar[bool] = True
    max_heap: ClassVar[int] = MAX_SEQUENCE_HEAP

    def parse(self, text: str) -> State:
        """Heaps separated by spaces, commas or ``+``; raises ``PositionError``/``NotationError``."""
        return parse_heaps(text, self.max_heap)

    def format(self, state: State) -> str:
        """``3 5 7``; the empty position is ``0``."""
        return " ".join(map(str, state)) if state else "0"

    def heap_options(self, heap: int) -> list[tuple[int, ...]]:
        """The heaps a single heap of ``heap`` can become in one move."""
        raise NotImplementedError

    def heap_value(self, heap: int) -> int:
        """The nim value of one heap."""
        raise NotImplementedError

    def left_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)

    def right_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)

    def options(self, state: State) -> list[State]:
        """Replace one heap by what a move leaves of it; results normalised (H1)."""
        result: set[State] = set()
        for i, heap in enumerate(state):
            if i and state[i - 1] == heap:
                continue  # equal heaps give the same options
            rest = state[:i] + state[i + 1 :]
            for left in self.heap_options(heap):
                result.add(tuple(sorted(rest + tuple(h for h in left if h))))
        return sorted(result)

    def normalise(self, state: State) -> tuple[State, bool]:
        """Sort ascending and drop empty heaps (H1)."""
        return tuple(sorted(h for h in state if h)), False

    def components(self, state: State) -> Sequence[State]:
        """One component per nonempty heap (H2); ``[()]`` for the empty position."""
        heaps = [(h,) for h in state if h]
        return heaps or [()]

    def direct_value(self, state: State) -> int:
        """The xor of the heaps' values (H2)."""
        total = 0
        for heap in state:
            if heap:
                total ^= self.heap_value(heap)
        return total


class NimRuleset(HeapRuleset):
    """Nim: take any number of beans from one heap (Bouton 1901; Grundy 1939)."""

    name: ClassVar[str] = "nim"
    code: ClassVar[int] = 10
    examples: ClassVar[tuple[str, ...]] = ("3 5 7", "1,2,3")
    max_heap: ClassVar[int] = MAX_NIM_HEAP
    description: ClassVar[str] = "Nim: remove any positive number of beans from one heap"

    def heap_options(self, heap: int) -> list[tuple[int, ...]]:
        """Any smaller heap (0 included)."""
        return [(h,) for h in range(heap)]

    def heap_value(self, heap: int) -> int:
        """Bouton: a Nim heap of ``n`` has value ``n``."""
        return heap


class SequenceRuleset(HeapRuleset):
    """A heap game valued from its nim sequence (``ruma.engine.octal``)."""

    def __init__(self, game: HeapGame) -> None:
        self.game = game

    def heap_options(self, heap: int) -> list[tuple[int, ...]]:
        """What one move leaves of a heap of ``heap`` beans."""
        return self.game.heap_options(heap)

    def heap_value(self, heap: int) -> int:
        """``G(heap)`` from the cached sequence; a proved period answers any heap at once."""
        if heap < max(self.game.computed, PERIOD_SEARCH):
            return self.game.value(heap)
        periodic = self._period()
        if periodic is not None:
            start, period = periodic
            return self.game.value(heap if heap < start else start + (heap - start) % period)
        if heap > MAX_SEQUENCE_HEAP:
            raise LimitExceededError(
                f"heap {heap} of {self.name}: larger than {MAX_SEQUENCE_HEAP} and no period is known"
            )
        return self.game.value(heap)

    def _period(self) -> tuple[int, int] | None:
        return None


class GrundyRuleset(SequenceRuleset):
    """Grundy's game: split one heap into two unequal heaps (Grundy 1939)."""

    name: ClassVar[str] = "grundy"
    code: ClassVar[int] = 11
    examples: ClassVar[tuple[str, ...]] = ("7", "5 9")
    description: ClassVar[str] = "Grundy's game: split one heap into two heaps of different sizes"


class OctalRuleset(SequenceRuleset):
    """The octal game of a code; obtain it with ``octal_ruleset(code)`` (one class per code)."""

    name: ClassVar[str] = "octal"
    code: ClassVar[int] = 12
    examples: ClassVar[tuple[str, ...]] = ("11", "3 5")
    max_heap: ClassVar[int] = 10**12

    def __init__(self, game: OctalGame) -> None:
        super().__init__(game)
        self.octal = game
        self._known_period: tuple[int, int] | None = None
        self._period_searched = False

    def key(self, state: State) -> bytes:
        """``code, version``, the canonical octal code, then the heaps (never shared by two codes)."""
        body = super().key(state)[2:]
        return bytes((self.code, self.version)) + self.octal.code.encode("ascii") + b"\x00" + body

    def state_from_key(self, key: bytes) -> State:
        """The inverse of ``key``: the base encoding after this code's text."""
        prefix = bytes((self.code, self.version)) + self.octal.code.encode("ascii") + b"\x00"
        if not key.startswith(prefix):
            raise ValueError(f"key {bytes(key)!r} is not of octal:{self.octal.code}")
        return super().state_from_key(prefix[:2] + key[len(prefix):])

    def _period(self) -> tuple[int, int] | None:
        """A period proved on at most ``PERIOD_SEARCH`` values (searched once, doubling)."""
        if not self._period_searched:
            self._period_searched = True
            n = 1024
            while self._known_period is None and n <= PERIOD_SEARCH:
                self._known_period = self.octal.period(n)
                n *= 2
        return self._known_period


NIM = NimRuleset()
GRUNDY = GrundyRuleset(GrundyGame())
_OCTAL: dict[str, Ruleset] = {}


def octal_ruleset(code: str) -> Ruleset:
    """The ruleset ``octal:<code>`` (``0.37``, ``.37``, ``4.07``...); raises ``NotationError``."""
    game = OctalGame(code)
    ruleset = _OCTAL.get(game.code)
    if ruleset is None:
        attributes = {
            "name": f"octal:{game.code}",
            "description": f"the octal game {game.code} (Winning Ways notation)",
        }
        cls = type(f"OctalRuleset_{game.code.replace('.', '_')}", (OctalRuleset,), attributes)
        ruleset = cast(Ruleset, cls(game))
        _OCTAL[game.code] = ruleset
    return ruleset

