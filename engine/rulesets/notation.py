"""The position notation shared by the row-of-pots rulesets (Erickson 1996).

Grammar (whitespace separates tokens and is otherwise ignored)::

    position := ( '←' FULL )? item* ( FULL '→' )?
    item     := atom ( '^' exponent )?
    atom     := DIGIT            (digit mode: one pot per digit, ``312``)
              | NUMBER           (comma mode: a pot per comma-separated number, ``12,0,3``)
              | '•' | '#'        (a full pot: one that can never be sown; Sowing only)
              | '(' position ')' (a group, ``(10)^3``)
    exponent := DIGITS | '{' DIGITS '}'

The text is in *comma mode* when it contains a comma anywhere; then a maximal run of digits is one
pot and commas (or whitespace) separate items. Otherwise every digit is one pot. Examples:
``312``, ``1^8``, ``(10)^3 03 (01)^2``, ``12,0,3``, ``(12,0)^2,5``, ``110••1``, ``#1^8#``.

``←•`` at the start and ``•→`` at the end are the paper's full pots forever on that side (its
series ``←•1^n•→``, docs/tables.md): they parse as as many full pots as the position has seeds
(at least one), which no sowing gets past (Erickson 1996, rule N3) — ``←•1^3•→`` is
``#^3 1^3 #^3``. (The compiled parser leaves these arrows to this one.)

``format_pots`` prints digits when every pot holds at most 9 seeds and comma-separated counts
otherwise (a single pot of 10+ as ``10,``), with ``•`` for a full pot; it never compresses, so
``parse_pots(format_pots(s)) == s``.
The empty row prints as ``()`` (an empty group), which parses back to ``()``.

Sizes are bounded (``MAX_POTS`` pots, ``MAX_SEEDS`` seeds in all, groups nested ``MAX_DEPTH``
deep) and checked *before* a repetition is expanded, so ``(1^9999)^9999`` is refused without building it.
"""

from __future__ import annotations

from typing import ClassVar

from ruma.engine.errors import NotationError, PositionError
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["FULL", "MAX_POTS", "MAX_SEEDS", "BothDirections", "PotRowRuleset", "parse_pots", "format_pots"]

MAX_POTS = 10_000
"""The most pots a parsed position may have."""
MAX_SEEDS = 1_000_000
"""The most seeds (in all pots together) a parsed position may have."""
MAX_DEPTH = 64
"""The deepest nesting of groups ``( )`` a position may have."""
FULL = 1_000_000_000
"""The state value of a full pot: more seeds than any board can sow, so the move generators
need no special case (a full pot is nonempty and never sowable); values >= FULL are full."""

_FULL_CHARS = "•#●"


def parse_pots(text: str, *, allow_full: bool = False) -> tuple[int, ...]:
    """Parse a row of pots; ``allow_full`` admits ``•``/``#`` (as ``FULL``).

    Raises ``NotationError`` (with the column) for text that does not parse and
    ``PositionError`` for a position that parses but is empty or too large.
    """
    if not isinstance(text, str):
        raise PositionError(f"a position must be text, not {text!r}")
    parser = _Parser(text, allow_full)
    pots = parser.sequence(top=True)
    if parser.i != len(text):
        raise NotationError(text, parser.i, "unexpected character")
    if parser.forever:
        run = [FULL] * max(1, sum(v for v in pots if v < FULL))
        pots = (run if "←" in parser.forever else []) + pots + (run if "→" in parser.forever else [])
        if len(pots) > MAX_POTS:
            raise PositionError(f"position {text!r} has more than {MAX_POTS} pots")
    if not pots and not parser.saw_group:
        raise PositionError(f"empty position {text!r}")
    return tuple(pots)


def format_pots(state: tuple[int, ...]) -> str:
    """Digits (``312``) or comma-separated counts (``12,0,3``); ``•`` for a full pot."""
    if not state:
        return "()"
    if all(v <= 9 or v >= FULL for v in state):
        return "".join("•" if v >= FULL else str(v) for v in state)
    text = ",".join("•" if v >= FULL else str(v) for v in state)
    return text if len(state) > 1 else text + ","  # "10," — a lone comma selects comma mode


class PotRowRuleset(Ruleset):
    """What the row-of-pots rulesets share: the paper's notation and the mirror orientation."""

    row_family: ClassVar[bool] = True

    def parse(self, text: str) -> State:
        """Digits or comma-separated counts, ``^`` repetition and ``( )`` groups."""
        return parse_pots(text)

    def format(self, state: State) -> str:
        """Digits (or comma-separated counts when a pot holds 10 or more)."""
        for v in state:
            if v < 0:
                raise PositionError(f"negative seed count in state {state!r}")
        return format_pots(state)

    @staticmethod
    def oriented(row: State) -> tuple[State, bool]:
        """The lexicographically smaller of ``row`` and its mirror image, and whether it is the mirror."""
        mirror = row[::-1]
        if mirror < row:
            return mirror, True
        return row, False


