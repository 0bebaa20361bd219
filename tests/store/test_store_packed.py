"""Packed batches: the compiled search hands an impartial ruleset's new values over as the bytes
the store's writer process reads (``search_memo.c``'s ``pack_pending``, ``insert_packed``), not
as a list of pairs.

What must hold: a packed batch is stored exactly as ``insert_many`` of its pairs stores them
(byte for byte, with the writer process or in line, small batches and keys LMDB cannot hold
included); lookups see it while it is in flight; a batch lost with the writer is given back and
written; and the search's frames hold exactly the values it hands over otherwise, sorted, in
the engine's batch frame (``ruma.engine.frame``). Expected values come from ``insert_many`` (the
pairs' way) and from the pure-Python reference engine.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.evaluator import evaluate
from ruma.engine.frame import pack_frame
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.server.store.bulk import BULK_DIRECT, WRITER_MIN
from ruma.server.store.codec import StoreError
from ruma.server.store.memo import LmdbStore
from ruma.server.store.verify import verify_store
from ruma.server.store.writer import unpack
from tests.support.stores import dump, nim_items, up, writer_of

pytest.importorskip("ruma.server.store._native")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("packed batches come from the compiled search", allow_module_level=True)


def packed(items: list[tuple[bytes, int]]) -> bytes:
    return pack_frame([k for k, _ in items], [2 * v for _, v in items])


def by_pairs(path: Path, batches: list[list[tuple[bytes, int]]]) -> dict[str, Any]:
    """The store ``insert_many`` of the same batches leaves (in line)."""
    with LmdbStore(path, writer_process=False) as store:
        for batch in batches:
            store.insert_many(batch)
        store.flush()
        return dump(store)


@pytest.mark.parametrize("writer", [True, False])
def test_a_packed_batch_is_stored_as_insert_many_stores_its_pairs(tmp_path: Path, writer: bool) -> None:
    items = nim_items(3 * WRITER_MIN + 17)
    huge = (bytes((2, 1, 0)) + bytes(600), 5)  # (longer than LMDB's key limit: never stored, as by insert_many)
    small = nim_items(BULK_DIRECT // 4, seed=8, code=3)  # (through the insert buffer)
    batches = [items[:WRITER_MIN], sorted(items[WRITER_MIN:] + [huge]), small]
    store = LmdbStore(tmp_path / "packed", writer_process=writer)
    with up(store) if writer else store:
        for batch in batches:
            store.insert_packed(packed(batch))
            probe = [k for k, _ in batch[::61]]
            assert store.lookup_many(probe) == [None if k == huge[0] else v for k, v in batch[::61]]  # (in flight too)
        if writer:
            writer_of(store)
        store.flush()
        assert store.admin.stats()["entries"] == len(items) + len(small)
        assert dump(store) == by_pairs(tmp_path / "pairs", batches)
        assert verify_store(store, sample=0, full=True).problems == []


def test_lookups_of_a_batch_in_flight_read_the_search_cache_given(tmp_path: Path) -> None:
    from ruma.engine.memo import new_compact_memo

    items = nim_items(2 * WRITER_MIN)
    cache = new_compact_memo()
    cache.insert_many(items)  # (the search puts them there before it hands them over)
    with up(LmdbStore(tmp_path)) as store:
        writer = writer_of(store)
        store.insert_packed(packed(items), cache)
        assert writer.snapshot() in ([], [cache.lookup])  # (empty once committed)
        assert store.lookup_many([k for k, _ in items]) == [v for _, v in items]
        store.flush()
        assert not writer.pending and store.lookup_many([k for k, _ in items]) == [v for _, v in items]


def test_a_packed_batch_lost_with_the_writer_is_given_back_and_written(tmp_path: Path) -> None:
    items = nim_items(3 * WRITER_MIN)
    with up(LmdbStore(tmp_path)) as store:
        store.insert_packed(packed(items[:WRITER_MIN]))
        writer = writer_of(store)
        store.flush()
        os.kill(writer._process.pid, signal.SIGKILL)
        writer._process.wait()
        store.insert_packed(packed(items[WRITER_MIN:]))  # sent to a dead child, or written in line
        with pytest.raises(StoreError, match="writer process ended"):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                store.flush()
                time.sleep(0.05)
        store.flush()  # the given-back entries (decoded from the frame), written in line
        assert store.lookup_many([k for k, _ in items]) == [v for _, v in items]
        assert store.admin.stats()["entries"] == len(items)
        assert verify_store(store, sample=0, full=True).problems == []


class _Frames(InMemoryMemo):
    """A memo that takes packed batches (and records them); its ``recent`` is a CompactMemo."""

    def __init__(self, cache: Any) -> None:
        super().__init__()
        self.frames: list[tuple[bytes, Any]] = []
        self.recent = cache

    def insert_packed(self, frame: bytes, cache: Any = None) -> None:
        self.frames.append((frame, cache))
        keys, codes = unpack(frame)
        self.entries.update(zip(keys, (c >> 1 for c in codes)))


class _Pairs(InMemoryMemo):
    """The same memo without ``insert_packed``: the pairs' way."""

    def insert_many(self, items: Any) -> None:
        self.entries.update(items)


