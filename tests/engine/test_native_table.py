"""The compiled table's two parts (``engine/native/table.c``): packed 64-bit keys for short rows of
small counts (with value bytes for nim values, in wide blocks of int32 values for Games), general
byte keys for the rest, and a ``CompactMemo`` whose table a search uses as its own.

Expected values and memo contents come from the pure-Python reference engine (``ruma.engine``'s
own rulesets and search, with a dict memo): keys at and across every boundary of the packed form
(counts 14, 15, 16, full pots, 16 and 17 pots, a first pot 0) must be stored byte for byte as the
reference stores them, and values above what a value byte holds must come back whole.
"""

from __future__ import annotations

import pytest

from ruma.engine.cgt import Game, integer, nimber, parse_game
from ruma.engine.errors import LimitExceededError
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo, new_memo
from ruma.engine.native.rulesets import COMPILED
from ruma.engine.rulesets.atomic_wari import ATOMIC_WARI, IMPARTIAL_ATOMIC_WARI
from ruma.engine.rulesets.notation import FULL
from ruma.engine.rulesets.sowing import IMPARTIAL_SOWING, SOWING
from tests.support.positions import counts

PREFIX = b"\x02\x01"  # any two bytes: a CompactMemo keeps keys by their first two

# bodies at the packed form's edges: packable (0x00, 1-16 bytes, first nonzero, each 0-14 or 255) or not
BODIES = [
    b"\x00\x01", b"\x00\x0e", b"\x00\x0f", b"\x00\x10", b"\x00\xff", b"\x00\xfe", b"\x00\x00\x01",
    b"\x00" + bytes([1] * 16), b"\x00" + bytes([1] * 17), b"\x00" + bytes([14] * 16), b"\x00" + bytes([255] * 16),
    b"\x00\x03\x00\x00\x02", b"\x01" + b"1,2,300", b"\x00", b"",
]


def test_keys_across_the_packed_form_keep_their_bytes_and_values() -> None:
    memo, reference = new_memo(), InMemoryMemo()
    for k, body in enumerate(BODIES):
        # nim values from 0 to past the 250 a value byte holds
        for memo_ in (memo, reference):
            memo_.insert(PREFIX + body, [0, 1, 250, 251, 252, 255, 256, 1000, 2**31 - 2][k % 9])
    for short in (b"", b"\x07"):  # shorter than a ruleset prefix
        memo.insert(short, 5)
        reference.insert(short, 5)
    assert dict(memo.items()) == reference.entries  # type: ignore[attr-defined]
    assert len(memo) == len(reference.entries)  # type: ignore[arg-type]
    for key, value in reference.entries.items():
        assert memo.lookup(key) == value
    assert memo.lookup(PREFIX + b"\x00\x02") is None and memo.lookup(PREFIX + b"\x00\x00\x02") is None


