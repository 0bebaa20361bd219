"""Every position of a family of a row-of-pots ruleset, once per normalisation class.

A **family** is ``(ruleset, seeds A..B, pots C..D)``. Its **raw positions** are the rows of
exactly ``n`` pots, ``C <= n <= D``, each pot holding a non-negative number of seeds, the total
``s`` in ``A <= s <= B``: the tuples a person would write down, leading and trailing empty pots
and real counts in full pots included. There are ``sum_n sum_s C(s + n - 1, n - 1)`` of them
(``raw_count``). Two raw positions are in the same **class** when ``Ruleset.normalise`` maps them
to the same canonical state: empty end pots stripped (Sowing and Atomic Wari, whose rows are
unbounded), full pots marked and full end runs shortened (Sowing), unreachable margins cut
(Atomic Wari on a fixed board), and the mirror image. Every raw position of a class has the
class's value, negated for the partizan rulesets when ``normalise`` reports it mirrored; so a
partizan class counts its raw positions in two orientations, ``raw`` (the canonical orientation)
and ``raw_mirrored`` (an impartial class counts them all in ``raw``). The classes of a family
partition its raw positions (``tests/engine/test_family_classes.py`` checks class counts against brute
force for every row ruleset).

Each class also names its **representative**: the simplest raw position of the class — fewest
seeds, then fewest pots, then the lexicographically smallest row of counts (for counts below 10,
the smallest in the paper's digit notation) — and the same for the mirrored orientation. This is
the order ``census`` uses for "the K simplest positions" (Erickson's Table 3 orders by fewest
seeds and by fewest pots).

A family is defined for the rulesets whose positions are rows of pots (``Ruleset.row_family``;
``ruma.engine.rulesets.row_rulesets()`` names them). For the unbounded rows (``Ruleset.unbounded``)
the enumeration walks *stripped* rows (first and last pot nonempty) and
weighs each by the number of ways to pad it with empty pots to a length in ``C..D``, instead of
walking every padded row: ``sum_{n=max(C,m)}^{D} (n - m + 1)`` for a stripped row of ``m`` pots.
The fixed board keeps its empty pots, so its raw rows are walked one by one.
"""

from __future__ import annotations

import gc
from array import array
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Any, Callable, Iterator, Sequence

from ruma.engine.errors import CancelledError, RumaInputError
from ruma.engine.rulesets import get_ruleset, row_rulesets
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["Family", "FamilyClass", "enumerate_family", "enumerate_states", "raw_count", "raw_rows", "walk_count",
           "weighted_rows", "simplicity"]

#: the most raw rows ``enumerate_family`` walks one by one (fixed boards) before refusing
MAX_WALK = 50_000_000


class FamilyError(RumaInputError):
    """A family that cannot be enumerated (unknown ruleset, empty or inverted ranges)."""


@dataclass(frozen=True)
class Family:
    """A ruleset and the ranges of seeds and pots of its raw positions (both inclusive)."""

    ruleset: str
    seeds_min: int
    seeds_max: int
    pots_min: int
    pots_max: int

    @classmethod
    def of(cls, ruleset: str, seeds: tuple[int, int], pots: tuple[int, int] | None = None) -> "Family":
        """A checked family; ``pots`` defaults to ``1..seeds_max`` (at least one pot)."""
        rules = get_ruleset(ruleset)
        if not rules.row_family:
            raise FamilyError(f"cannot sweep {ruleset!r}: families are defined for {', '.join(sorted(row_rulesets()))}")
        a, b = seeds
        c, d = pots if pots is not None else (1, max(1, b))
        if a < 0 or b < a:
            raise FamilyError(f"seeds {a}..{b}: need 0 <= A <= B")
        if c < 1 or d < c:
            raise FamilyError(f"pots {c}..{d}: need 1 <= C <= D")
        return cls(rules.name, a, b, c, d)

    @property
    def rules(self) -> Ruleset:
        """The ruleset."""
        return get_ruleset(self.ruleset)

    def describe(self) -> str:
        """``sowing seeds 0..8 pots 1..8``."""
        return f"{self.ruleset} seeds {self.seeds_min}..{self.seeds_max} pots {self.pots_min}..{self.pots_max}"


