"""The compiled search's cache (a memo's ``recent``: a CompactMemo or a dict, read in C before the
memo is asked) and its hand-overs to ``insert_many`` (16,384 values first, doubling up to 32,768).

Expected values come from evaluations with a fresh ``InMemoryMemo`` (the reference memo): a cache
changes which calls the memo receives, never a value.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Sequence

import pytest

from ruma.engine.cgt import Game, nimber
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo, new_compact_memo
from ruma.engine.rulesets import get_ruleset

pytest.importorskip("ruma.engine.native._core")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("the cache is read by the compiled search only", allow_module_level=True)


class CachedMemo:
    """A memo that answers from a dict and remembers what it was asked and handed, with ``recent``
    (the LMDB store's attribute) holding values it vouches for."""

    def __init__(self, recent: Any) -> None:
        self.recent = recent
        self.entries: dict[bytes, Any] = {}
        self.asked: list[bytes] = []
        self.batches: list[int] = []

    def lookup(self, key: bytes) -> Any:
        self.asked.append(key)
        return self.entries.get(key)

    def lookup_many(self, keys: Sequence[bytes]) -> list[Any]:
        self.asked.extend(keys)
        return [self.entries.get(key) for key in keys]

    def insert(self, key: bytes, value: Any, explored: int = 0) -> None:
        self.entries.setdefault(key, value)

    def insert_many(self, items: Iterable[tuple[bytes, Any]]) -> None:
        items = list(items)
        self.batches.append(len(items))
        for key, value in items:
            self.entries.setdefault(key, value)


@pytest.mark.parametrize("kind", ["compact", "dict"])
@pytest.mark.parametrize("ruleset, small, large", [
    ("impartial-atomic-wari", "3333", "44444"),
    ("atomic-wari", "3333", "4444"),
    ("impartial-sowing", "1^8", "1^10"),
    ("sowing", "1^7", "1^9"),
])
def test_cached_values_are_never_asked_for_and_the_value_is_the_reference(ruleset: str, small: str,
                                                                          large: str, kind: str) -> None:
    """The cache as the LMDB store offers it (a ``CompactMemo``) or as a dict."""
    rules = get_ruleset(ruleset)
    earlier = InMemoryMemo()
    evaluate(rules, small, earlier)  # what an earlier evaluation of this process stored
    cached = dict(earlier.entries)
    recent: Any = cached
    if kind == "compact":
        recent = new_compact_memo()
        recent.insert_many(cached.items())
    memo = CachedMemo(recent)
    result = evaluate(rules, large, memo)
    reference = evaluate(rules, large, InMemoryMemo())
    assert result.value == reference.value
    assert not set(memo.asked) & set(cached), "a cached key went to the memo"
    assert not set(memo.entries) & set(cached), "a cached value was handed back as new"
    assert result.stats.memo_hits > 0  # cache hits count as memo hits
    # everything valued is in the memo or the cache, with the reference's values
    reference_memo = InMemoryMemo()
    evaluate(rules, large, reference_memo)
    for key, value in {**cached, **memo.entries}.items():
        if key in reference_memo.entries:
            assert value is reference_memo.entries[key] if isinstance(value, Game) else value == reference_memo.entries[key]


@pytest.mark.parametrize("kind", ["compact", "dict"])
def test_a_cache_value_of_the_wrong_kind_is_refused(kind: str) -> None:
    rules = get_ruleset("impartial-sowing")
    earlier = InMemoryMemo()
    evaluate(rules, "1^6", earlier)
    key = next(iter(earlier.entries))
    recent: Any = {key: nimber(1)}  # a Game for an impartial position
    if kind == "compact":
        recent = new_compact_memo()
        recent.insert(key, nimber(1))
    with pytest.raises(TypeError, match="Game for an impartial position" if kind == "compact" else None):
        evaluate(rules, "1^8", CachedMemo(recent))


def test_a_cache_that_is_not_a_dict_is_not_read() -> None:
    """Only a real dict is read in C (``memo.capabilities``); anything else is ignored."""
    rules = get_ruleset("impartial-sowing")
    memo = CachedMemo({})
    memo.recent = [("not", "a dict")]  # type: ignore[assignment]
    assert evaluate(rules, "1^8", memo).value == evaluate(rules, "1^8", InMemoryMemo()).value


def test_hand_overs_double_from_16384_to_32768() -> None:
    """Values reach ``insert_many`` 16,384 at first, then twice as many each time up to 32,768."""
    rules = get_ruleset("impartial-atomic-wari")
    memo = CachedMemo({})
    result = evaluate(rules, "333333", memo)
    sizes = memo.batches
    assert sum(sizes) == result.stats.positions_valued == len(memo.entries)
    assert len(sizes) >= 3 and 32768 in sizes, sizes
    expected = [min(16384 << i, 32768) for i in range(len(sizes))]
    assert sizes[:-1] == expected[:-1]
    assert 0 < sizes[-1] <= expected[-1]


@pytest.mark.parametrize("ruleset, text", [("impartial-atomic-wari", "44444"), ("atomic-wari", "3333")])
def test_a_cached_root_is_answered_at_once(ruleset: str, text: str) -> None:
    """A position whose own value is cached costs no search and no call of the memo."""
    rules = get_ruleset(ruleset)
    earlier = InMemoryMemo()
    reference = evaluate(rules, text, earlier)
    recent = new_compact_memo()
    recent.insert_many(earlier.entries.items())
    memo = CachedMemo(recent)
    result = evaluate(rules, text, memo)
    assert result.value == reference.value
    assert result.stats.positions_valued == 0 and not memo.asked and not memo.batches


def test_what_a_memo_offers_is_decided_once_into_one_record() -> None:
    """``capabilities(memo)``: the record the compiled search takes, for each kind of memo."""
    from ruma.engine.families.packets import RecordingMemo
    from ruma.engine.memo import capabilities

    plain = InMemoryMemo()
    able = capabilities(plain)
    assert able.entries is plain.entries and able.new is None and able.lookup_many is None
    assert able.recent is None and able.shared is None and able.compact is None and able.store is None
    recording = RecordingMemo()
    able = capabilities(recording)
    assert able.entries is recording.entries and able.new is recording.new and able.lookup_many is not None
    assert capabilities(RecordingMemo(plain.lookup)).entries is None  # (a fallback is called: no dict)
    compact = new_compact_memo()
    assert capabilities(compact).compact is compact and capabilities(compact).entries is None
    cached = CachedMemo({b"k": 1})
    able = capabilities(cached)
    assert able.recent is cached.recent and able.entries is None and able.lookup_many is not None
    assert capabilities(CachedMemo([("not", "a dict")])).recent is None  # (neither a dict nor a CompactMemo)
    batches = len(cached.batches)
    able.insert_many([(b"x", 2)])  # the memo's own insert_many
    assert len(cached.batches) == batches + 1
    able = capabilities(type("Minimal", (), {"lookup": lambda self, key: None,
                                             "insert": lambda self, key, value, explored=0: None})())
    assert able.lookup_many is None and able.insert_packed is None and able.store is None
    able.insert_many([(b"x", 2)])  # a loop over insert