def test_games_across_the_packed_form_keep_their_bytes_and_values() -> None:
    memo, reference = new_memo(), InMemoryMemo()
    games: list[Game] = [integer(0), nimber(3), parse_game("{2|-1}"), integer(-7), nimber(1)]
    many = [b"\x00" + bytes([1 + k % 14, k % 15, k // 15 % 15]) for k in range(3000)]  # segments grow
    for k, body in enumerate(BODIES + many):
        for memo_ in (memo, reference):
            memo_.insert(PREFIX + body, games[k % len(games)])
    assert dict(memo.items()) == reference.entries  # type: ignore[attr-defined]
    for key, value in reference.entries.items():
        assert memo.lookup(key) == value
    assert memo.lookup(PREFIX + b"\x00\x02") is None and memo.lookup(PREFIX + b"\x00\x01\x0e\x0e\x0e") is None


def test_a_ruleset_prefix_holds_values_of_one_kind() -> None:
    memo = new_memo()
    memo.insert(b"\x02\x01\x00\x03", 2)
    memo.insert(b"\x01\x01\x00\x03", nimber(2))  # another prefix: Games are fine there
    with pytest.raises(TypeError, match="nim values"):
        memo.insert(b"\x02\x01\x00\x04", nimber(1))
    assert memo.lookup(b"\x01\x01\x00\x03") is nimber(2) and len(memo) == 2  # type: ignore[arg-type]


@pytest.mark.parametrize("reference", [IMPARTIAL_SOWING, IMPARTIAL_ATOMIC_WARI, SOWING, ATOMIC_WARI],
                         ids=lambda r: r.name)
def test_searches_across_the_packed_form_store_what_the_reference_stores(reference: object) -> None:
    name = reference.name  # type: ignore[attr-defined]
    fast = COMPILED[name]
    compact, dict_memo, ref_memo = new_memo(), InMemoryMemo(), InMemoryMemo()
    for text in counts(name):
        a = evaluate(fast, text, compact)  # the memo's table is the search's (a fresh ruleset)
        b = evaluate(fast, text, dict_memo)  # the search's own table
        c = evaluate(reference, text, ref_memo)  # type: ignore[arg-type]
        assert a.value == b.value == c.value, text
        assert a.stats.positions_valued == b.stats.positions_valued == c.stats.positions_valued, text
    assert dict(compact.items()) == dict_memo.entries == ref_memo.entries  # type: ignore[attr-defined]


# (reference, a position, a larger one, a limit the larger one's search exceeds)
FRESH = [(IMPARTIAL_SOWING, "1^9", "1^10", 5000), (SOWING, "1^8", "1^9", 2000)]


@pytest.mark.parametrize(("reference", "small", "large", "limit"), FRESH, ids=lambda v: getattr(v, "name", v))
def test_a_search_uses_a_fresh_memo_table_as_its_own(reference: object, small: str, large: str, limit: int) -> None:
    fast = COMPILED[reference.name]  # type: ignore[attr-defined]
    memo = new_memo()
    first = evaluate(fast, small, memo)
    # one table: the memo's bytes are the search's table and an empty memo's, and every miss was
    # known without a lookup
    assert memo.nbytes == first.stats.table_bytes + new_memo().nbytes  # type: ignore[attr-defined]
    assert first.stats.memo_hits == 0 and first.stats.memo_misses == first.stats.positions_valued
    second = evaluate(fast, large, memo)  # the memo holds the ruleset: a table of its own
    assert second.stats.table_bytes < memo.nbytes and second.stats.memo_hits > 0  # type: ignore[attr-defined]
    expected = InMemoryMemo()
    for text in (small, large):
        evaluate(reference, text, expected)  # type: ignore[arg-type]
    assert dict(memo.items()) == expected.entries  # type: ignore[attr-defined]


@pytest.mark.parametrize(("reference", "small", "large", "limit"), FRESH, ids=lambda v: getattr(v, "name", v))
def test_an_interrupted_search_leaves_no_values_but_its_own_in_the_memo(reference: object, small: str, large: str,
                                                                        limit: int) -> None:
    fast = COMPILED[reference.name]  # type: ignore[attr-defined]
    memo, expected = new_memo(), InMemoryMemo()
    with pytest.raises(LimitExceededError):
        evaluate(fast, large, memo, max_positions=limit)
    assert 0 < len(memo) <= limit + 1  # type: ignore[arg-type]
    result = evaluate(reference, large, expected)  # type: ignore[arg-type]
    partial = dict(memo.items())  # type: ignore[attr-defined]
    assert all(expected.entries[key] == value for key, value in partial.items())
    again = evaluate(fast, large, memo)  # markers left behind are absent keys
    assert again.value == result.value and dict(memo.items()) == expected.entries  # type: ignore[attr-defined]


def test_full_pots_pack_as_their_key_byte() -> None:
    rules = COMPILED["impartial-sowing"]
    state = (FULL, 1, 1, FULL + 2)
    assert rules.key(state) == IMPARTIAL_SOWING.key(state)
    memo = new_memo()
    evaluate(rules, "•,2,1,1,•", memo)
    reference = InMemoryMemo()
    evaluate(IMPARTIAL_SOWING, "•,2,1,1,•", reference)
    assert dict(memo.items()) == reference.entries  # type: ignore[attr-defined]
