"""A search for one-parameter families whose values run through one of the questions' kinds.

Given positions of known kind (``kinds.kind_of``: ``2^-n``, ``n·↑``, ``n·↑+∗``, ``+_x``,
``∗n``) and a way to look up values within a bound, ``find_patterns`` tries, around each
position, the families it is an instance of (``SHAPES``):

* ``runs`` — **a repeated block**: the row is ``A B^k C`` with ``B`` of 1 to 3 pots repeated
  ``k >= 1`` times (``A`` not ending with ``B``); the family is ``A B^m C``, ``m >= 0``;
* ``pots`` — **a growing pot**: the row is ``A x C`` for a pot of ``x`` seeds; the family is
  ``A {m} C``;
* ``pairs`` — **two blocks growing together** (as in Erickson's Theorems 2.2–2.5): the row is
  ``A B^j C D^k E`` (blocks of 1 or 2 pots); the family is ``A B^m C D^{m+k-j} E``.

It then extends the family both ways from the position's own ``m`` while the instances lie in
the bound and have the same kind, with parameter ``n0 + step * (m - m0)``, ``step`` in
``±1, ±2`` (for ``+_x``: ``x`` an integer). A family is kept when it holds for at least
``min_instances`` consecutive ``m``; ``reaches_bound`` says whether the next instance lies
beyond the bound (the family may go on: a conjecture) or was looked up and is something else (it
breaks there). Nothing here claims more than the instances looked up.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Iterator, Union

from ruma.engine.cgt import Value
from ruma.engine.rulesets.base import State
from ruma.studies.kinds import Kind, kind_of

__all__ = ["Pattern", "Piece", "find_patterns", "template_text", "SHAPES"]

#: ``row -> its value``, or ``None`` when the row lies beyond the bound searched
Lookup = Callable[[State], Union[Value, None]]
STEPS = (1, 2, -1, -2)
SHAPES = ("runs", "pots", "pairs")
#: ``("fixed", pots, 0)``, ``("block", pots, offset)`` (repeated ``m + offset`` times) or
#: ``("pot", (), offset)`` (one pot of ``m + offset`` seeds)
Piece = tuple[str, State, int]


def _expand(pieces: tuple[Piece, ...], m: int) -> State | None:
    row: list[int] = []
    for what, pots, offset in pieces:
        if what == "fixed":
            row += pots
        elif m + offset < 0:
            return None
        elif what == "block":
            row += pots * (m + offset)
        else:
            row.append(m + offset)
    return tuple(row)


@dataclass(frozen=True)
class Pattern:
    """A family (``pieces``) whose instance ``m`` in ``first..last`` has value
    ``(kind, start + step * (m - first))``."""

    kind: str
    pieces: tuple[Piece, ...]
    first: int
    last: int
    start: int
    step: int
    reaches_bound: bool

    def row(self, m: int) -> State:
        """Instance ``m``."""
        row = _expand(self.pieces, m)
        if row is None:
            raise ValueError(f"the family {self.template} has no instance m = {m}")
        return row

    @property
    def instances(self) -> int:
        """How many consecutive instances hold."""
        return self.last - self.first + 1

    def parameter(self, m: int) -> int:
        """The kind's parameter at instance ``m``."""
        return self.start + self.step * (m - self.first)

    @property
    def template(self) -> str:
        """The family in template notation (``ruma.engine.families.templates``)."""
        return template_text(self.pieces)


def _digits(row: State) -> str:
    return "".join(str(c) if c < 10 else f"{{{c}}}" for c in row)


def _exponent(offset: int) -> str:
    return "m" if offset == 0 else f"{{m{offset:+d}}}"


