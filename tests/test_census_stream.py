"""Questions by value: a family's classes streamed, censuses restricted to values, the pots a row of
seeds can fill, and ``ruma find`` / ``ruma census --value`` locally and over gRPC.

Expected values: Erickson 1996, Table 3 (impartial Sowing: the fewest-seeds positions of ∗3 and
∗4 are ``1112`` and ``110111``; the paper's own entries) and §2 (Sowing ``11 = ∗``); the streamed
classes and the restricted censuses are compared with this repository's full enumeration and full
census (``enumerate_family``/``census``), themselves checked against brute force in
``tests/test_sweep_enum.py``; the pots a row can fill with the engine's own decomposition
(``Ruleset.components``) on every short row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ruma.client.sweep.driver import StoreSink, sweep_store
from ruma.engine.cgt import nimber, parse_game
from ruma.engine.families.bounds import fill_pots, question_pots
from ruma.engine.families.census import census, indexed_values, tally, wanted_values
from ruma.engine.families.enum import Family, enumerate_family
from ruma.engine.families.stream import stream_classes
from ruma.engine.rulesets import get_ruleset

ROW_RULESETS = ["sowing", "impartial-sowing", "atomic-wari", "impartial-atomic-wari", "atomic-wari-board"]


@pytest.mark.parametrize("ruleset", ROW_RULESETS)
@pytest.mark.parametrize("seeds,pots", [((0, 7), None), ((2, 6), (3, 9)), ((0, 5), (4, 4)), ((4, 4), (1, 12))])
def test_streamed_classes_are_the_enumerated_ones(ruleset: str, seeds: tuple[int, int],
                                                  pots: tuple[int, int] | None) -> None:
    family = Family.of(ruleset, seeds, pots)
    expected = {c.state: c for c in enumerate_family(family)}
    streamed: dict[Any, Any] = {}
    for entry in stream_classes(family):
        assert entry.state not in streamed, entry  # each class once
        streamed[entry.state] = entry
    assert streamed == expected  # raw counts of both orientations and representatives too


def _parts(rules: Any, row: tuple[int, ...]) -> int:
    return len(rules.components(row))


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-sowing", "atomic-wari"])
def test_the_pots_a_row_can_fill(ruleset: str) -> None:
    """Every stripped row of 2 to 5 seeds: the longest one the engine's decomposition keeps whole
    is ``fill_pots`` long for Sowing, and no longer than it for Atomic Wari (a bound there). (One
    seed has no move: value 0, no part.)"""
    from itertools import combinations_with_replacement

    rules = get_ruleset(ruleset)
    for seeds in range(2, 6):
        bound = fill_pots(ruleset, seeds)
        longest = 0
        for length in range(1, bound + 4):
            # rows of `length` pots, first and last nonempty, `seeds` seeds: choose the seeds' pots
            for places in combinations_with_replacement(range(length), seeds):
                if places[0] != 0 or places[-1] != length - 1:
                    continue
                row = [0] * length
                for place in places:
                    row[place] += 1
                if _parts(rules, tuple(row)) == 1 and len(rules.components(tuple(row))[0]) == length:
                    longest = max(longest, length)
        if ruleset.endswith("sowing"):
            assert longest == bound, (seeds, longest, bound)
        else:
            assert longest <= bound, (seeds, longest, bound)


def test_questions_default_to_what_the_seeds_can_fill_within_the_walk_budget() -> None:
    assert fill_pots("sowing", 13) == 115 and fill_pots("sowing", 8) == 41
    assert question_pots("sowing", (0, 6)) == (22, 22)  # all of it: 80,731 rows
    assert question_pots("sowing", (0, 11)) == (16, 81)  # 12 pots, as 110001111111 needs, and more
    assert question_pots("sowing", (0, 13)) == (13, 115)  # never fewer pots than seeds


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-sowing"])
def test_a_census_restricted_to_values_is_the_full_census_on_those_values(tmp_path: Path, ruleset: str) -> None:
    family = Family.of(ruleset, (0, 7), (1, 9))
    sweep_store(family, str(tmp_path), workers=1)
    sink = StoreSink(str(tmp_path), create=False)
    try:
        store, rules = sink.store, family.rules
        full = census(rules, enumerate_family(family), store.lookup, "value", 4)
        asked = [row.group for row in full[:: max(1, len(full) // 6)]] + [parse_game("{5|-5}")]  # and one absent
        wanted = wanted_values(rules, [nimber(v) if isinstance(v, int) else v for v in asked])
        by_index = tally(rules, stream_classes(family), indexed_values(store, rules, wanted), "value", 4, wanted, chunk=97)
        by_lookup = tally(rules, stream_classes(family), store.lookup_many, "value", 4, wanted)
        expected = [(r.group, r.classes, r.raw_positions, r.simplest) for r in full if r.group in wanted]
        for counted in (by_index, by_lookup):
            assert counted.missing == 0 and counted.classes == len(enumerate_family(family))
            assert [(r.group, r.classes, r.raw_positions, r.simplest) for r in counted.rows()] == expected
        assert len(expected) == len(asked) - 1
    finally:
        sink.close()
