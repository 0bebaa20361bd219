"""The LMDB store behind the evaluator: components become lookups; the ``ruma store`` commands.

Reference values come from a fresh evaluation with an in-memory memo (no store involved).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ruma.client.cli import main
from ruma.engine.cgt import Game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.server.store import codec
from ruma.server.store.keys import state_of_key
from ruma.server.store.memo import LmdbStore
from ruma.server.store.verify import verify_store

pytestmark = pytest.mark.both_engines


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-sowing"])
def test_a_sum_makes_each_component_a_lookup(tmp_path: Path, ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    whole, part = "1111000000002111", "1111"
    assert [rules.format(c) for c in rules.components(rules.parse(whole))] == ["1111", "2111"]
    with LmdbStore(tmp_path) as store:
        first = evaluate(rules, whole, store)
    assert first.stats.positions_valued > 0
    with LmdbStore(tmp_path, create=False) as store:  # a new environment: nothing cached in memory
        again = evaluate(rules, part, store)
        whole_again = evaluate(rules, whole, store)
    assert again.stats.positions_valued == 0 and again.stats.memo_hits > 0 and again.from_memo
    assert whole_again.from_memo
    assert again.value == evaluate(rules, part, InMemoryMemo()).value
    assert whole_again.value == first.value == evaluate(rules, whole, InMemoryMemo()).value


def test_every_follower_is_stored_and_correct(tmp_path: Path) -> None:
    rules = get_ruleset("sowing")
    with LmdbStore(tmp_path, batch_size=100) as store:
        evaluate(rules, "1^7", store)
    reference = InMemoryMemo()
    evaluate(rules, "1^7", reference)
    with LmdbStore(tmp_path, create=False) as store:
        assert store.admin.stats()["entries"] == len(reference)
        for key, value in reference.entries.items():
            assert store.lookup(key) is value
        report = verify_store(store, sample=10**6)
    assert report.checked == len(reference) and not report.mismatches and not report.skipped


def test_state_of_key_inverts_ruleset_keys() -> None:
    for name, text in (("sowing", "3,300,#1"), ("impartial-sowing", "1201"), ("atomic-wari", "4404"),
                       ("impartial-atomic-wari", "333")):
        rules = get_ruleset(name)
        state = rules.normalise(rules.parse(text))[0]
        found, decoded = state_of_key(rules.key(state))
        assert found is rules and decoded == state
    with pytest.raises(codec.CodecError):
        state_of_key(bytes((1, 99, 0, 1)))  # a version this ruma does not have


def _corrupt(path: Path, ruleset: str, position: str) -> tuple[str, bytes]:
    """Overwrite the stored value of ``position`` with a wrong one through the raw environment."""
    rules = get_ruleset(ruleset)
    state = rules.normalise(rules.parse(position))[0]
    key = rules.key(state)
    with LmdbStore(path) as store:
        positions = store.admin.db("positions")
        with store.admin.env.begin(write=True) as txn:
            is_game, number, explored = codec.decode_entry(codec.unseal("positions", key, txn.get(key, db=positions)))
            # a wrong value with a valid checksum (as a bug in the engine would write it)
            if is_game:  # point at another stored game
                other = next(i for i in range(number + 1, number + 10**6)
                             if txn.get(codec.encode_game_id(i), db=store.admin.db("games")) is not None)
                txn.put(key, codec.seal(key, codec.encode_entry(True, other, explored)), db=positions)
            else:
                txn.put(key, codec.seal(key, codec.encode_entry(False, number + 1, explored)), db=positions)
    return rules.format(state), key


@pytest.mark.parametrize("ruleset,position,damaged", [("sowing", "1^6", "1^6"), ("sowing", "1^6", "110211"),
                                                      ("impartial-sowing", "2^4", "2^4"),
                                                      ("impartial-sowing", "2^4", "2033")])
def test_verify_detects_a_corrupted_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          ruleset: str, position: str, damaged: str) -> None:
    with LmdbStore(tmp_path) as store:
        evaluate(ruleset, position, store)
    assert main(["store", "verify", "--data", str(tmp_path), "--sample", "100000"]) == 0
    assert "values re-evaluated and compared: all " in (out := capsys.readouterr().out) and ", 0 differ" in out
    shown, key = _corrupt(tmp_path, ruleset, damaged)
    assert main(["store", "verify", "--data", str(tmp_path), "--sample", "100000", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(m["position"], m["key"]) for m in report["mismatches"]] == [(shown, key.hex())]
    assert main(["store", "verify", "--data", str(tmp_path), "--sample", "100000"]) == 1
    assert f"MISMATCH {ruleset} {shown}" in capsys.readouterr().out


def test_stats_and_backup_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, dest = tmp_path / "src", tmp_path / "copy"
    with LmdbStore(src) as store:
        sowing = evaluate("sowing", "2^4", store)
        impartial = evaluate("impartial-sowing", "1^6", store)
    assert main(["store", "stats", "--data", str(src), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    by_name = {r["name"]: r["entries"] for r in stats["rulesets"]}
    assert by_name == {"sowing": len(_all("sowing", "2^4")), "impartial-sowing": len(_all("impartial-sowing", "1^6"))}
    assert stats["entries"] == sum(by_name.values()) and stats["bytes_per_entry"] > 0
    assert main(["store", "stats", "--data", str(src)]) == 0
    assert "sowing v1:" in capsys.readouterr().out
    assert main(["store", "backup", str(dest), "--data", str(src)]) == 0
    capsys.readouterr()
    with LmdbStore(dest, create=False) as copy:
        assert copy.admin.stats()["entries"] == stats["entries"]
        assert evaluate("sowing", "2^4", copy).from_memo and evaluate("impartial-sowing", "1^6", copy).from_memo
        assert evaluate("sowing", "2^4", copy).value is sowing.value
        assert evaluate("impartial-sowing", "1^6", copy).value == impartial.value
    with LmdbStore(src) as store:  # an octal game's entries are named by their family
        evaluate("octal:0.07", "3 5 7", store)
    assert main(["store", "stats", "--data", str(src)]) == 0
    text = capsys.readouterr().out
    assert "  octal:CODE v1 (every game of the family): " in text and "code 12" not in text
    assert main(["store", "backup", str(dest), "--data", str(src)]) == 2  # refuses a non-empty destination
    assert main(["store", "stats", "--data", str(tmp_path / "missing")]) == 3  # no store there: unreachable
    assert not (tmp_path / "missing").exists()


def _all(ruleset: str, position: str) -> dict[bytes, Game | int]:
    memo = InMemoryMemo()
    evaluate(ruleset, position, memo)
    return memo.entries


@pytest.mark.parametrize("ruleset,position", [("impartial-sowing", "2^5"), ("sowing", "1^7")])
def test_positions_with_value_finds_every_stored_position(tmp_path: Path, ruleset: str, position: str) -> None:
    reference = _all(ruleset, position)
    code = get_ruleset(ruleset).code
    with LmdbStore(tmp_path) as store:
        evaluate(ruleset, position, store)
        values = list(dict.fromkeys(reference.values()))  # every distinct value, first seen first
        for value in values[:6]:
            expected = [k for k, v in reference.items() if v == value]
            found = store.positions_with_value(code, value, limit=10**6)
            assert sorted(found) == sorted(expected)
            order = [(sum(k[3:]), len(k)) for k in found]
            assert order == sorted(order)  # simplest first
            assert store.positions_with_value(code, value, limit=2) == found[:2]
