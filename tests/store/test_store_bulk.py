"""The store's bulk path (``lookup_many``/``insert_many``) against its one-at-a-time path.

The expected store contents are those that ``insert`` + ``flush`` write: a bulk write must leave
every sub-database byte for byte the same (positions, per-ruleset counts, games), keep the first
value stored under a key, and answer lookups like ``lookup``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import lmdb
import pytest

from ruma.engine.cgt import Game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.server.store.bulk import BULK_DIRECT
from ruma.server.store.codec import CorruptRecordError
from ruma.server.store.memo import LmdbStore
from ruma.server.work.cache import CachedMemo
from tests.support.stores import dump


def sample_items() -> list[tuple[bytes, Any]]:
    """Stored values of real positions: Sowing (Games, keys with full pots), impartial Sowing (nim
    values), two prefixes in one batch; plus keys with text bodies (a pot of 255 or more seeds)."""
    items: dict[bytes, Any] = {}
    for name, texts in (("sowing", ["1^7", "3,300,#1", "2^4"]), ("impartial-sowing", ["1^9", "2^5", "12,0,300"])):
        memo = InMemoryMemo()
        for text in texts:
            evaluate(get_ruleset(name), text, memo)
        items.update(memo.entries)
    for k in range(5):  # (values made up: the store does not value positions)
        items[get_ruleset("impartial-sowing").key((300 + k, 1, 2, 0, 1))] = k
    assert any(k[2] == 1 for k in items) and any(isinstance(v, Game) for v in items.values())
    listed = list(items.items())
    random.Random(7).shuffle(listed)
    return listed


@pytest.mark.both_engines  # (store.codec in Python instead of server/store/native.c)
def test_bulk_insert_writes_what_insert_and_flush_write(tmp_path: Path) -> None:
    items = sample_items()
    assert len(items) > 4 * BULK_DIRECT
    with LmdbStore(tmp_path / "one") as one:  # the same batches, inserted one by one and flushed
        for start in range(0, len(items), 3000):
            for key, value in items[start:start + 3000]:
                one.insert(key, value)
            one.flush()  # (games get store ids in key order within a flush: same batches, same ids)
        expected = dump(one)
    with LmdbStore(tmp_path / "bulk") as bulk:
        for start in range(0, len(items), 3000):
            bulk.insert_many(items[start:start + 3000])
        bulk.insert_many(items[:100])  # small batches go through the buffer; re-inserts change nothing
        bulk.flush()
        got = dump(bulk)
        assert bulk.admin.stats()["entries"] == len(items)
    for name in expected:
        assert got[name] == expected[name], name


def test_first_value_is_kept_and_bad_values_refused(tmp_path: Path) -> None:
    key = bytes((2, 1, 0, 1, 2, 3))
    with LmdbStore(tmp_path) as store:
        store.insert(key, 3)
        store.flush()
        batch = [(key, 5)] + [(bytes((2, 1, 0, 9, i >> 8, i & 255)), i % 7) for i in range(BULK_DIRECT)]
        store.insert_many(batch)
        assert store.lookup(key) == 3
        assert store.lookup_many([k for k, _ in batch[1:4]]) == [v for _, v in batch[1:4]]
        for bad in (-1, True, "3", 2.0):
            with pytest.raises(TypeError):
                store.insert_many([(key, bad)])
        store.insert_many([(b"\x02", 1), (b"\x02\x01\x00" + b"\x01" * 600, 1)])  # keys LMDB cannot hold: forgotten
        assert store.lookup_many([b"\x02"]) == [None]


def test_lookup_many_answers_like_lookup(tmp_path: Path) -> None:
    items = sample_items()
    with LmdbStore(tmp_path) as store:
        store.insert_many(items[: len(items) // 2])  # written
        for key, value in items[len(items) // 2: len(items) // 2 + 50]:
            store.insert(key, value)  # buffered
        keys = [k for k, _ in items] + [b"\x02\x01\x00\x07\x07"]
        assert store.lookup_many(keys) == [store.lookup(k) for k in keys]
        ids = store.value_ids_many(keys + [b"\x02", b"\x02\x01\x00" + b"\x01" * 600])
        assert ids[-2:] == [None, None] and sum(i is not None for i in ids) == len(items) // 2 + 50
        for key, found in zip(keys, ids):  # the id of what lookup builds: a nim value, or a game's store id
            value = store.lookup(key)
            assert found == (None if value is None else (True, store.store_game_id(value)) if isinstance(value, Game)
                             else (False, value))
        cached = CachedMemo(store, size=10)
        assert cached.lookup_many(keys) == [store.lookup(k) for k in keys]
        cached.insert_many([(b"\x02\x01\x00\x07\x07", 4)])
        assert store.lookup(b"\x02\x01\x00\x07\x07") == 4 and cached.lookup(b"\x02\x01\x00\x07\x07") == 4


@pytest.mark.parametrize("ruleset,texts", [("impartial-sowing", ["1^11", "2^6", "1^10"]),
                                           ("sowing", ["1^9", "2^5"]),
                                           ("atomic-wari", ["3333", "4444"])])
def test_evaluation_into_the_store_matches_memory(tmp_path: Path, ruleset: str, texts: list[str]) -> None:
    """Cold and then partly warm evaluations (the compiled search batches its lookups once the
    store keeps missing) store exactly what an in-memory evaluation computes."""
    rules = get_ruleset(ruleset)
    reference = InMemoryMemo()
    expected = [evaluate(rules, text, reference).value for text in texts]
    with LmdbStore(tmp_path) as store:
        assert [evaluate(rules, text, store).value for text in texts] == expected
        assert [evaluate(rules, text, store).from_memo for text in texts] == [True] * len(texts)
        store.flush()
        assert store.admin.stats()["entries"] == len(reference)
        keys = list(reference.entries)
        assert store.lookup_many(keys) == [reference.entries[k] for k in keys]


def test_a_warm_store_settles_speculative_frames(tmp_path: Path) -> None:
    """A store holding the followers of a position but not the position: a search that has
    stopped waiting for the memo finds them while it descends, drops the frames it started
    under them, and the values it finds are the in-memory ones."""
    rules = get_ruleset("impartial-sowing")
    with LmdbStore(tmp_path) as store:
        for text in ("1^10", "2^5", "3^5", "1^9"):
            evaluate(rules, text, store)  # many followers of 1^12 below, stored
        result = evaluate(rules, "1^12", store)
        assert result.value == evaluate(rules, "1^12", InMemoryMemo()).value
        assert result.stats.memo_hits > 0


@pytest.mark.both_engines
@pytest.mark.parametrize("part", ["value", "key"])
def test_a_flipped_bit_is_caught_through_lookup_many(tmp_path: Path, part: str) -> None:
    """Bulk writes seal every record as a flush does, and bulk reads check the seals: a record
    whose value bit flipped is refused (``CorruptRecordError``: gRPC ``DATA_LOSS``, never served),
    one whose key bit flipped is another key (a miss); every other key is still served."""
    items = sample_items()
    with LmdbStore(tmp_path) as store:
        store.insert_many(items)  # one direct bulk write
        assert len(items) >= BULK_DIRECT
    victim, value = next((k, v) for k, v in items if isinstance(v, int) and len(k) > 8)
    with store_env(tmp_path) as txn:
        record = bytes(txn.get(victim))
    data = bytearray((tmp_path / "data.mdb").read_bytes())
    at = data.find(victim + record)
    assert at >= 0 and data.find(victim + record, at + 1) < 0
    data[at + (len(victim) if part == "value" else len(victim) - 1)] ^= 1
    (tmp_path / "data.mdb").write_bytes(bytes(data))
    keys = [k for k, _ in items]
    others = [k for k in keys if k != victim]
    with LmdbStore(tmp_path, create=False) as store:
        if part == "value":
            with pytest.raises(CorruptRecordError, match="positions"):
                store.lookup_many(keys)
        else:
            assert store.lookup_many([victim]) == [None]
        expected = dict(items)
        got = store.lookup_many(others)
        assert all(g is expected[k] if isinstance(expected[k], Game) else g == expected[k] for k, g in zip(others, got))


def store_env(path: Path) -> Any:
    """A read transaction on the positions table of the store at ``path`` (a context manager)."""
    from contextlib import contextmanager

    @contextmanager
    def reading() -> Any:
        env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=8)
        try:
            with env.begin(db=env.open_db(b"positions", create=False)) as txn:
                yield txn
        finally:
            env.close()

    return reading()


def test_the_compiled_record_builder_matches_store_codec() -> None:
    """``store._native`` (server/store/native.c) against ``store.codec``: CRC32C as google_crc32c, sealed
    positions records as ``seal``, on random keys of every shape (tag 0 and text bodies, long
    keys beyond LMDB's limit)."""
    import google_crc32c

    from ruma.server.store import codec

    native = pytest.importorskip("ruma.server.store._native")
    rng = random.Random(11)
    for size in [0, 1, 7, 8, 9, 63, 64, 65, 1000]:
        data = bytes(rng.randrange(256) for _ in range(size))
        assert native.crc32c(data) == google_crc32c.value(data)
    keys, entries = [], []
    for _ in range(3000):
        body = bytes(rng.randrange(256) for _ in range(rng.choice([1, 2, 5, 20, 300])))
        keys.append(bytes([rng.randrange(1, 9), rng.randrange(1, 3), rng.choice([0, 0, 0, 1])]) + body)
        value = codec.encode_value(rng.random() < 0.5, rng.randrange(1 << rng.choice([3, 10, 20])))
        entries.append(value + codec.encode_varint(rng.randrange(1000)))
    keys.append(b"\x01\x01")  # (shorter than any stored key: left to Python, as the reference does)
    entries.append(b"\x02\x00")
    assert list(native.seal_positions(keys, entries)) == [(k, codec.seal(k, e)) for k, e in zip(keys, entries)]
    with pytest.raises(TypeError):
        native.seal_positions(keys, entries[:-1])


