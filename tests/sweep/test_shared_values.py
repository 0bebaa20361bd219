"""SharedValues (``engine/native/shared.c``): the table of nim values a sweep's local worker
processes share, and the sweeps that use it.

Expected values come from the pure-Python reference engine (``rules.reference`` with a fresh
``InMemoryMemo``): a shared table changes which positions a search explores, never a value.
"""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing
import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.errors import CancelledError
from ruma.engine.evaluator import evaluate, value_many
from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.families.packets import RecordingMemo
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset

pytest.importorskip("ruma.engine.native._core")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("the shared table is read and written by the compiled search only", allow_module_level=True)

from ruma.client.sweep import driver as sweep_module  # noqa: E402
from ruma.client.sweep import shared as sweep_shared  # noqa: E402
from ruma.client.sweep import shared_memory  # noqa: E402
from ruma.client.sweep.driver import sweep_store  # noqa: E402
from ruma.client.sweep.shared_memory import SharedRegion, table_layout  # noqa: E402
from ruma.engine.native import _core  # noqa: E402
from tests.support.stores import contents  # noqa: E402

CODE, VERSION = 9, 1  # a prefix of no ruleset, for the table's own tests


def table(size: int = 1 << 16, slots: int = 1024) -> tuple[mmap.mmap, Any]:
    buffer = mmap.mmap(-1, size)
    return buffer, _core.SharedValues(buffer, CODE, VERSION, slots)


def key(body: bytes) -> bytes:
    return bytes((CODE, VERSION)) + body


def test_the_first_value_is_kept_and_drains_come_sorted_and_resume() -> None:
    _, t = table()
    assert t.add(key(b"\x05\x01"), 3) and not t.add(key(b"\x05\x01"), 4)
    assert t.get(key(b"\x05\x01")) == 3 and t.get(key(b"\x05\x02")) is None
    t.add(key(b"\x02"), 0)
    t.add(key(b"\x02\x00"), 7)
    entries, at = t.drain(0)
    assert entries == sorted(entries) == [(key(b"\x02"), 0), (key(b"\x02\x00"), 7), (key(b"\x05\x01"), 3)]
    assert t.drain(at) == ([], at)
    t.add(key(b"\x01"), 1)
    assert t.drain(at)[0] == [(key(b"\x01"), 1)]
    assert len(t) == 4 and t.stats()["full"] is False


