"""Catalog operations: seeding, theorem verification and refutation, value search (SQLite)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Iterator

import pytest

from ruma.client.cli import main
from ruma.engine.cgt import Game
from ruma.engine.cgt.notation import parse_game
from ruma.engine.errors import NotationError, RumaInputError
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.notation import format_pots
from ruma.server.catalog.models import Catalog
from ruma.server.catalog.ops import CatalogError, CatalogOps, octal_037
from ruma.server.catalog.seed import TABLE3_FEWEST_POTS, TABLE3_FEWEST_SEEDS, seed_theorems

# Every seeded theorem verifies up to K = 6. The Sowing families grow exponentially (Theorem
# 2.1: 2.3 at K = 4 needs ~495k followers in canonical form), so value claims are decided by the
# claim search of ruma.engine.verify (G = H iff G - H is a second-player win), which needs only
# a few hundred positions per instance.
K = 6


@pytest.fixture(scope="module")
def memo() -> InMemoryMemo:
    """One memo for the module: values are facts, so sharing them only saves recomputation."""
    return InMemoryMemo()


@pytest.fixture()
def ops(tmp_path: Path, memo: InMemoryMemo) -> Iterator[CatalogOps]:
    catalog = Catalog.open(tmp_path)
    try:
        yield CatalogOps(catalog, memo)
    finally:
        catalog.close()


def _dump(ops: CatalogOps) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    return ops.list_positions(), ops.list_theorems()


def test_seed_twice_gives_the_same_catalog(ops: CatalogOps) -> None:
    first = ops.seed()
    before = _dump(ops)
    assert first == ops.seed()
    assert _dump(ops) == before  # same rows, same timestamps: nothing was rewritten
    assert first["positions"] == len(before[0]) and first["theorems"] == len(before[1])
    tables = {p["source"]["table"] for p in before[0]}  # type: ignore[index]
    assert {"Table 1", "Table 2", "Table 3", "Table 4", "Table 5"} <= tables


@pytest.mark.parametrize("theorem", [t["name"] for t in seed_theorems()])
def test_every_seeded_theorem_verifies(ops: CatalogOps, theorem: str) -> None:
    ops.seed()
    run = ops.verify(theorem, K)
    assert run["holds"], run
    assert run["instances_checked"] > 0
    assert ops.show_theorem(theorem)["last_run"] == run


def test_a_false_claim_is_refuted_at_its_smallest_counterexample(ops: CatalogOps) -> None:
    # Theorem 2.3 says (01)^m 2 (01)^n = n+1; claiming n first fails at the first instance in
    # (sum, lexicographic) order of the domain, m = 0, n = 1, whose true value is n+1 = 2.
    ops.add_theorem("wrong-2.3", "sowing", "(01)^m 2 (01)^n", "n", "all m, n ≥ 0 except m = n = 0")
    run = ops.verify("wrong-2.3", 4)
    assert not run["holds"]
    assert run["counterexample"] == {"m": 0, "n": 1}
    assert run["counterexample_position"] == "201"
    assert run["counterexample_value"] == "2" and run["claimed_value"] == "1"
    assert run["instances_checked"] == 1
    assert ops.runs("wrong-2.3") == [run]


def test_a_false_property_is_refuted(ops: CatalogOps) -> None:
    # Theorem 3.1 covers sparse positions only; {a}3 is never sparse, so a = 0 refutes it.
    ops.add_theorem("not-sparse", "atomic-wari", "{a}3", "property:sparse-atomic-wari", "a<=2")
    run = ops.verify("not-sparse", 3)
    assert not run["holds"] and run["counterexample"] == {"a": 0}
    # Theorem 2.3's values are positive integers: outcome L, never P.
    ops.add_theorem("not-p", "sowing", "(01)^m 2 (01)^n", "property:outcome:P", "m>=0,n>=0,not(m=0,n=0)")
    assert ops.verify("not-p", 2)["counterexample"] == {"m": 0, "n": 1}


def test_octal_037_p_positions_match_erickson() -> None:
    # "finds only thirteen P-positions: {0, 3, 11, 19, 29, 45, 71, 97, 123, 149, 175, 313, 407}"
    assert [n for n in range(420) if octal_037(n) == 0] == [0, 3, 11, 19, 29, 45, 71, 97, 123, 149, 175, 313, 407]


@cache
def _impartial_nim(state: tuple[int, ...]) -> int:
    seen = set()
    for i, count in enumerate(state):
        for step in (1, -1) if count else ():
            last = i + step * count
            if 0 <= last < len(state) and state[last] > 0:
                after = list(state)
                after[i] = 0
                for k in range(1, count + 1):
                    after[i + step * k] += 1
                seen.add(_impartial_nim(tuple(after)))
    return next(k for k in range(len(seen) + 1) if k not in seen)


def _impartial_sowing_nim(position: str) -> int:
    """An independent brute force of impartial Sowing (either direction, last seed into a nonempty pot)."""
    return _impartial_nim(tuple(int(c) for c in position))


def test_value_search_finds_table_3_by_nim_value(ops: CatalogOps) -> None:
    ops.seed()
    table3 = sorted(set(TABLE3_FEWEST_SEEDS) | set(TABLE3_FEWEST_POTS))
    oracle = {p: _impartial_sowing_nim(p) for p in table3}
    for k in range(10):
        value = "0" if k == 0 else f"*{k}"
        found = ops.search(tag="table3", value=value)
        assert sorted(d["position"] for d in found) == sorted(p for p, v in oracle.items() if v == k)
        assert all(d["nim_value"] == k for d in found)
    # the paper's *4 entries are found by value, whatever else is catalogued
    assert {d["name"] for d in ops.search(ruleset="impartial-sowing", tag="nim-4", value="*4")} == {
        "erickson-t3-110111", "erickson-t3-11131"}


def _sowing_value(position: str) -> Game:
    """An independent brute force of partizan Sowing (no full pots): Left sows right, Right left."""

    def options(state: tuple[int, ...], step: int) -> list[tuple[int, ...]]:
        out = []
        for i, count in enumerate(state):
            last = i + step * count
            if count and 0 <= last < len(state) and state[last] > 0:
                after = list(state)
                after[i] = 0
                for k in range(1, count + 1):
                    after[i + step * k] += 1
                out.append(tuple(after))
        return out

    @cache
    def value(state: tuple[int, ...]) -> Game:
        return Game.from_options([value(o) for o in options(state, 1)], [value(o) for o in options(state, -1)])

    return value(tuple(int(c) for c in position))


def test_catalogued_sowing_values_match_an_independent_brute_force(ops: CatalogOps) -> None:
    ops.seed()
    checked = 0
    for entry in ops.list_positions(ruleset="sowing"):
        text = entry["position"]
        plain = text.replace("1^", "").isdigit() and "•" not in text
        if not plain or len(get_ruleset("sowing").parse(text)) > 7:
            continue
        shown = ops.show(entry["name"])
        assert parse_game(shown["value"]) is _sowing_value(format_pots(get_ruleset("sowing").parse(text))), text
        checked += 1
    assert checked >= 8  # 312, Table 1's 2202, 31011, 11, 332011 and Table 2's 1^2 … 1^7


def test_value_search_finds_up_star_of_table_1(ops: CatalogOps) -> None:
    ops.seed()
    found = ops.search(tag="table1", value="^*")
    assert [d["name"] for d in found] == ["erickson-t1-31011"]  # Table 1: 31011 = ↑*
    assert ops.show("erickson-t1-2202")["source_agrees"] is True  # Table 1: 2202 = ↑


def test_stored_search_uses_the_store_index(tmp_path: Path) -> None:
    from ruma.server.store.memo import LmdbStore

    with LmdbStore(tmp_path / "store") as store, Catalog.open(tmp_path) as catalog:
        ops = CatalogOps(catalog, store=store)
        ops.seed()
        ops.search(tag="table3")  # evaluates Table 3 (and every follower) into the store
        found = ops.search_stored("impartial-sowing", "*4", limit=50)
        positions = [d["position"] for d in found]
        assert {"110111", "11131"} <= set(positions)
        assert all(_impartial_sowing_nim(p) == 4 for p in positions if p and p.isdigit())
        seeds = [sum(int(c) for c in p) for p in positions if p and p.isdigit()]
        assert seeds == sorted(seeds)  # simplest first: fewest seeds


def test_stored_search_prints_full_pots(tmp_path: Path) -> None:
    # Sowing keys store a full pot as a marker byte: the search must print it as a full pot.
    from ruma.server.store.memo import LmdbStore

    with LmdbStore(tmp_path / "store") as store, Catalog.open(tmp_path) as catalog:
        ops = CatalogOps(catalog, store=store)
        ops.add_position("one-full", "sowing", "•1", evaluate_now=True)  # = {|0} = -1 (Right sows onto •)
        positions = [d["position"] for d in ops.search_stored("sowing", "-1", limit=50)]
        assert "•1" in positions or "1•" in positions, positions


def test_errors_quote_the_input(ops: CatalogOps) -> None:
    ops.add_position("p", "sowing", "312")
    with pytest.raises(CatalogError, match="'p' already exists"):
        ops.add_position("p", "sowing", "312")
    with pytest.raises(CatalogError, match="no theorem 'nope'"):
        ops.verify("nope", 2)
    with pytest.raises(NotationError, match=r"\(10\)\^m 03 \(01"):
        ops.add_theorem("t", "sowing", "(10)^m 03 (01", "0")
    with pytest.raises(RumaInputError, match="unknown property 'frobnicate'"):
        ops.add_theorem("t", "sowing", "(01)^n", "property:frobnicate")
    with pytest.raises(RumaInputError, match="names"):
        ops.add_theorem("t", "sowing", "(01)^n", "0", "k>=1")


def test_named_position_value_comes_from_the_engine(ops: CatalogOps) -> None:
    d = ops.add_position("example-312", "sowing", "312", tags=["example"], source_value="{0|-2}")
    assert d["value"] == "{0|-2}" and d["source_agrees"] is True  # the paper's §2 example
    assert ops.list_positions(tag="example")[0]["name"] == "example-312"
    assert "value" not in ops.list_positions(tag="example")[0]
    assert ops.remove_position("example-312") and not ops.list_positions(tag="example")


def test_cli_seed_verify_and_search(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    assert main(["catalog", "seed", "--data", data, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["catalog", "seed", "--data", data, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert main(["theorem", "add", "wrong", "--data", data, "--ruleset", "sowing", "--family", "(01)^m 2 (01)^n",
                 "--claim", "n", "--domain", "m>=0,n>=0,not(m=0,n=0)"]) == 0
    capsys.readouterr()
    assert main(["theorem", "verify", "wrong", "--up-to", "3", "--data", data, "--json"]) == 1
    run = json.loads(capsys.readouterr().out)
    assert run["counterexample"] == {"m": 0, "n": 1} and run["counterexample_value"] == "2"
    assert main(["catalog", "search", "--tag", "table3", "--value", "*4", "--data", data, "--json"]) == 0
    names = {json.loads(line)["name"] for line in capsys.readouterr().out.splitlines()}
    assert names == {"erickson-t3-110111", "erickson-t3-11131"}
    assert main(["catalog", "search", "--stored", "--ruleset", "impartial-sowing", "--value", "*4",
                 "--data", data, "--json"]) == 0
    out, err = capsys.readouterr()
    stored = [json.loads(line)["position"] for line in out.splitlines()]
    assert "110111" in stored and "11131" in stored
    assert len(stored) == 20 and "more than 980 more: --limit 1000 lists the first 1,000" in err
    # a search that lists fewer than there are says how many more, and shows no internal key
    assert main(["catalog", "search", "--stored", "--ruleset", "impartial-sowing", "--value", "*7", "--data", data,
                 "--limit", "1000", "--json"]) == 0
    every = len(capsys.readouterr().out.splitlines())
    assert 1 < every < 1000
    assert main(["catalog", "search", "--stored", "--ruleset", "impartial-sowing", "--value", "*7", "--data", data,
                 "--limit", "1"]) == 0
    out, err = capsys.readouterr()
    assert "key" not in out.splitlines()[0] and len(out.splitlines()) == 2  # the header and one row
    assert err.strip() == f"ruma catalog search: 1 shown, the simplest first; {every - 1:,} more ({every:,} in all): " \
                          f"--limit {every} lists them"


def test_every_table_5_value_agrees_with_the_paper(ops: CatalogOps) -> None:
    # Table 5 lists all 100 two-pot Atomic Wari positions xy, x, y ≤ 10; the catalog keeps the
    # printed value and shows whether the engine's value agrees.
    ops.seed()
    shown = [ops.show(p["name"]) for p in ops.list_positions(tag="table5")]
    assert len(shown) == 100
    assert [d["name"] for d in shown if d["source_agrees"] is not True] == []
