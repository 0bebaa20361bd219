"""CompactMemo: the compiled engine's in-memory memo, against InMemoryMemo (the reference memo).

Expected contents come from evaluations with ``InMemoryMemo`` (a dict): a CompactMemo must end up
holding exactly the same entries, answer lookups the same way and refuse what a memo refuses.
"""

from __future__ import annotations

import pytest

from ruma.engine.cgt import Game, nimber, parse_game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo, new_memo
from ruma.engine.native.rulesets import COMPILED


def test_new_memo_is_compact_with_the_compiled_engine() -> None:
    memo = new_memo()
    assert type(memo).__name__ == "CompactMemo" and len(memo) == 0  # type: ignore[arg-type]


def test_lookups_inserts_and_refusals() -> None:
    memo = new_memo()
    up_star = parse_game("^*")
    memo.insert(b"\x01\x01\x00\x03\x01\x02", up_star)
    memo.insert(b"\x02\x01\x00\x03\x01\x02", 1, explored=7)
    memo.insert(b"\x02\x01\x00\x03\x01\x02", 2)  # the first value stored is kept
    memo.insert_many([(b"\x02\x01\x00\x01\x01", 0), (b"\x01\x01\x00\x09", nimber(3))])
    assert memo.lookup(b"\x01\x01\x00\x03\x01\x02") is up_star
    assert memo.lookup(b"\x02\x01\x00\x03\x01\x02") == 1
    assert memo.lookup(b"\x01\x01\x00\x09") is nimber(3)
    assert memo.lookup(b"\x02\x01\x00\x07") is None
    assert memo.lookup_many([b"\x02\x01\x00\x01\x01", b"nope"]) == [0, None]  # type: ignore[attr-defined]
    assert len(memo) == 4  # type: ignore[arg-type]
    for bad in (-1, True, 2.5, "1", None):
        with pytest.raises(TypeError):
            memo.insert(b"\x02\x01\x00\x05", bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        memo.lookup("not bytes")  # type: ignore[arg-type]
    assert len(memo) == 4  # type: ignore[arg-type]


@pytest.mark.parametrize("name,texts", [("impartial-sowing", ["1^10", "2^6", "3^5"]), ("sowing", ["1^9", "2^5", "3,0,2"]),
                                        ("atomic-wari", ["3333", "4444"]), ("impartial-atomic-wari", ["4444", "22122"]),
                                        ("atomic-wari-board", ["0330", "4444"])])
def test_evaluations_store_what_the_dict_memo_stores(name: str, texts: list[str]) -> None:
    rules = COMPILED[name]
    compact, reference = new_memo(), InMemoryMemo()
    for text in texts:
        a, b = evaluate(rules, text, compact), evaluate(rules, text, reference)
        assert a.value == b.value and a.stats.positions_valued == b.stats.positions_valued
        again = evaluate(rules, text, compact)
        assert again.from_memo and again.value == a.value
    assert dict(compact.items()) == reference.entries  # type: ignore[attr-defined]
    assert all(isinstance(v, (int, Game)) for v in reference.entries.values())
