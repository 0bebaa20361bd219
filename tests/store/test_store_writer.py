"""The store's writer process (``server/store/writer.py``): large bulk batches written by a child
process while the evaluation goes on, on real LMDB files.

What must hold: the store ends byte for byte as an in-line bulk write leaves it (games interned by
the parent, positions written by the child); lookups see batches in flight; ``flush`` and
``close`` commit them; a batch the child fails to write, or that is lost with the child, is never
lost silently — its error is raised by the next ``flush`` and its entries are written by the one
after; a cancelled search leaves only correct, committed values; the child ends with the store.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.errors import CancelledError
from ruma.engine.evaluator import evaluate
from ruma.engine.frame import pack_frame, unpack_frame
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.server.store import writer as store_writer
from ruma.server.store.bulk import WRITER_MIN
from ruma.server.store.codec import StoreError
from ruma.server.store.memo import LmdbStore
from ruma.server.store.verify import verify_store
from tests.support.stores import dump, nim_items, up, writer_of

pytestmark = pytest.mark.alone  # (it times what it runs)

native = pytest.importorskip("ruma.server.store._native")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("the writer process needs the compiled record builder", allow_module_level=True)


def test_pack_batch_matches_the_reference_and_unpacks() -> None:
    from ruma.engine.cgt import Game, nimber

    rng = random.Random(5)
    games = [nimber(1) + Game(2), Game(0), Game("1/2")]
    codes = {id(g): 2 * (10 + i) + 1 for i, g in enumerate(games)}
    keys = sorted({bytes(rng.randrange(256) for _ in range(rng.choice([3, 9, 300]))) for _ in range(2000)})
    values: list[Any] = [rng.choice(games) if rng.random() < 0.3 else rng.randrange(1 << rng.choice([3, 20, 62])) for _ in keys]
    frame = native.pack_batch(keys, values, codes)
    expected = [codes[id(v)] if isinstance(v, Game) else 2 * v for v in values]
    assert frame == pack_frame(keys, expected)
    assert native.unpack_batch(frame) == unpack_frame(frame) == (keys, expected)
    assert native.pack_batch(keys, values, None) is None  # games without codes: not for the writer
    for bad in (-1, True, 1 << 63, "3"):
        assert native.pack_batch(keys[:2], [1, bad], {}) is None
    for broken in (frame[:-1], frame + b"x", frame[:3]):
        with pytest.raises(ValueError):
            native.unpack_batch(broken)


def test_split_batch(tmp_path: Path) -> None:
    items = nim_items(500)
    keys, values, in_order, shortest, longest = native.split_batch(items)
    assert (keys, values, in_order) == ([k for k, _ in items], [v for _, v in items], True)
    assert (shortest, longest) == (min(map(len, keys)), max(map(len, keys)))
    assert native.split_batch(items[::-1])[2] is False
    assert native.split_batch(items[:3] + items[2:3])[2] is False  # (a repeated key is not "increasing")
    for odd in ([("3", 1)], [[b"abc", 1]], [(b"abc", 1, 2)]):  # (the general path takes these)
        assert native.split_batch(odd) is None
    with LmdbStore(tmp_path) as store:  # pairs as lists, from a generator: as before
        store.insert_many([k, v] for k, v in items[::-1])
        assert store.lookup_many([k for k, _ in items]) == [v for _, v in items]


@pytest.mark.parametrize("child", ["C", "py-lmdb"])
@pytest.mark.parametrize("ruleset, text", [("impartial-sowing", "1^10"), ("sowing", "1^10")])
def test_the_writer_writes_what_an_inline_write_writes(tmp_path: Path, ruleset: str, text: str, child: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways the writer process writes: its C transactions (server/store/lmdb.c) and, without them
    (``RUMA_STORE_WRITER=python``), the store's own bulk write through py-lmdb."""
    if child == "py-lmdb":
        monkeypatch.setenv("RUMA_STORE_WRITER", "python")
    rules = get_ruleset(ruleset)
    memory = InMemoryMemo()
    expected_value = evaluate(rules, text, memory).value
    assert len(memory) > WRITER_MIN
    dumps = []
    for use_writer in (True, False):
        with LmdbStore(tmp_path / str(use_writer), writer_process=use_writer) as store:
            if use_writer:
                up(store)
            assert evaluate(rules, text, store).value == expected_value
            if use_writer:
                writer_of(store)
            store.flush()
            assert store.admin.stats()["entries"] == len(memory)
            for key in random.Random(1).sample(sorted(memory.entries), 200):
                assert store.lookup(key) == memory.entries[key]
            dumps.append(dump(store))
    for name in dumps[0]:
        assert dumps[0][name] == dumps[1][name], name