@dataclass
class FamilyClass:
    """One normalisation class: its canonical state and key, how many raw positions it stands for
    in each orientation, and the simplest raw position of each orientation (``None`` if none)."""

    state: State
    key: bytes
    raw: int = 0
    raw_mirrored: int = 0
    representative: State | None = None
    representative_mirrored: State | None = None

    @property
    def raw_total(self) -> int:
        """Raw positions in both orientations."""
        return self.raw + self.raw_mirrored

    def simplest(self) -> State:
        """The simplest raw position of the class, whichever its orientation."""
        candidates = [r for r in (self.representative, self.representative_mirrored) if r is not None]
        return min(candidates, key=simplicity)


def simplicity(row: State) -> tuple[int, int, State]:
    """The order of "simplest": fewest seeds, then fewest pots, then the smallest row of counts."""
    return (sum(row), len(row), row)


def raw_count(family: Family) -> int:
    """The number of raw positions of ``family`` (closed form)."""
    total = 0
    for n in range(family.pots_min, family.pots_max + 1):
        for s in range(family.seeds_min, family.seeds_max + 1):
            total += comb(s + n - 1, n - 1)
    return total


def walk_count(family: Family) -> int:
    """How many rows ``enumerate_family`` walks: stripped rows for the unbounded rulesets, every
    raw row for a fixed board (what a service bounds before enumerating)."""
    if not family.rules.unbounded:
        return raw_count(family)
    total = 0
    for s in range(family.seeds_min, family.seeds_max + 1):
        if s == 0:
            total += 1
            continue
        for m in range(1, family.pots_max + 1):
            if m == 1:
                total += 1
            elif s >= 2:
                total += comb(s - 2 + m - 1, m - 1)
    return total


#: rows are built as a head (generated) plus a tail of at most this many counts (cached lists)
_TAIL = 6


@lru_cache(maxsize=4096)
def _tails(total: int, parts: int, lo_last: int) -> tuple[State, ...]:
    """Every row of ``parts`` counts summing to ``total`` with the last ``>= lo_last``, in
    lexicographic order (cached: the same short tails end very many rows)."""
    if parts == 1:
        return ((total,),) if total >= lo_last else ()
    return tuple((first,) + rest for first in range(total - lo_last + 1)
                 for rest in _tails(total - first, parts - 1, lo_last))


def _heads(total: int, parts: int, lo_first: int, reserve: int) -> Iterator[tuple[State, int]]:
    """``(head, total - sum(head))`` for every head of ``parts`` counts (the first ``>= lo_first``)
    leaving at least ``reserve``, in lexicographic order of the heads."""
    if parts == 1:
        for first in range(lo_first, total - reserve + 1):
            yield (first,), total - first
        return
    for first in range(lo_first, total - reserve + 1):
        for head, left in _heads(total - first, parts - 1, 0, reserve):
            yield (first,) + head, left


def _compositions(total: int, parts: int, lo_first: int, lo_last: int) -> Iterator[State]:
    """Rows of ``parts`` counts summing to ``total`` (first >= lo_first, last >= lo_last), in
    lexicographic order: a generated head and a cached tail (``_tails``), one concatenation
    per row — the enumeration's inner loop (stars and bars with ``itertools.combinations`` cost
    four times as much, converting bars to counts in Python)."""
    if parts == 1:
        if total >= max(lo_first, lo_last):
            yield (total,)
        return
    if total < lo_first + lo_last:
        return
    tail_parts = min(parts - 1, _TAIL)
    for head, left in _heads(total, parts - tail_parts, lo_first, lo_last):
        for tail in _tails(left, tail_parts, lo_last):
            yield head + tail


def raw_rows(family: Family) -> Iterator[State]:
    """Every raw position of ``family`` one by one, simplest first (for tests and small boards)."""
    for s in range(family.seeds_min, family.seeds_max + 1):
        for n in range(family.pots_min, family.pots_max + 1):
            yield from _compositions(s, n, 0, 0)


def weighted_rows(family: Family) -> Iterator[tuple[State, int]]:
    """``(row, number of raw positions it stands for)``, simplest first: the rows the enumeration
    walks (stripped rows weighed by their paddings, or a fixed board's rows one by one)."""
    c, d = family.pots_min, family.pots_max
    if not family.rules.unbounded:
        if raw_count(family) > MAX_WALK:
            raise FamilyError(f"{family.describe()} has {raw_count(family)} raw boards; at most {MAX_WALK} can be walked")
        for row in raw_rows(family):
            yield row, 1
        return
    for s in range(family.seeds_min, family.seeds_max + 1):
        if s == 0:
            yield (0,) * c, d - c + 1  # the empty row, once per length (the shortest stands for all)
            continue
        for m in range(1, d + 1):
            weight = sum(n - m + 1 for n in range(max(c, m), d + 1))
            if weight == 0:
                continue
            yield from ((row, weight) for row in _compositions(s, m, 1, 1))


