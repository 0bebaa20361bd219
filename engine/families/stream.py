"""A family's classes one at a time, in memory that does not grow with the family.

``enumerate_family`` returns every class at once: for Sowing up to 13 seeds that is 2.6 million
``FamilyClass`` objects, more than a gigabyte. ``stream_classes`` walks the same rows in the same
order (``enum.walk_rows``: stripped rows, simplest first, each with the number of raw rows it
stands for, booked by ``enum.book``) and hands each class over as soon as no later row can belong
to it:

* a walked row whose normalisation is the row itself or its mirror image (only the empty end pots
  and the orientation differ) stands, with its mirror image, for its whole class: no other
  stripped row normalises to that state, since any other rule (full pots marked, full end runs
  shortened, no seeds left) yields a state no raw row is — so the class is complete at once;
* every other class (a row with a full pot, the class without sowable seeds) may gather rows of
  several seed totals: it is kept until the walk ends, then handed over. These are few (20,891
  of Sowing's 1,352,242 classes of 13 seeds).

The classes, their raw counts in each orientation and their representatives are exactly
``enumerate_family``'s (``tests/sweep/test_census_stream.py`` compares them); only the order differs.
A fixed board (``atomic-wari-board``) is not walked by stripped rows: its classes come from
``enumerate_family``.
"""

from __future__ import annotations

from typing import Callable, Iterator

from ruma.engine.families.classes import Family, FamilyClass, book, enumerate_family, walk_rows
from ruma.engine.rulesets.base import State

__all__ = ["stream_classes"]


def stream_classes(family: Family, should_cancel: Callable[[], bool] | None = None) -> Iterator[FamilyClass]:
    """Every class of ``family`` once, as soon as it is complete (see the module docstring);
    ``should_cancel`` is polled every 4096 rows (a true answer raises ``CancelledError``)."""
    rules = family.rules
    if not rules.unbounded:
        yield from enumerate_family(family, should_cancel)
        return
    key, partizan = rules.key, not rules.impartial
    kept: dict[State, FamilyClass] = {}
    for row, mirror, weight, canonical, mirrored in walk_rows(family, should_cancel):
        alone = canonical == row or canonical == mirror
        entry = None if alone else kept.get(canonical)
        if entry is None:
            entry = FamilyClass(canonical, key(canonical))
            if not alone:
                kept[canonical] = entry
        book(entry, row, mirror, weight, mirrored, partizan)
        if alone:
            yield entry
    yield from kept.values()
