"""The enumeration of a family by normalisation class is complete and non-redundant: for every
row ruleset, the classes' raw counts (per orientation) equal a brute-force walk over every raw
row, normalised one by one, and add up to the closed-form count of raw positions."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from ruma.engine.errors import RumaInputError
from ruma.engine.families.classes import (
    Family,
    enumerate_family,
    raw_count,
    raw_rows,
    simplicity,
)
from ruma.engine.rulesets import get_ruleset, row_rulesets

FAMILIES = [((0, 5), (1, 6)), ((2, 6), (3, 5)), ((4, 7), (1, 4))]


def brute_force(family: Family) -> Counter[tuple[tuple[int, ...], bool]]:
    """Every raw row built with itertools.product (no shared code with the enumerator)."""
    rules = get_ruleset(family.ruleset)
    counts: Counter[tuple[tuple[int, ...], bool]] = Counter()
    for n in range(family.pots_min, family.pots_max + 1):
        for row in itertools.product(range(family.seeds_max + 1), repeat=n):
            if family.seeds_min <= sum(row) <= family.seeds_max:
                canonical, mirrored = rules.normalise(row)
                counts[(canonical, mirrored and not rules.impartial)] += 1
    return counts


@pytest.mark.parametrize("ruleset", row_rulesets())
@pytest.mark.parametrize("seeds,pots", FAMILIES)
def test_classes_partition_the_raw_positions(ruleset: str, seeds: tuple[int, int], pots: tuple[int, int]) -> None:
    family = Family.of(ruleset, seeds, pots)
    classes = enumerate_family(family)
    expected = brute_force(family)
    assert len({c.state for c in classes}) == len(classes)  # non-redundant
    assert len({c.key for c in classes}) == len(classes)
    found: Counter[tuple[tuple[int, ...], bool]] = Counter()
    for c in classes:
        if c.raw:
            found[(c.state, False)] += c.raw
        if c.raw_mirrored:
            found[(c.state, True)] += c.raw_mirrored
    assert found == expected  # complete, and each class stands for exactly its raw rows
    assert sum(c.raw_total for c in classes) == raw_count(family) == sum(expected.values())


@pytest.mark.parametrize("ruleset", row_rulesets())
def test_representatives_are_the_simplest_raw_rows(ruleset: str) -> None:
    family = Family.of(ruleset, (0, 5), (1, 5))
    rules = get_ruleset(ruleset)
    best: dict[tuple[tuple[int, ...], bool], tuple[int, ...]] = {}
    for row in sorted(raw_rows(family), key=simplicity):
        canonical, mirrored = rules.normalise(row)
        best.setdefault((canonical, mirrored and not rules.impartial), row)
    for c in enumerate_family(family):
        assert best.get((c.state, False)) == c.representative
        assert best.get((c.state, True)) == c.representative_mirrored


def test_smaller_classes_come_first() -> None:
    rules = get_ruleset("sowing")
    sizes = [rules.size(c.state)[::-1] for c in enumerate_family(Family.of("sowing", (0, 6), (1, 6)))]
    assert sizes == sorted(sizes)


def test_full_pots_merge_raw_rows() -> None:
    # 110451 and 110461 are both 110••1 (Erickson §2): one class, several raw rows
    family = Family.of("sowing", (12, 13), (6, 6))
    rules = get_ruleset("sowing")
    canonical, _ = rules.normalise(rules.parse("110451"))
    (entry,) = [c for c in enumerate_family(family) if c.state == canonical]
    assert entry.raw_total > 2
    assert entry.simplest() == (1, 1, 0, 4, 5, 1)


@pytest.mark.parametrize("bad", [("sowing", (3, 2), None), ("sowing", (0, 3), (0, 3)), ("nim", (0, 3), None),
                                 ("sowing", (-1, 3), None), ("sowing", (0, 3), (4, 2))])
def test_bad_families_are_refused(bad: tuple[str, tuple[int, int], tuple[int, int] | None]) -> None:
    with pytest.raises(RumaInputError):
        Family.of(*bad)


def test_compositions_are_every_row_in_lexicographic_order() -> None:
    """The head-and-cached-tail generator against a brute force over all rows of counts."""
    from itertools import product

    from ruma.engine.families.classes import _compositions

    for parts in range(1, 6):
        for total in range(0, 8):
            for lo_first, lo_last in [(0, 0), (1, 1), (2, 0), (0, 3)]:
                brute = [row for row in product(range(total + 1), repeat=parts)
                         if sum(row) == total and row[0] >= lo_first and row[-1] >= lo_last]
                assert list(_compositions(total, parts, lo_first, lo_last)) == brute, (total, parts, lo_first, lo_last)
    assert len(list(_compositions(14, 11, 1, 1))) == math.comb(12 + 10, 10)  # long rows: head + tail