def _simpler(row: State, held: State | None) -> bool:
    """Whether ``row`` replaces ``held`` as a class's representative. Rows come simplest first
    except the mirror images counted out of turn, which have the seeds and pots of the row
    walked with them; so ``held`` is never less simple in (seeds, pots), and the rows need
    comparing only on a tie there."""
    return held is None or (len(held) == len(row) and row < held and sum(held) == sum(row))


def _count(entry: FamilyClass, row: State, weight: int, mirrored: bool) -> None:
    """Add ``weight`` raw rows to one orientation of a class, keeping the simplest row."""
    if mirrored:
        entry.raw_mirrored += weight
        if _simpler(row, entry.representative_mirrored):
            entry.representative_mirrored = row
    else:
        entry.raw += weight
        if _simpler(row, entry.representative):
            entry.representative = row


def walk_rows(family: Family, should_cancel: Callable[[], bool] | None = None
              ) -> Iterator[tuple[State, State, int, State, bool]]:
    """The reference walk: ``(row, mirror image, weight, class, mirrored)`` for each walked row
    (``weighted_rows``) that is not after its mirror image (that one is counted with it);
    ``should_cancel`` is polled every 4096 rows (a true answer raises ``CancelledError``)."""
    normalise = family.rules.normalise
    for walked, (row, weight) in enumerate(weighted_rows(family)):
        if should_cancel is not None and walked & 4095 == 0 and should_cancel():
            raise CancelledError(f"enumeration of {family.describe()} was cancelled")
        mirror = row[::-1]
        if mirror < row:
            continue  # counted with its mirror image, which comes first (same seeds and pots)
        canonical, mirrored = normalise(row)
        yield row, mirror, weight, canonical, mirrored


def book(entry: FamilyClass, row: State, mirror: State, weight: int, mirrored: bool, partizan: bool) -> None:
    """Count a walked row and its mirror image in their class (``walk_rows``'s items)."""
    _count(entry, row, weight, mirrored and partizan)
    if mirror != row:
        # normalise(mirror) is the same class; its orientation is the other one, unless the
        # class is its own mirror image (then both rows are in the canonical orientation)
        canonical = entry.state
        _count(entry, mirror, weight, partizan and not mirrored and canonical != canonical[::-1])


def enumerate_family(family: Family, should_cancel: Callable[[], bool] | None = None) -> list[FamilyClass]:
    """The classes of ``family`` with their raw counts and representatives, smallest first.

    "Smallest" is the canonical state's ``Ruleset.size`` (sowable seeds, then pots), then the
    state: the followers of a position never have more seeds or pots, so valuing the classes in
    this order lets larger positions reuse smaller ones. ``should_cancel`` is polled every 4096
    rows; a true answer raises ``CancelledError``.
    """
    rules = family.rules
    native = _native_classes(family, should_cancel)
    if native is not None:
        return native  # (in this order already)
    partizan = not rules.impartial
    classes: dict[State, FamilyClass] = {}
    get, key = classes.get, rules.key
    for row, mirror, weight, canonical, mirrored in walk_rows(family, should_cancel):
        entry = get(canonical)
        if entry is None:
            entry = classes[canonical] = FamilyClass(canonical, key(canonical))
        book(entry, row, mirror, weight, mirrored, partizan)
    seeds = rules.seeds
    return sorted(classes.values(), key=lambda c: (seeds(c.state), len(c.state), c.state))