class BothDirections(PotRowRuleset):
    """The impartial version of a row ruleset: either player makes either player's moves.

    Put it before the partizan ruleset in the bases (``class X(BothDirections, Partizan)``):
    its options are the partizan ruleset's Left options followed by its Right options.
    """

    impartial_twin: ClassVar[str | None] = None  # it is one

    def options(self, state: State) -> list[State]:
        """Every option: sowings in both directions."""
        return [*super().left_options(state), *super().right_options(state)]  # type: ignore[safe-super]

    def left_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)

    def right_options(self, state: State) -> list[State]:
        """Every option (impartial)."""
        return self.options(state)

    def unmoves(self, state: State, left: bool, extra: int = 0) -> list[State] | None:
        """Every position with a move to ``state`` in either direction (impartial)."""
        undo = super().unmoves
        ahead, back = undo(state, True, extra), undo(state, False, extra)
        if ahead is None or back is None:
            return None
        return list(dict.fromkeys([*ahead, *back]))


class _Parser:
    __slots__ = ("text", "i", "comma_mode", "allow_full", "saw_group", "depth", "forever", "full_at")

    def __init__(self, text: str, allow_full: bool) -> None:
        self.text = text
        self.i = 0
        self.comma_mode = "," in text
        self.allow_full = allow_full
        self.saw_group = False
        self.depth = 0
        self.forever = ""  # the arrows read: full pots forever on that side ('←', '→')
        self.full_at = -1  # len(out) after a lone full pot (no exponent) at the top level

    def _arrow(self, c: str, out: list[int], top: bool) -> None:
        """``←•`` (first in the position) or ``•→`` (last): full pots forever on that side."""
        text, where = self.text, self.i
        if not self.allow_full:
            raise NotationError(text, where, "full pots ('•', '#', '←•', '•→') are not part of this game")
        self.i += 1
        if c == "←":
            self._skip()
            if not top or out or self.forever or self.i >= len(text) or text[self.i] not in _FULL_CHARS:
                raise NotationError(text, where, "'←' begins a position, before a full pot: '←•'")
            self.i += 1
        else:
            self._skip()
            if not top or self.full_at != len(out) or self.i != len(text):
                raise NotationError(text, where, "'→' ends a position, after a full pot: '•→'")
            out.pop()
        self.forever += c

    def _skip(self) -> None:
        text = self.text
        while self.i < len(text) and (text[self.i].isspace() or (self.comma_mode and text[self.i] == ",")):
            self.i += 1

    def _digits(self) -> str:
        start = self.i
        text = self.text
        while self.i < len(text) and "0" <= text[self.i] <= "9":
            self.i += 1
        return text[start : self.i]

    def sequence(self, top: bool) -> list[int]:
        out: list[int] = []
        total = 0
        text = self.text
        while True:
            self._skip()
            if self.i >= len(text):
                if not top:
                    raise NotationError(text, self.i, "missing ')'")
                return out
            c = text[self.i]
            if c == ")":
                if top:
                    raise NotationError(text, self.i, "unbalanced ')'")
                self.i += 1
                return out
            if c == "(":
                self.depth += 1
                if self.depth > MAX_DEPTH:
                    raise NotationError(text, self.i, f"groups nested more than {MAX_DEPTH} deep")
                self.i += 1
                self.saw_group = True
                atom = self.sequence(top=False)
                self.depth -= 1
            elif "0" <= c <= "9":
                if self.comma_mode:
                    digits = self._digits()
                    if len(digits) > 9:
                        raise PositionError(f"pot of {digits} seeds is too large in {text!r}")
                    atom = [int(digits)]
                else:
                    self.i += 1
                    atom = [ord(c) - 48]
            elif c in _FULL_CHARS:
                if not self.allow_full:
                    raise NotationError(text, self.i, "full pots ('•', '#') are not part of this game")
                self.i += 1
                atom = [FULL]
            elif c in "←→":
                self._arrow(c, out, top)
                continue
            elif c == "-":
                raise PositionError(f"negative seed count in {text!r}")
            else:
                raise NotationError(text, self.i, f"unexpected character {c!r}")
            lone = c in _FULL_CHARS
            if self.i < len(text) and text[self.i] == "^":
                self.i += 1
                times = self._exponent()
                if len(out) + len(atom) * times > MAX_POTS:
                    raise PositionError(f"position {text!r} has more than {MAX_POTS} pots")
                atom = atom * times
                lone = False
            out.extend(atom)
            if lone and top:
                self.full_at = len(out)
            if len(out) > MAX_POTS:
                raise PositionError(f"position {text!r} has more than {MAX_POTS} pots")
            total += sum(v for v in atom if v < FULL) if len(atom) != 1 else (atom[0] if atom[0] < FULL else 0)
            if total > MAX_SEEDS:
                raise PositionError(f"position {text!r} has more than {MAX_SEEDS} seeds")

    def _exponent(self) -> int:
        text = self.text
        braced = self.i < len(text) and text[self.i] == "{"
        if braced:
            self.i += 1
        where = self.i
        digits = self._digits()
        if not digits:
            raise NotationError(text, where, "expected a repetition count after '^'")
        if braced:
            if self.i >= len(text) or text[self.i] != "}":
                raise NotationError(text, self.i, "missing '}'")
            self.i += 1
        if len(digits) > 9 or int(digits) > MAX_POTS:
            raise PositionError(f"repetition ^{digits} in {text!r} exceeds {MAX_POTS} pots")
        return int(digits)
