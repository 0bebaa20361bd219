"""Questions by value: a family's classes streamed, censuses restricted to values, the pots a row of
seeds can fill, and ``ruma find`` / ``ruma census --value`` locally and over gRPC.

Expected values: Erickson 1996, Table 3 (impartial Sowing: the fewest-seeds positions of ∗3 and
∗4 are ``1112`` and ``110111``; the paper's own entries) and §2 (Sowing ``11 = ∗``); the streamed
classes and the restricted censuses are compared with this repository's full enumeration and full
census (``enumerate_family``/``census``), themselves checked against brute force in
``tests/engine/test_family_classes.py``; the pots a row can fill with the engine's own decomposition
(``Ruleset.components``) on every short row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ruma.client.sweep.driver import StoreSink, sweep_store
from ruma.engine.cgt import nimber, parse_game
from ruma.engine.families.bounds import fill_pots, question_pots
from ruma.engine.families.census import census, tally, values_among, wanted_values
from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.families.stream import stream_classes
from ruma.engine.rulesets import get_ruleset, row_rulesets
from tests.support.commands import ruma
from tests.support.grpc_harness import connect, running_server


@pytest.mark.both_engines  # (the reference normalisation, against the reference enumeration)
@pytest.mark.parametrize("ruleset", row_rulesets())
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


@pytest.mark.both_engines
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
        by_index = tally(rules, stream_classes(family), values_among(store, rules, wanted), "value", 4, wanted, chunk=97)
        by_lookup = tally(rules, stream_classes(family), store.lookup_many, "value", 4, wanted)
        expected = [(r.group, r.classes, r.raw_positions, r.simplest) for r in full if r.group in wanted]
        for counted in (by_index, by_lookup):
            assert counted.missing == 0 and counted.classes == len(enumerate_family(family))
            assert [(r.group, r.classes, r.raw_positions, r.simplest) for r in counted.rows()] == expected
        assert len(expected) == len(asked) - 1
    finally:
        sink.close()


def test_find_answers_with_table_3_and_states_its_bound(tmp_path: Path) -> None:
    data = str(tmp_path / "data")  # (none yet: find creates it, as a sweep does, and values the family first)
    found = ruma("find", "impartial-sowing", "*3", "*4", "--seeds", "..6", "--simplest", "1", "--data", data,
                 "--workers", "1")
    assert found.returncode == 0, found.stderr
    assert f"created a new store in {data}" in found.stderr
    lines = found.stdout.splitlines()
    assert lines[0].startswith("# searched impartial-sowing: every row of 0..6 seeds in 1..22 pots (")
    assert "classes valued first" in lines[0] and "NOT SEARCHED" not in found.stdout  # 6 seeds fill 22 pots
    assert "∗3: " in found.stdout and "  1112  (5 seeds, 4 pots)" in lines  # Erickson's Table 3
    assert "  110111  (5 seeds, 6 pots)" in lines
    again = ruma("find", "impartial-sowing", "*4", "*40", "--seeds", "..6", "--data", data, "--json")
    assert again.returncode == 0  # no ∗40 in this bound: a correct answer, said on stderr
    record = json.loads(again.stdout)
    assert record["group"] == "∗4" and record["simplest"][0] == "110111"
    assert "all stored already" in again.stderr and "no impartial-sowing position of value ∗40" in again.stderr
    fresh = str(tmp_path / "fresh")  # census too creates its store
    narrow = ruma("census", "impartial-sowing", "--seeds", "6", "--pots", "6", "--value", "*4", "--data", fresh,
                  "--format", "csv", "--workers", "1")
    assert narrow.returncode == 0 and narrow.stdout.splitlines()[1].startswith("value,∗4,4,")
    assert "# NOT SEARCHED: rows of 7..22 pots" in narrow.stderr
    bad = ruma("find", "impartial-sowing", "{1|", "--seeds", "3", "--data", data)
    assert bad.returncode == 2 and "'{1|'" in bad.stderr


def test_a_census_by_value_over_grpc_is_the_local_one(tmp_path: Path) -> None:
    family = Family.of("sowing", (0, 6), (1, 8))
    sweep_store(family, str(tmp_path / "local"), workers=1)
    sink = StoreSink(str(tmp_path / "local"), create=False)
    try:
        full = census(family.rules, enumerate_family(family), sink.store.lookup, "value", 3)
    finally:
        sink.close()
    star = next(r for r in full if r.group == parse_game("*"))  # Erickson §2: 11 = ∗, two seeds
    assert star.simplest[0][0] == (1, 1)
    with running_server(tmp_path / "data") as (_, address), connect(address) as client:
        result = client.census("sowing", (0, 6), (1, 8), values=["*", "^"], compute_missing=True, notations=["ascii"])
        assert result.summary.classes == len(enumerate_family(family)) and result.summary.missing == 0
        assert [(r.group["ascii"], r.classes, r.raw_positions) for r in result.rows] == [
            (format(r.group, "ascii"), r.classes, r.raw_positions) for r in full if r.group in (parse_game("*"), parse_game("^"))]
        with pytest.raises(Exception) as bad:
            client.census("sowing", (0, 3), values=["{1|"])
        assert bad.value.code.name == "INVALID_ARGUMENT" and "'{1|'" in str(bad.value)
