"""A search for one-parameter families whose values run through one of the questions' kinds.

Given positions of known kind (``questions.kind_of``: ``2^-n``, ``n·↑``, ``n·↑+∗``, ``+_x``,
``∗n``) and a way to look up values within a bound, ``find_patterns`` tries, around each
position, the families it is an instance of:

* **a repeated block**: the row is ``A B^k C`` with ``B`` of 1 to 3 pots repeated ``k >= 1``
  times (``A`` not ending with ``B``); the family is ``A B^m C``, ``m >= 0``;
* **a growing pot**: the row is ``A x C`` for a pot of ``x`` seeds; the family is ``A {m} C``.

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

from ruma.engine.cgt import Game
from ruma.engine.families.questions import Kind, kind_of
from ruma.engine.rulesets.base import State

__all__ = ["Pattern", "find_patterns", "template_text"]

Value = Union[Game, int]
#: ``row -> its value``, or ``None`` when the row lies beyond the bound searched
Lookup = Callable[[State], Union[Value, None]]
STEPS = (1, 2, -1, -2)


@dataclass(frozen=True)
class Pattern:
    """A family ``prefix (block)^m suffix`` (``block`` empty: ``prefix {m} suffix``) whose
    instance ``m`` in ``first..last`` has value ``(kind, start + step * (m - first))``."""

    kind: str
    prefix: State
    block: State
    suffix: State
    first: int
    last: int
    start: int
    step: int
    reaches_bound: bool

    def row(self, m: int) -> State:
        """Instance ``m``."""
        return self.prefix + (self.block * m if self.block else (m,)) + self.suffix

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
        return template_text(self.prefix, self.block, self.suffix)


def _digits(row: State) -> str:
    return "".join(str(c) if c < 10 else f"{{{c}}}" for c in row)


def template_text(prefix: State, block: State, suffix: State) -> str:
    """``12 (01)^m 3`` or ``12 {m} 3``: a family in the template notation of ``theorem add``."""
    middle = f"({_digits(block)})^m" if len(block) > 1 else f"{_digits(block)}^m" if block else "{m}"
    return " ".join(part for part in (_digits(prefix), middle, _digits(suffix)) if part)


def _families(row: State) -> Iterator[tuple[State, State, State, int]]:
    """``(prefix, block, suffix, m)`` of every family ``row`` is an instance of (see above)."""
    n = len(row)
    for width in (1, 2, 3):
        for i in range(n - width + 1):
            block = row[i:i + width]
            if not any(block) or (i >= width and row[i - width:i] == block):
                continue  # an empty block, or not the leftmost copy of the run
            k = 1
            while row[i + k * width:i + (k + 1) * width] == block:
                k += 1
            yield row[:i], block, row[i + k * width:], k
    for i in range(n):
        yield row[:i], (), row[i + 1:], row[i]


def _fits(kind: Kind, parameter: int | Fraction) -> bool:
    return isinstance(parameter, int) or (isinstance(parameter, Fraction) and parameter.denominator == 1)


def find_patterns(seeds: Iterable[tuple[State, Kind]], lookup: Lookup, min_instances: int = 4) -> list[Pattern]:
    """The families around the ``seeds`` (``(row, (kind, parameter))``) that hold for at least
    ``min_instances`` consecutive instances (see the module docstring), longest first; one per
    family and kind (its longest run)."""
    kinds: dict[State, Kind | None] = {}

    def kind_at(row: State) -> Kind | None | bool:
        """The row's kind, ``None`` (another value) or ``False`` (beyond the bound)."""
        if row in kinds:
            return kinds[row]
        value = lookup(row)
        if value is None:
            return False
        got = kinds[row] = kind_of(value)
        return got

    best: dict[tuple[str, State, State, State], Pattern] = {}
    for row, (kind, parameter) in seeds:
        if not _fits((kind, parameter), parameter):
            continue
        n0 = int(parameter)
        for prefix, block, suffix, k in _families(row):
            def make(m: int, prefix: State = prefix, block: State = block, suffix: State = suffix) -> State:
                return prefix + (block * m if block else (m,)) + suffix

            for step in STEPS:
                def holds(m: int) -> bool | None:
                    got = kind_at(make(m))
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
                found = Pattern(kind, prefix, block, suffix, lo, hi, n0 + step * (lo - k), step, reaches)
                ident = (kind, prefix, block, suffix)
                held = best.get(ident)
                if held is None or found.instances > held.instances:
                    best[ident] = found
    return sorted(best.values(), key=lambda p: (-p.instances, not p.reaches_bound, len(p.template), p.template))