def template_text(pieces: Iterable[Piece]) -> str:
    """``12 (01)^m 3``, ``12 {m} 3``, ``(10)^m 2 (01)^{m+1}``: a family in the template notation
    of ``theorem add``."""
    words = []
    for what, pots, offset in pieces:
        if what == "fixed":
            words.append(_digits(pots))
        elif what == "block":
            words.append(f"({_digits(pots)})^{_exponent(offset)}" if len(pots) > 1 else f"{_digits(pots)}^{_exponent(offset)}")
        else:
            words.append("{m}" if offset == 0 else f"{{m{offset:+d}}}")
    return " ".join(word for word in words if word)


def _runs(row: State, widths: tuple[int, ...]) -> Iterator[tuple[int, State, int]]:
    """``(start, block, repeats)`` of every maximal run of a nonempty block (leftmost copy)."""
    n = len(row)
    for width in widths:
        for i in range(n - width + 1):
            block = row[i:i + width]
            if not any(block) or (i >= width and row[i - width:i] == block):
                continue
            k = 1
            while row[i + k * width:i + (k + 1) * width] == block:
                k += 1
            yield i, block, k


def _families(row: State, shapes: Iterable[str]) -> Iterator[tuple[tuple[Piece, ...], int]]:
    """``(pieces, m)`` of every family of the ``shapes`` that ``row`` is instance ``m`` of."""
    shapes = set(shapes)
    if "runs" in shapes:
        for i, block, k in _runs(row, (1, 2, 3)):
            yield (("fixed", row[:i], 0), ("block", block, 0), ("fixed", row[i + k * len(block):], 0)), k
    if "pots" in shapes:
        for i in range(len(row)):
            yield (("fixed", row[:i], 0), ("pot", (), 0), ("fixed", row[i + 1:], 0)), row[i]
    if "pairs" in shapes:
        runs = list(_runs(row, (1, 2)))
        for i, first, j in runs:
            end = i + j * len(first)
            for k0, second, k in runs:
                if k0 >= end:
                    yield ((("fixed", row[:i], 0), ("block", first, 0), ("fixed", row[end:k0], 0),
                            ("block", second, k - j), ("fixed", row[k0 + k * len(second):], 0)), j)


def find_patterns(seeds: Iterable[tuple[State, Kind]], lookup: Lookup, min_instances: int = 4,
                  shapes: Iterable[str] = SHAPES) -> list[Pattern]:
    """The families of ``shapes`` around the ``seeds`` (``(row, (kind, parameter))``) that hold
    for at least ``min_instances`` consecutive instances (see the module docstring), longest
    first; one per family and kind (its longest run)."""
    kinds: dict[State, Kind | None] = {}
    shapes = tuple(shapes)

    def kind_at(row: State) -> Kind | None | bool:
        """The row's kind, ``None`` (another value) or ``False`` (beyond the bound)."""
        if row in kinds:
            return kinds[row]
        value = lookup(row)
        if value is None:
            return False
        got = kinds[row] = kind_of(value)
        return got

    best: dict[tuple[str, tuple[Piece, ...]], Pattern] = {}
    for row, (kind, parameter) in seeds:
        if isinstance(parameter, Fraction) and parameter.denominator != 1:
            continue  # (a tiny +_x with x not an integer: no progression is followed)
        n0 = int(parameter)
        for pieces, k in _families(row, shapes):
            for step in STEPS:
                def holds(m: int, pieces: tuple[Piece, ...] = pieces, step: int = step) -> bool | None:
                    instance = _expand(pieces, m)
                    got = kind_at(instance) if instance is not None else False
                    if got is False:
                        return None
                    return got == (kind, n0 + step * (m - k))

                lo = hi = k
                while holds(hi + 1):
                    hi += 1
                reaches = holds(hi + 1) is None
                while lo > 0 and holds(lo - 1):
                    lo -= 1
                if hi - lo + 1 < min_instances:
                    continue
                found = Pattern(kind, pieces, lo, hi, n0 + step * (lo - k), step, reaches)
                held = best.get((kind, pieces))
                if held is None or found.instances > held.instances:
                    best[(kind, pieces)] = found
    return sorted(best.values(), key=lambda p: (-p.instances, not p.reaches_bound, len(p.template), p.template))