@pytest.mark.parametrize("ruleset, text", [("impartial-sowing", "1^10"), ("impartial-atomic-wari", "333333")])
def test_the_search_packs_what_it_would_hand_over_as_pairs(ruleset: str, text: str) -> None:
    from ruma.engine.memo import new_compact_memo

    rules = get_ruleset(ruleset)
    cache = new_compact_memo()
    frames, pairs = _Frames(cache), _Pairs()
    value = evaluate(rules, text, frames).value
    assert value == evaluate(rules, text, pairs).value == evaluate(rules.reference, text, InMemoryMemo()).value
    assert len(frames.frames) > 1 and frames.entries == pairs.entries
    for frame, given in frames.frames:
        keys, codes = unpack(frame)
        assert keys == sorted(keys) and all(code % 2 == 0 for code in codes)
        assert pack_frame(keys, codes) == frame
        assert given is cache and all(cache.lookup(k) == c >> 1 for k, c in zip(keys, codes))
    assert len(cache) == len(frames.entries)


def test_a_full_cache_takes_no_more_from_the_search() -> None:
    """The search puts its values in the cache only up to the store's ``RECENT_LIMIT`` (else the
    cache would grow with the search's own table): past it, batches come with no cache, and the
    store keeps them in a fresh ``recent`` of its own."""
    from ruma.engine.memo import new_compact_memo
    from ruma.server.store.bulk import RECENT_LIMIT

    cache = new_compact_memo()
    filler = RECENT_LIMIT - 20_000  # (room for the first hand-over, 16,384 values; keys of no ruleset: code 9)
    cache.insert_many((bytes((9, 1)) + i.to_bytes(4, "big"), 0) for i in range(filler))
    frames = _Frames(cache)
    value = evaluate(get_ruleset("impartial-sowing"), "1^10", frames).value
    assert value == evaluate(get_ruleset("impartial-sowing").reference, "1^10", InMemoryMemo()).value
    givens = [given for _, given in frames.frames]
    assert givens[0] is cache and givens[-1] is None and len(cache) <= RECENT_LIMIT


def test_the_keys_a_writer_may_take_are_counted_as_their_lengths_say(tmp_path: Path) -> None:
    # (frames of keys of random lengths around the limits — 3 bytes, 255/256, the store's longest
    # key — against the definition: every length within 3..max_key, else none goes as it is)
    import random

    from ruma.server.store.bulk import _NATIVE

    if _NATIVE is None:
        pytest.skip("the store's compiled module is not built: no frame goes to the writer as it is")
    store = LmdbStore(tmp_path / "store", writer_process=True)
    try:
        core = store.core
        rng = random.Random(11)
        for _ in range(300):
            spans = rng.choice([(3, 40), (1, 5), (200, 300), (250, core.max_key + 5), (3, core.max_key)])
            lengths = [rng.randint(*spans) for _ in range(rng.randint(1, 30))]
            frame = pack_frame([bytes((2, 1)) + bytes(n - 2) if n >= 2 else bytes(n) for n in lengths], [0] * len(lengths))
            expected = len(lengths) if all(3 <= n <= core.max_key for n in lengths) else 0
            assert core._packed_count(frame) == expected, lengths
    finally:
        store.close()