def test_a_packed_drain_is_the_drain_packed_as_the_store_writer_packs_it() -> None:
    from ruma.engine.frame import pack_frame

    _, t = table()
    for i in range(300):
        t.add(key(bytes((i % 7, i // 7, i % 3))[: 1 + i % 3]), (i * 37) % 101)
    t.seal()
    entries, at = t.drain(0)
    frame, at_packed = t.drain_packed(0)
    assert at_packed == at and len(entries) > 200
    assert frame == pack_frame([k for k, _ in entries], [2 * v for _, v in entries])
    t.add(key(b"\x30\x31"), 9)
    t.seal()
    assert t.drain_packed(at)[0] == pack_frame([key(b"\x30\x31")], [18])
    assert t.drain_packed(t.drain_packed(at)[1]) == (pack_frame([], []), t.drain_packed(at)[1])


def test_another_view_of_the_memory_sees_the_values() -> None:
    buffer, t = table()
    t.add(key(b"\x04\x04"), 2)
    other = _core.SharedValues(buffer, CODE, VERSION)
    assert other.get(key(b"\x04\x04")) == 2
    other.add(key(b"\x03"), 5)
    assert t.get(key(b"\x03")) == 5


@pytest.mark.parametrize("make, message", [
    (lambda b: _core.SharedValues(b, CODE, VERSION), "holds no SharedValues table"),
    (lambda b: _core.SharedValues(b, CODE, VERSION, 1000), "power of two"),
    (lambda b: _core.SharedValues(b, CODE, VERSION, 1 << 20), "too small"),
])
def test_bad_buffers_are_refused(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make(mmap.mmap(-1, 1 << 12))


def test_bad_keys_and_values_are_refused_quoting_them() -> None:
    buffer, t = table()
    with pytest.raises(ValueError, match=r"b'\\x02\\x01\\x03'.*not of this table's ruleset"):
        t.add(b"\x02\x01\x03", 1)
    with pytest.raises(ValueError, match="not -1"):
        t.add(key(b"\x03"), -1)
    with pytest.raises(TypeError):
        t.get("text")
    with pytest.raises(ValueError, match="another ruleset"):
        _core.SharedValues(buffer, CODE + 1, VERSION)


def test_a_full_table_says_so_and_keeps_what_it_has() -> None:
    _, t = table(size=128 + 1024 * 8 + 64, slots=1024)  # 16 words of arena: a few records
    added = [t.add(key(bytes((i, i))), i) for i in range(40)]
    assert added[0] and not all(added) and t.stats()["full"] is True
    kept = t.drain(0)[0]
    assert len(kept) == sum(added) and all(value == body[2] for body, value in kept)


def test_an_open_chunk_holds_back_the_drain_until_its_process_seals_it() -> None:
    # Two views of one buffer, as two processes have: each writes its records in a chunk of its own.
    buffer, a = table()
    b = _core.SharedValues(buffer, CODE, VERSION)
    assert a.add(key(b"\x01\x01"), 1)  # (a takes chunk 0)
    assert all(b.add(key(bytes((2, i))), i) for i in range(9))  # (b takes chunk 1)
    assert len(a) == 1 and len(b) == 9  # (each counts its own keys until it seals)
    first, at = a.drain(0)
    assert first == [(key(b"\x01\x01"), 1)]  # b's keys lie after the open rest of a's chunk
    assert a.drain(at) == ([], at)
    a.seal()
    a.seal()  # (twice is once)
    rest, at = b.drain(at)
    assert rest == [(key(bytes((2, i))), i) for i in range(9)]  # now passed to b's chunk, sorted
    assert a.add(key(b"\x01\x02"), 5)  # (a sealed chunk 0: it takes chunk 2)
    assert b.drain(at) == ([], at) and len(a) == 2  # (behind the open rest of b's chunk 1; b's keys uncounted)
    b.seal()
    last, at = b.drain(at)
    assert last == [(key(b"\x01\x02"), 5)]  # (a's chunk 2 is open: the records before its rest are drained)
    assert len(b) == 10 and len(a) == 11  # (a's second key is counted when a seals)
    a.seal()
    assert a.drain(at)[0] == []
    entries, end = a.drain(0)
    assert entries == sorted(first + rest + last) and end == a.stats()["words_used"] == 3 * a.stats()["chunk_words"]
    assert len(a) == len(b) == 11


def test_two_views_adding_interleaved_keys_drain_each_key_once() -> None:
    buffer, a = table(size=1 << 18, slots=1 << 14)
    b = _core.SharedValues(buffer, CODE, VERSION)
    chunk = a.stats()["chunk_words"]
    added = 0
    for i in range(6000):  # (records of 2 words: each view fills several chunks)
        k = key(i.to_bytes(3, "big"))
        first, second = (a, b) if i % 2 else (b, a)
        added += first.add(k, i % 89)
        if i % 3 == 0:  # the same key from the other view: the first value stays
            assert not second.add(k, 88 - i % 89)
    assert added == 6000 and all(a.get(key(i.to_bytes(3, "big"))) == i % 89 for i in range(0, 6000, 7))
    partial = a.drain(0)[0]
    assert len(partial) < 6000  # (the chunk one view still has open holds back the other's)
    a.seal()
    b.seal()
    entries, end = b.drain(0)
    assert entries == [(key(i.to_bytes(3, "big")), i % 89) for i in range(6000)]
    assert len(a) == len(b) == 6000 and a.stats()["words_used"] % chunk == 0 and end <= a.stats()["words_used"]


def test_a_forked_process_does_not_write_in_its_parents_chunk() -> None:
    buffer, t = table()
    assert t.add(key(b"\x01"), 1)  # (the parent's chunk is open)
    child = os.fork()
    if child == 0:  # the child's copy of t must take a chunk of its own
        os._exit(0 if t.add(key(b"\x02"), 2) and len(t) == 1 else 1)  # (its own key: the parent has not counted)
    assert os.waitpid(child, 0)[1] == 0
    assert t.add(key(b"\x03"), 3) and len(t) == 2  # (the child's key shows once it is counted: never, it did not seal)
    t.seal()
    assert [t.get(key(bytes((i,)))) for i in (1, 2, 3)] == [1, 2, 3]
    assert t.drain(0)[0] == [(key(b"\x01"), 1), (key(b"\x02"), 2), (key(b"\x03"), 3)]


def _search_values(rules: Any, states: list[tuple[int, ...]], shared: Any) -> tuple[dict[bytes, int], int]:
    memo = RecordingMemo()
    memo.shared = shared
    computed = value_many(rules, states, memo)
    return dict(memo.entries), computed


@pytest.mark.parametrize("share", [0.0, 1.0], ids=["general", "packed"])
@pytest.mark.parametrize("ruleset, seeds", [("impartial-sowing", 8), ("impartial-atomic-wari", 7)])
def test_a_search_publishes_every_value_and_a_second_search_reads_them(ruleset: str, seeds: int, share: float) -> None:
    """(``share`` 1.0: the keys that pack go to the packed slots, the rest — the empty row — to the
    general part; 0.0: the table has no packed part.)"""
    rules = get_ruleset(ruleset)
    native = type(rules).native
    classes = enumerate_family(Family.of(ruleset, (0, seeds)))
    states = [c.state for c in classes]
    layout = table_layout(4 * len(states), 40, share)
    assert (layout.packed > 0) == (share > 0)
    buffer = mmap.mmap(-1, layout.size)
    shared = _core.SharedValues(buffer, native.code, native.version, layout.slots, layout.packed)
    found, computed = _search_values(rules, states, shared)
    reference = InMemoryMemo()
    for c in classes:  # the reference engine, class by class
        assert shared.get(c.key) == found[c.key] == evaluate(rules.reference, c.state, reference).value
    drained = dict(shared.drain(0)[0])
    assert drained == {k: v for k, v in found.items()}  # everything found was published, once
    view = _core.SharedValues(buffer, native.code, native.version)
    _, computed_again = _search_values(rules, states, view)
    assert computed > 0 and computed_again == 0  # all read from the table
    memo = RecordingMemo()
    memo.shared = view
    for c in classes[::7]:  # evaluations answered by the table alone
        evaluation = evaluate(rules, c.state, memo)
        assert evaluation.value == found[c.key] and evaluation.stats.positions_valued == 0


def test_one_table_holds_keys_of_both_parts() -> None:
    """Rows with a count of 15 or more, or longer than 16 pots, go to the general part of a table
    whose other keys are packed: the table ends up holding exactly what the reference engine
    stores, each key drained once."""
    from ruma.client.sweep.shared_memory import packable
    from tests.support.positions import counts

    rules = get_ruleset("impartial-sowing")
    native = type(rules).native
    layout = table_layout(200_000, 40, 1.0)
    buffer = mmap.mmap(-1, layout.size)
    shared = _core.SharedValues(buffer, native.code, native.version, layout.slots, layout.packed)
    memo, reference = RecordingMemo(), InMemoryMemo()
    memo.shared = shared
    for text in counts("impartial-sowing"):
        assert evaluate(rules, text, memo).value == evaluate(rules.reference, text, reference).value, text
    shared.seal()
    drained = shared.drain(0)[0]
    assert dict(drained) == reference.entries and len(drained) == len(shared)
    assert {packable(k[2:]) for k, _ in drained} == {True, False}


def test_a_shared_table_is_for_one_ruleset() -> None:
    buffer = mmap.mmap(-1, 1 << 16)
    sowing = type(get_ruleset("impartial-sowing")).native
    shared = _core.SharedValues(buffer, sowing.code, sowing.version, 1024)
    for other in ("impartial-atomic-wari", "sowing"):
        memo = RecordingMemo()
        memo.shared = shared
        with pytest.raises(ValueError, match="the values of this ruleset only"):
            value_many(get_ruleset(other), [(1, 1)], memo)


def body_of(i: int, packed: bool) -> bytes:
    """Key body number ``i``: three bytes, or (packed) 0x00 and base-14 digits with a leading 1
    (what table_pack packs)."""
    if not packed:
        return i.to_bytes(3, "big")
    digits = [1]
    for _ in range(5):
        digits.append(i % 14)
        i //= 14
    return bytes([0, *digits])


def _add_range(path: str, start: int, stop: int, packed: bool) -> int:
    region = SharedRegion.attach(path)
    t = _core.SharedValues(region.map, CODE, VERSION)
    added = sum(t.add(key(body_of(i, packed)), i % 97) for i in range(start, stop))
    del t
    region.close()
    return added


@contextlib.contextmanager
def two_process_table(packed: bool) -> Iterator[tuple[SharedRegion, Any, Any]]:
    """A table for 60,000 keys in a shared region (packed slots or none), its layout, and a pool
    of two spawned processes to add to it."""
    layout = table_layout(60_000, 8, 1.0 if packed else 0.0)
    region = SharedRegion.create(layout.size)
    assert region is not None
    try:
        t = _core.SharedValues(region.map, CODE, VERSION, layout.slots, layout.packed)
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            yield region, t, pool
        assert t.stats()["packed"] == layout.packed
        del t
    finally:
        region.close()
        region.unlink()


@pytest.mark.parametrize("packed", [False, True], ids=["general", "packed"])
def test_two_processes_adding_at_once_keep_each_key_once(packed: bool) -> None:
    with two_process_table(packed) as (region, t, pool):
        # overlapping ranges: keys 20,000..39,999 are added by both processes at about once
        added = pool.starmap(_add_range, [(region.path, 0, 40_000, packed), (region.path, 20_000, 60_000, packed)])
        assert sum(added) == 60_000 == len(t)
        entries = t.drain(0)[0]
        expected = sorted((key(body_of(i, packed)), i % 97) for i in range(60_000))
        assert entries == expected


def _add_and_drain_own(path: str, start: int, stop: int, packed: bool, every: int) -> list[bytes]:
    """Add keys ``start``..``stop``, draining this process's own values every ``every`` adds (and
    once at the end, sealed or not); the frames."""
    region = SharedRegion.attach(path)
    t = _core.SharedValues(region.map, CODE, VERSION)
    frames = []
    for i in range(start, stop):
        t.add(key(body_of(i, packed)), i % 97)
        if i % every == 0:
            frames.append(t.drain_own())
    if start:
        t.seal()
    frames.append(t.drain_own())
    frames.append(t.drain_own())  # (nothing new: an empty frame)
    del t
    region.close()
    return frames


@pytest.mark.parametrize("packed", [False, True], ids=["general", "packed"])
def test_each_process_drains_its_own_values_and_together_they_drain_each_key_once(packed: bool) -> None:
    from ruma.engine.frame import frame_count, unpack_frame

    with two_process_table(packed) as (region, t, pool):
        # overlapping ranges added at about once; drains at different paces (many chunks each)
        drained = pool.starmap(_add_and_drain_own, [(region.path, 0, 40_000, packed, 997),
                                                    (region.path, 20_000, 60_000, packed, 4999)])
        pairs = []
        for frames in drained:
            assert frame_count(frames[-1]) == 0 and len(frames) > 5
            for frame in frames:
                keys, codes = unpack_frame(frame)
                assert keys == sorted(keys)
                pairs += [(k, c // 2) for k, c in zip(keys, codes)]
        expected = sorted((key(body_of(i, packed)), i % 97) for i in range(60_000))
        assert sorted(pairs) == expected  # (every key once, its one value)
        assert t.drain(0)[0] == expected  # (the whole arena's drain reads the same records)


@pytest.mark.alone
@pytest.mark.parametrize("ruleset, seeds", [("impartial-sowing", 9), ("impartial-atomic-wari", 7)])
def test_two_workers_through_the_table_give_the_inline_store(tmp_path: Path, ruleset: str, seeds: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    family = Family.of(ruleset, (0, seeds))
    regions = Path("/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir())
    before = set(regions.glob("ruma-sweep-*"))
    used: list[int] = []
    made = shared_memory.new_table
    monkeypatch.setattr(sweep_shared, "new_table", lambda *a: used.append(1) or made(*a))  # (in this process)
    sweep_store(family, str(tmp_path / "one"), workers=1)
    two = sweep_store(family, str(tmp_path / "two"), workers=2)
    assert len(used) == 2 and two.backend == "processes" and two.entries_committed == len(contents(tmp_path / "two"))
    one_classes = enumerate_family(family)
    assert two.classes == len(one_classes) and two.raw_positions == sum(c.raw_total for c in one_classes)
    assert two.classes_valued == two.classes and two.already_stored == 0
    assert contents(tmp_path / "one") == contents(tmp_path / "two")
    assert set(regions.glob("ruma-sweep-*")) == before  # the table's memory is given back


@pytest.mark.parametrize("start, first", [("forkserver", 1000.0), ("spawn", 0.0)],
                         ids=["forked-one-commit", "spawned-every-look"])
def test_workers_forked_or_spawned_and_commits_however_spaced_give_the_inline_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: str, first: float) -> None:
    # (partizan: the drains go as shared frames, whose nodes the writer interns commit by commit)
    family = Family.of("sowing", (0, 8))
    sweep_store(family, str(tmp_path / "one"), workers=1)
    monkeypatch.setenv("RUMA_SWEEP_START", start)
    monkeypatch.setattr(sweep_shared, "COMMIT_FIRST", first)  # (1000 s: one commit, at the end; 0: one a look)
    monkeypatch.setattr(sweep_shared, "DRAIN_EVERY", 0.0005)  # (looks far apart can miss workers this quick)
    drains: list[int] = []
    drain = sweep_shared.drain_into
    monkeypatch.setattr(sweep_shared, "drain_into", lambda *a: drains.append(1) or drain(*a))
    two = sweep_store(family, str(tmp_path / "two"), workers=2)
    assert two.backend == "processes" and contents(tmp_path / "one") == contents(tmp_path / "two")
    assert (len(drains) == 1) == (first > 100)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_table_out_of_room_sends_the_rest_aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  workers: int) -> None:
    family = Family.of("impartial-sowing", (0, 9))
    monkeypatch.setattr(sweep_module, "SHARED", False)
    sweep_store(family, str(tmp_path / "reference"), workers=1)  # (the driver's dict memo)
    monkeypatch.setattr(sweep_module, "SHARED", True)
    monkeypatch.setattr(sweep_shared, "VALUES_ROOM", 0.01)  # (a few hundred values)
    summary = sweep_store(family, str(tmp_path / "small"), workers=workers)
    assert contents(tmp_path / "reference") == contents(tmp_path / "small")
    assert summary.entries_committed == len(contents(tmp_path / "small"))


def test_a_resumed_sweep_in_one_process_skips_what_is_stored(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    first = sweep_store(Family.of("impartial-atomic-wari", (0, 6)), store, workers=1)
    resumed = sweep_store(Family.of("impartial-atomic-wari", (0, 8)), store, workers=1)
    assert resumed.backend == "inline" and resumed.already_stored >= first.classes
    assert resumed.classes_valued == resumed.classes - resumed.already_stored
    fresh = sweep_store(Family.of("impartial-atomic-wari", (0, 8)), str(tmp_path / "fresh"), workers=2)
    assert contents(tmp_path / "store") == contents(tmp_path / "fresh") and fresh.already_stored == 0


def test_the_cells_way_stays_right_without_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweep_module, "SHARED", False)
    family = Family.of("impartial-atomic-wari", (0, 7))
    sweep_store(family, str(tmp_path / "one"), workers=1)
    sweep_store(family, str(tmp_path / "two"), workers=2)
    assert contents(tmp_path / "one") == contents(tmp_path / "two")


def family_region(family: Family, entries: int) -> tuple[SharedRegion, Any, sweep_shared.FamilyTask]:
    """A region with a values table and a set of keys, and the task of a lone worker on it."""
    layout = shared_memory.family_layout(entries, family.pots_max)
    made = shared_memory.new_table(family.rules, layout, layout)
    assert made is not None
    region, values, _, _ = made
    return region, values, sweep_shared.FamilyTask(family.ruleset, region.path, layout.size, None, family)


def test_a_cancelled_table_stops_a_worker_before_it_values_anything() -> None:
    family = Family.of("impartial-sowing", (0, 11))  # (its walk asks whether to stop as it goes)
    region, t, task = family_region(family, 4096)
    try:
        t.cancel()
        assert t.claim(10) == -1
        with pytest.raises(CancelledError, match="cancelled"):
            sweep_shared.value_family_part(task)
        assert len(t) == 0
        del t
    finally:
        region.close()
        region.unlink()


def test_a_worker_values_the_blocks_it_claims_and_counts_the_family() -> None:
    family = Family.of("impartial-atomic-wari", (0, 7))
    classes = enumerate_family(family)
    region, t, task = family_region(family, 4 * len(classes))
    try:
        result = sweep_shared.value_family_part(task)
        assert (result.classes, result.raw_positions) == (len(classes), sum(c.raw_total for c in classes))
        assert result.classes - result.already_stored == len(classes) == t.stats()["total"] == t.stats()["claimed"]
        reference = InMemoryMemo()
        for c in classes[::11]:
            assert t.get(c.key) == evaluate(family.rules.reference, c.state, reference).value
        del t
    finally:
        region.close()
        region.unlink()


def test_a_worker_stops_at_its_next_claim_once_cancelled() -> None:
    family = Family.of("impartial-sowing", (0, 6))  # (enumerated before the walk first asks)
    region, t, task = family_region(family, 4096)
    try:
        t.cancel()
        result = sweep_shared.value_family_part(task)
        assert result.classes > 0 and t.stats()["claimed"] == result.computed == len(t) == 0  # (no block valued)
        del t
    finally:
        region.close()
        region.unlink()


def test_classes_given_to_one_worker_go_through_a_table_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (what a census sweeping what its store lacks does: the driver has the classes already)
    family = Family.of("impartial-sowing", (0, 9))
    classes = enumerate_family(family)
    monkeypatch.setattr(sweep_module, "SHARED", False)
    sweep_store(family, str(tmp_path / "reference"), workers=1, classes=classes)
    monkeypatch.setattr(sweep_module, "SHARED", True)
    used: list[int] = []
    made = shared_memory.new_table
    monkeypatch.setattr(sweep_shared, "new_table", lambda *a: used.append(1) or made(*a))
    half = sweep_store(Family.of("impartial-sowing", (0, 7)), str(tmp_path / "table"), workers=1, classes=None)
    summary = sweep_store(family, str(tmp_path / "table"), workers=1, classes=classes)
    assert len(used) == 2 and summary.already_stored == half.classes and summary.backend == "inline"
    assert contents(tmp_path / "reference") == contents(tmp_path / "table")


def test_classes_given_to_two_workers_are_claimed_in_blocks_from_the_table(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    family = Family.of("impartial-atomic-wari", (0, 8))
    classes = enumerate_family(family)
    monkeypatch.setattr(sweep_module, "SHARED", False)
    sweep_store(family, str(tmp_path / "reference"), workers=1, classes=classes)
    monkeypatch.setattr(sweep_module, "SHARED", True)
    monkeypatch.setattr(sweep_shared, "BLOCK", 64)  # (many claims: both workers get some; read in the driver)
    half = sweep_store(Family.of("impartial-atomic-wari", (0, 6)), str(tmp_path / "table"), workers=1)
    claims: list[int] = []
    run_workers = sweep_shared._run_workers
    monkeypatch.setattr(sweep_shared, "_run_workers",
                        lambda tasks, *a: (claims.append(tasks[0].block), run_workers(tasks, *a))[1])
    summary = sweep_store(family, str(tmp_path / "table"), workers=2, classes=classes)
    assert claims == [64] and summary.backend == "processes" and summary.already_stored == half.classes
    assert summary.classes_valued == len(classes) - half.classes
    assert contents(tmp_path / "reference") == contents(tmp_path / "table")


def test_drains_of_long_keys_that_agree_in_their_first_bytes_come_sorted() -> None:
    # (runs of equal first 8 bytes, long enough for the second radix pass on bytes 8..15, with
    # bodies shorter than, as long as and longer than 16 bytes, zero bytes where padding is)
    rng = random.Random(5)
    prefixes = [bytes(rng.choice((0, 1, 7)) for _ in range(8)) for _ in range(5)]
    bodies = {rng.choice(prefixes)[:rng.randint(1, 8)] + bytes(rng.choice((0, 0, 1, 2, 200)) for _ in range(rng.randint(0, 14)))
              for _ in range(20_000)}
    layout = table_layout(2 * len(bodies), 26)
    t = _core.SharedValues(bytearray(layout.size), CODE, VERSION, layout.slots, layout.packed)
    values = {body: rng.randrange(50) for body in bodies}
    for body, value in values.items():
        assert t.add(key(body), value)
    entries, _ = t.drain(0)
    assert entries == sorted((key(body), value) for body, value in values.items())