def enumerate_states(family: Family, should_cancel: Callable[[], bool] | None = None, part: int = 0,
                     parts: int = 1) -> tuple[list[State], list[bytes], int]:
    """The canonical states and keys of ``family``'s classes in ``enumerate_family``'s order, and
    its raw positions: what a sweep needs, without a ``FamilyClass`` per class (from the compiled
    walk where there is one, ``Rules.class_states``, which keeps no representatives either).

    ``part`` of ``parts``: the classes of every ``parts``-th group of rows of the compiled walk
    (rows that differ only in their last two pots) from the ``part``-th on
    (``Rules.class_states``), so that processes can share the walk: the raw positions of the
    parts add up to the family's, and a class is in every part that has one of its rows.
    Without the compiled walk, part 0 is the whole family and the other parts are empty."""
    native = getattr(type(family.rules), "native", None)
    if family.rules.unbounded and native is not None and hasattr(native, "class_states") \
            and raw_count(family) < 1 << 62:
        collecting = gc.isenabled()
        gc.disable()  # (as in _native_classes)
        try:
            found = native.class_states(family.seeds_min, family.seeds_max, family.pots_min, family.pots_max,
                                        should_cancel, part, parts)
        finally:
            if collecting:
                gc.enable()
        if found is None:
            raise CancelledError(f"enumeration of {family.describe()} was cancelled")
        states, keys, raw = found
        return states, keys, raw
    if part:
        return [], [], 0
    classes = enumerate_family(family, should_cancel)
    return [c.state for c in classes], [c.key for c in classes], sum(c.raw_total for c in classes)


class ClassRows:
    """A part of a family's classes as ``Rules.class_rows`` packs them (about 20 bytes a class, where
    lists of states and keys took 214): a sweep's worker takes them a block at a time."""

    def __init__(self, native: Any, rows: bytes, ends: bytes, raw: int) -> None:
        self.native, self.rows, self.ends, self.raw = native, rows, ends, raw
        self.picks: Sequence[int] = range(len(ends) // 8)

    def __len__(self) -> int:
        return len(self.picks)

    def block(self, first: int, count: int) -> tuple[list[State], list[bytes]]:
        """The states and keys of classes ``first`` .. ``first + count`` (of those kept)."""
        states, keys = self.native.class_block(self.rows, self.ends, self.picks[first:first + count])
        return states, keys

    def keys(self, first: int, count: int) -> list[bytes]:
        """The keys alone of classes ``first`` .. ``first + count`` (of those kept)."""
        keys: list[bytes] = self.native.class_block(self.rows, self.ends, self.picks[first:first + count], False)[1]
        return keys

    def keep(self, mask: Sequence[bool] | bytes | bytearray) -> None:
        """Keep the classes whose entry of ``mask`` (one a class, in order) is true."""
        if not all(mask):
            self.picks = array("Q", (i for i, kept in zip(self.picks, mask) if kept))


def enumerate_rows(family: Family, should_cancel: Callable[[], bool] | None = None, part: int = 0,
                   parts: int = 1) -> ClassRows | None:
    """``enumerate_states`` packed (``ClassRows``), or ``None`` where the compiled walk does not apply."""
    native = getattr(type(family.rules), "native", None)
    if not family.rules.unbounded or native is None or not hasattr(native, "class_rows") \
            or raw_count(family) >= 1 << 62:
        return None
    found = native.class_rows(family.seeds_min, family.seeds_max, family.pots_min, family.pots_max,
                              should_cancel, part, parts)
    if found is None:
        raise CancelledError(f"enumeration of {family.describe()} was cancelled")
    rows, ends, raw = found
    return ClassRows(native, rows, ends, raw)


def _native_classes(family: Family, should_cancel: Callable[[], bool] | None) -> list[FamilyClass] | None:
    """The classes from the compiled walk (``Rules.classes``, ``engine/native/classes.c``: the same
    rows, order and books as the loop of ``enumerate_family``, which stays the reference and
    runs under ``RUMA_ENGINE=python``), or ``None`` where it does not apply: a fixed board, a
    ruleset without compiled core, or counts that could pass 64 bits."""
    native = getattr(type(family.rules), "native", None)
    if not family.rules.unbounded or native is None or not hasattr(native, "classes"):
        return None
    if raw_count(family) >= 1 << 62:
        return None
    # The cyclic collector paused: hundreds of thousands of new tuples and FamilyClass objects
    # (none in a cycle) would set it off every 700 allocations, each pass walking all the live
    # ones again — 0.5 s of the 0.7 s it takes to make 671,849 classes' objects.
    collecting = gc.isenabled()
    gc.disable()
    try:
        found = native.classes(family.seeds_min, family.seeds_max, family.pots_min, family.pots_max, should_cancel)
        if found is None:
            raise CancelledError(f"enumeration of {family.describe()} was cancelled")
        return [FamilyClass(state, key, raw, raw_mirrored, rep, rep_mirrored)
                for state, key, raw, raw_mirrored, rep, rep_mirrored in found]
    finally:
        if collecting:
            gc.enable()