def test_batches_before_the_child_is_up_wait_in_the_pipe_and_close_ends_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The first large batch starts the child but does not wait for it: until the child is up,
    batches go down the pipe while it has room for them (the child writes them once up), and a
    child that is not up yet when the store closes is ended then, its batches given back and
    written by the close, without the warning of a writer that failed."""
    items = nim_items(3 * WRITER_MIN)
    store = LmdbStore(tmp_path)
    store.insert_many(items[:WRITER_MIN])
    writer = store.core.writer
    assert writer is not None and not writer.dead
    if not writer.ready:  # (the child needs a Python start-up: this is the usual case)
        assert len(writer.pending) == 1, "a batch that fits in the pipe should wait there"
    assert store.lookup_many([k for k, _ in items[:WRITER_MIN]]) == [v for _, v in items[:WRITER_MIN]]
    process = writer._process
    started = time.monotonic()
    store.close()
    assert process.poll() is not None and time.monotonic() - started < 5
    assert "writing bulk batches in line" not in caplog.text
    with up(LmdbStore(tmp_path)) as again:  # nothing lost; a child that is up takes the next batches
        assert again.lookup_many([k for k, _ in items[:WRITER_MIN]]) == [v for _, v in items[:WRITER_MIN]]
        again.insert_many(items[WRITER_MIN:])
        again.flush()
        assert again.admin.stats()["entries"] == len(items)
        assert verify_store(again, sample=0, full=True).problems == []


@pytest.mark.parametrize("transport", ["file", "pipe"])
def test_a_flush_while_the_child_starts_waits_for_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     transport: str) -> None:
    """Batches sent before the child is up are committed by the child once it is: ``flush`` waits
    for them. Meanwhile they wait in the frames file (Linux's memfd: up to ``DEPTH - 1`` of them)
    or, where frames go down the pipe, while it has room: a batch too large for that is written in
    line."""
    if transport == "pipe":
        monkeypatch.setattr(store_writer, "_frames_file", lambda: None)
    items = nim_items(2 * WRITER_MIN)
    huge = nim_items(60_000, seed=5, code=3)  # (more than the 1 MiB pipe holds)
    with LmdbStore(tmp_path) as store:
        store.insert_many(items[:WRITER_MIN])
        writer = store.core.writer
        assert writer is not None
        assert (writer._frames_fd is not None) == (transport == "file" and hasattr(os, "memfd_create"))
        early = not writer.ready
        store.insert_many(huge)
        if early and not writer.ready:
            expected = 2 if writer._frames_fd is not None else 1
            assert len(writer.pending) == expected, "the large batch should wait in the file, or be written in line"
        store.insert_many(items[WRITER_MIN:])
        store.flush()
        assert not writer.pending and writer.ready and not writer.dead
        assert store.admin.stats()["entries"] == len(items) + len(huge)
        assert verify_store(store, sample=0, full=True).problems == []


def test_many_frames_through_the_file_are_committed_and_the_file_starts_over(tmp_path: Path) -> None:
    """Many batches in flight through the frames file: all committed; once none is in flight the
    next frame goes to the start of the file again."""
    batches = [nim_items(2 * WRITER_MIN, seed=s, code=4 + s) for s in range(12)]
    with up(LmdbStore(tmp_path)) as store:
        writer = writer_of(store)
        if writer._frames_fd is None:
            pytest.skip("no memfd on this system: frames go down the pipe")
        for batch in batches:
            store.insert_many(batch)
        assert writer._frames_at > 0
        store.flush()
        last = nim_items(2 * WRITER_MIN, seed=99, code=20)
        store.insert_many(last)
        assert writer._frames_at == len(pack_frame([k for k, _ in last], [2 * v for _, v in last]))
        store.flush()
        everything = [item for batch in batches + [last] for item in batch]
        assert store.lookup_many([k for k, _ in everything]) == [v for _, v in everything]
        assert verify_store(store, sample=0, full=True).problems == []


def test_recent_keeps_the_bulk_batches_and_lookups_never_read_it(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``recent`` (a CompactMemo the compiled search reads) holds what bulk batches stored, up to
    ``RECENT_LIMIT`` entries; ``lookup``/``lookup_many`` read the database (a damaged record
    still raises), and a closed store has none."""
    from ruma.server.store import bulk as store_bulk
    from ruma.server.store.codec import CorruptRecordError

    monkeypatch.setattr(store_bulk, "RECENT_LIMIT", 2 * WRITER_MIN + 10)
    items = nim_items(4 * WRITER_MIN)
    batches = [items[i:i + WRITER_MIN] for i in range(0, 3 * WRITER_MIN, WRITER_MIN)]
    assert all(len(batch) == WRITER_MIN for batch in batches)
    store = LmdbStore(tmp_path, writer_process=False)
    store.insert_many(batches[0])
    store.insert_many(batches[1])
    assert dict(store.recent.items()) == dict(batches[0] + batches[1])
    first = store.recent
    store.insert_many(batches[2])  # past the limit: a fresh one
    assert dict(store.recent.items()) == dict(batches[2])
    assert len(first) == 2 * WRITER_MIN  # (a search under way keeps reading the old one)
    small = nim_items(10, seed=9, code=4)
    store.insert_many(small)  # (a small batch goes through the buffer, not kept)
    assert all(store.recent.lookup(k) is None for k, _ in small)
    store.flush()
    victim, value = batches[2][5]
    with store.admin.env.begin(write=True) as txn:
        txn.put(victim, b"\x00garbage", db=store.admin.db("positions"))
    store.refresh()
    with pytest.raises(CorruptRecordError):
        store.lookup(victim)
    assert store.recent.lookup(victim) == value
    store.close()
    assert store.recent is None


def test_lookups_see_batches_in_flight_and_the_first_value_stays(tmp_path: Path) -> None:
    items = nim_items(3 * WRITER_MIN)
    first_key = items[0][0]
    with up(LmdbStore(tmp_path)) as store:
        store.insert(first_key, 999)
        store.flush()
        for start in range(0, len(items), WRITER_MIN):
            batch = items[start:start + WRITER_MIN]
            store.insert_many(batch)
            probe = [k for k, _ in batch[::97]]
            assert store.lookup_many(probe) == [999 if k == first_key else v for k, v in batch[::97]]
            assert store.lookup(batch[-1][0]) == batch[-1][1]
        writer_of(store)
        store.flush()
        assert not store.core.writer.pending
        assert store.lookup(first_key) == 999  # the first value stored under a key is kept
        assert store.admin.stats()["entries"] == len(items)
    with LmdbStore(tmp_path) as again:  # committed: another open sees everything
        assert again.lookup_many([k for k, _ in items]) == [999 if k == first_key else v for k, v in items]


def test_close_commits_what_is_in_flight_and_ends_the_child(tmp_path: Path) -> None:
    items = nim_items(2 * WRITER_MIN)
    store = up(LmdbStore(tmp_path))
    store.insert_many(items)
    process = writer_of(store)._process
    store.close()  # no flush first
    assert process.poll() is not None
    with LmdbStore(tmp_path) as again:
        assert again.admin.stats()["entries"] == len(items)
        assert verify_store(again, sample=0, full=True).problems == []


def test_a_killed_writer_is_an_error_and_loses_nothing(tmp_path: Path) -> None:
    items = nim_items(3 * WRITER_MIN)
    with up(LmdbStore(tmp_path)) as store:
        store.insert_many(items[:WRITER_MIN])
        writer = writer_of(store)
        store.flush()
        os.kill(writer._process.pid, signal.SIGKILL)
        writer._process.wait()
        store.insert_many(items[WRITER_MIN:])  # sent to a dead child, or written in line once it is known dead
        with pytest.raises(StoreError, match="writer process ended"):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # (the loss shows once the answer reader sees the child gone)
                store.flush()
                time.sleep(0.05)
        store.flush()  # the given-back entries, written in line
        assert store.core.writer.dead
        assert store.lookup_many([k for k, _ in items]) == [v for _, v in items]
        assert store.admin.stats()["entries"] == len(items)
        store.insert_many(nim_items(WRITER_MIN, seed=4, code=3))  # later batches: in line
        store.flush()
        assert verify_store(store, sample=0, full=True).problems == []


def test_a_failed_batch_is_raised_by_flush_and_written_by_the_next(tmp_path: Path) -> None:
    items = nim_items(2 * WRITER_MIN)
    with up(LmdbStore(tmp_path)) as store:
        store.insert_many(items[:WRITER_MIN])
        writer = writer_of(store)
        keys, values = [k for k, _ in items[WRITER_MIN:]], [v for _, v in items[WRITER_MIN:]]
        assert writer.submit(keys, values, b"not a batch")  # the child cannot unpack it: it answers an error
        with pytest.raises(StoreError, match="bulk write failed: ValueError"):
            store.flush()
        store.flush()
        assert store.lookup_many(keys) == values
        assert store.admin.stats()["entries"] == len(items)
        store.insert_many(nim_items(WRITER_MIN, seed=9, code=3))  # the child lives on
        assert store.core.writer is writer and not writer.dead
        store.flush()


def test_a_cancelled_search_leaves_correct_committed_values(tmp_path: Path) -> None:
    rules = get_ruleset("impartial-sowing")
    memory = InMemoryMemo()
    evaluate(rules, "1^11", memory)
    polls = []

    def cancel() -> bool:
        polls.append(1)
        return len(polls) > 12  # well after the first batches went to the writer

    with up(LmdbStore(tmp_path)) as store:
        with pytest.raises(CancelledError):
            evaluate(rules, "1^11", store, should_cancel=cancel)
        writer_of(store)
        store.flush()
        entries = store.admin.stats()["entries"]
        assert WRITER_MIN < entries < len(memory)
        stored = store.admin.sample(entries, raw=False)
        assert len(stored) == entries and all(memory.entries[k] == v for k, v in stored)
        assert verify_store(store, sample=0, full=True).problems == []
        assert evaluate(rules, "1^11", store).value == evaluate(rules, "1^11", InMemoryMemo()).value


def test_a_forked_process_does_not_hold_the_writers_pipe(tmp_path: Path) -> None:
    """A process forked without exec (not how ruma starts workers, but a user may) closes its copy
    of the writer's pipe: closing the store in the parent still ends the child writer."""
    items = nim_items(2 * WRITER_MIN)
    store = up(LmdbStore(tmp_path))
    store.insert_many(items)
    process = writer_of(store)._process
    pid = os.fork()
    if pid == 0:  # the forked process: sleep past the parent's close, holding whatever it inherited
        time.sleep(3)
        os._exit(0)
    try:
        started = time.monotonic()
        store.close()
        assert process.poll() is not None and time.monotonic() - started < 2.5
    finally:
        os.waitpid(pid, 0)
    with LmdbStore(tmp_path) as again:
        assert again.admin.stats()["entries"] == len(items)


def test_interning_helpers_match_store_codec() -> None:
    """``seal`` and ``encode_options`` in C (used by game interning) against ``store.codec``, and
    the option ids interning walks against the options themselves."""
    from ruma.engine.cgt import Game, nimber
    from ruma.server.store import codec

    rng = random.Random(8)
    for _ in range(2000):
        left = [rng.randrange(1 << rng.choice([3, 7, 14, 21, 40])) for _ in range(rng.randrange(6))]
        right = [rng.randrange(1 << rng.choice([3, 7, 14, 21, 40])) for _ in range(rng.randrange(6))]
        options = native.encode_options(left, right)
        assert options == codec.encode_options(left, right)
        key = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
        assert native.seal(key, options) == codec.seal(key, options)
    with pytest.raises(OverflowError):
        native.encode_options([-1], [])
    for game in (Game.from_options([Game(1)], [nimber(1)]), Game("1/2") + nimber(2), Game(0)):
        assert game.left_ids == tuple(o.id for o in game.left_options)
        assert game.right_ids == tuple(o.id for o in game.right_options)


def test_decode_nim_records_matches_store_codec() -> None:
    """The C decoding of ``lookup_many``'s hits against ``store.codec``: a sealed nim value decodes
    to it; a game, a bad checksum, a truncated or padded record is left to the Python path
    (which decodes the game or raises ``CorruptRecordError``); a miss stays ``None``."""
    from ruma.server.store import codec

    rng = random.Random(12)
    keys: list[bytes] = []
    records: list[Any] = []
    expected: list[Any] = []
    for _ in range(5000):
        key = bytes(rng.randrange(256) for _ in range(rng.randrange(3, 30)))
        is_game = rng.random() < 0.2
        number = rng.randrange(1 << rng.choice([2, 7, 20, 62]))
        record = codec.seal(key, codec.encode_entry(is_game, number, rng.choice([0, 5, 1 << 30])))
        kind = rng.random()
        if kind < 0.1:
            record = record[:-1] + bytes((record[-1] ^ 1,))  # a broken seal
        elif kind < 0.15:
            record = codec.seal(key, codec.encode_entry(False, number, 0)[:-1])  # no explored count
        elif kind < 0.2:
            record = codec.seal(key, codec.encode_entry(False, number, 0) + b"\x00")  # trailing byte
        elif kind < 0.3:
            record = None
        keys.append(key)
        records.append(record)
        try:
            if record is None:
                expected.append(None)
            else:
                game, value, _ = codec.decode_entry(codec.unseal("positions", key, record))
                expected.append(record if game else value)
        except (codec.CorruptRecordError, codec.CodecError):
            expected.append(record)  # the Python path raises on it
    decoded = native.decode_nim_records(keys, records)
    assert decoded == expected
    assert all(type(d) is int for d, e in zip(decoded, expected) if type(e) is int)
    with pytest.raises(ValueError):
        native.decode_nim_records(keys[:2], records[:3])


def test_the_frames_file_is_a_ring_of_the_frames_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames go after the newest one in flight, round to the start when the end has no room and
    the start has (the child reads them in order, and a batch leaves ``pending`` once its frame
    was read), else down the pipe (``None``); with nothing in flight, at the start. So the file
    never outgrows ``_FILE_ROOM``, however long the evaluation."""
    monkeypatch.setattr(store_writer, "_FILE_ROOM", 100)
    writer = store_writer.BulkWriter.__new__(store_writer.BulkWriter)  # (the ring's bookkeeping only)
    writer.pending, writer._frames_at = [], 0

    def send(size: int) -> int | None:
        job = store_writer.Job([], [])
        job.at = writer._place(size)
        writer.pending.append(job)
        return job.at

    assert [send(30), send(30), send(30)] == [0, 30, 60]
    assert send(30) is None  # (in flight: 0..90)
    writer.pending.pop(0)  # answered: 0..30 free
    assert send(25) == 0  # round to the start
    assert send(10) is None  # (25..30 is too small)
    writer.pending.pop(0)  # 30..60 free
    assert send(10) == 25
    writer.pending.clear()
    assert send(50) == 0 and send(50) == 50 and send(1) is None
