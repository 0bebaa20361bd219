"""A sweep's drains merged into its dense rewrite (``LmdbStore.close_dense(held)`` and the runs of
``hold_run``, ``_native.compact_copy``'s ``merge``) make the store that storing the drains first
and then rewriting makes: every table record for record, and the file byte for byte but for the
map size LMDB records in its two meta pages (set by whoever opened the store last: two plain
sweeps differ there too) — also into a store with no entry of the drain's ruleset yet. Where the
merge cannot be made — a key of the drain stored already, another engine version recorded, the
copy in Python — the drain is stored all the same.

The reference is the store's own path: the drain stored by ``insert_packed`` (the writer process's
puts), then ``compact_store``. The drain is the values a one-process sweep found for the classes of
impartial Sowing with 10 seeds, taken out of its store; the store merged into holds those of at most
9 seeds (so keys of both come in every part of the key space).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from ruma.client.sweep.driver import sweep_store
from ruma.engine.families.classes import Family
from ruma.engine.frame import pack_frame, unpack_frame
from ruma.server.store import codec, memo, rewrite, runs
from ruma.server.store.codec import StoreError
from ruma.server.store.memo import LmdbStore
from ruma.server.store.rewrite import compact_store
from tests.support.stores import everything

pytestmark = pytest.mark.skipif(not rewrite.can_merge(), reason="the merge is the C copy's")


def without_map_size(data: bytes) -> bytes:
    """The file with the map size of its two meta pages (bytes 32-39 of pages 0 and 1) zeroed."""
    page = 4096
    out = bytearray(data)
    for start in (32, page + 32):
        out[start:start + 8] = bytes(8)
    return bytes(out)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, int]:
    """A store of impartial Sowing <= 9 and the frame of the values <= 10 adds (sorted, nim codes)."""
    root = tmp_path_factory.mktemp("merged")
    small, large = root / "small", root / "large"
    sweep_store(Family.of("impartial-sowing", (0, 9)), str(small), workers=1)
    sweep_store(Family.of("impartial-sowing", (0, 10)), str(large), workers=1)
    held = dict(everything(small)[b"positions"])
    keys = sorted(key for key, _ in everything(large)[b"positions"] if key not in held)
    with LmdbStore(large, create=False) as store:
        values = store.lookup_many(keys)
    assert keys and all(type(v) is int for v in values)
    return small, pack_frame(keys, [2 * v for v in values]), len(keys)


def copy_of(small: Path, where: Path) -> Path:
    shutil.copytree(small, where)
    return where


def stored_first(small: Path, where: Path, frame: bytes) -> Path:
    """A copy of ``small`` with ``frame`` stored by the store's own puts (``insert_packed``)."""
    copy_of(small, where)
    with LmdbStore(where, create=False) as store:
        store.insert_packed(frame, None, False)
    return where


def dense(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every store is rewritten by ``close_dense`` (however dense it is already)."""
    monkeypatch.setattr(memo, "DENSE_RATIO", 0.0)


def test_a_merged_rewrite_is_the_store_of_the_puts_then_the_rewrite(
        made: tuple[Path, bytes, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small, frame, count = made
    dense(monkeypatch)
    reference = stored_first(small, tmp_path / "reference", frame)
    compact_store(reference, pages=False)
    merged = copy_of(small, tmp_path / "merged")
    calls: list[object] = []
    plain = rewrite._copy
    monkeypatch.setattr(rewrite, "_copy", lambda *a: calls.append(a[-1]) or plain(*a))
    assert LmdbStore(merged, create=False).close_dense(frame)
    assert calls and calls[0] is not None  # (the merge was made: no put of the frame went first)
    assert everything(merged) == everything(reference)
    assert len(everything(merged)[b"positions"]) == len(everything(small)[b"positions"]) + count
    assert without_map_size((merged / "data.mdb").read_bytes()) == without_map_size((reference / "data.mdb").read_bytes())
    assert not (merged / rewrite.WORK).exists()


def test_a_drain_the_merge_cannot_take_is_stored_first(
        made: tuple[Path, bytes, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small, frame, _ = made
    dense(monkeypatch)
    reference = stored_first(small, tmp_path / "reference", frame)
    expected = everything(reference)
    # a key of the drain stored already (the copy refuses it): stored by puts, then rewritten
    again = copy_of(reference, tmp_path / "again")
    assert LmdbStore(again, create=False).close_dense(frame)
    assert everything(again) == everything(compacted(reference))
    # the store open in this process elsewhere (no rewrite): stored by puts
    elsewhere = copy_of(small, tmp_path / "elsewhere")
    with LmdbStore(elsewhere, create=False):
        assert not LmdbStore(elsewhere, create=False).close_dense(frame)
    assert everything(elsewhere)[b"positions"] == expected[b"positions"]  # (closed: LMDB reads it)
    # another engine version recorded (the puts would change it): no plan
    other = copy_of(small, tmp_path / "other")
    with LmdbStore(other, create=False) as store:
        with store.core.env.begin(write=True) as txn:
            txn.put(b"engine_version", codec.seal(b"engine_version", b"0.0.0-other"), db=store.core.dbs["meta"])
    assert rewrite.merge_plan(other, frame) is None
    assert rewrite.merge_plan(small, frame) is not None


def test_a_drain_into_a_store_without_its_ruleset_is_merged_as_its_puts_would_be(
        made: tuple[Path, bytes, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, frame, count = made
    dense(monkeypatch)
    LmdbStore(tmp_path / "empty").close()
    reference = stored_first(tmp_path / "empty", tmp_path / "reference", frame)
    compact_store(reference, pages=False)
    merged = copy_of(tmp_path / "empty", tmp_path / "merged")
    calls: list[object] = []
    plain = rewrite._copy
    monkeypatch.setattr(rewrite, "_copy", lambda *a: calls.append(a[-1]) or plain(*a))
    assert LmdbStore(merged, create=False).close_dense(frame)
    assert calls and calls[0] is not None  # (merged: the ruleset's name, count and engine version made first)
    assert everything(merged) == everything(reference) and len(everything(merged)[b"positions"]) == count
    assert without_map_size((merged / "data.mdb").read_bytes()) == without_map_size((reference / "data.mdb").read_bytes())


def compacted(path: Path) -> Path:
    compact_store(path, pages=False)
    return path


def test_a_sweep_merges_its_runs_into_its_rewrite_and_stores_what_one_process_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ruma.client.cli import main

    sweep_store(Family.of("impartial-sowing", (0, 11)), str(tmp_path / "one"), workers=1)
    merges: list[object] = []
    plain = rewrite._copy
    monkeypatch.setattr(rewrite, "_copy", lambda *a: merges.append(a[-1]) or plain(*a))
    frames: list[int] = []
    read = runs.Runs.frames
    monkeypatch.setattr(runs.Runs, "frames", lambda self: frames.append(len(got := read(self))) or got)
    puts: list[object] = []
    insert_packed = LmdbStore.insert_packed
    monkeypatch.setattr(LmdbStore, "insert_packed", lambda self, *a: puts.append(1) or insert_packed(self, *a))
    data = tmp_path / "two"
    assert main(["sweep", "impartial-sowing", "--seeds", "11", "--data", str(data), "--workers", "2",
                 "--no-progress", "--json"]) == 0
    # (the workers wrote their runs; the driver put none, and merged them all into the rewrite)
    assert frames and frames[0] >= 2 and merges and merges[-1] is not None and not puts, (frames, merges, len(puts))
    assert everything(data)[b"positions"] == everything(tmp_path / "one")[b"positions"]
    assert not list((data / runs.FOLDER).glob("*.run"))


def test_runs_merged_as_the_copy_goes_make_the_file_of_their_one_frame(
        made: tuple[Path, bytes, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small, frame, count = made
    dense(monkeypatch)
    reference = copy_of(small, tmp_path / "reference")
    assert LmdbStore(reference, create=False).close_dense(frame)  # (one frame: test above)
    keys, codes = unpack_frame(frame)
    rng = random.Random(11)
    dealt: list[list[int]] = [[] for _ in range(7)]
    for i in range(count):
        dealt[rng.randrange(7)].append(i)
    parts = [pack_frame([keys[i] for i in part], [codes[i] for i in part]) for part in dealt]
    merged = copy_of(small, tmp_path / "merged")
    store = LmdbStore(merged, create=False)
    for part in parts:
        store.hold_run(part)  # (as a sweep's drains: runs, merged by the copy from a heap of their next keys)
    calls: list[object] = []
    plain = rewrite._copy
    monkeypatch.setattr(rewrite, "_copy", lambda *a: calls.append(a[-1]) or plain(*a))
    assert store.close_dense()
    assert calls and calls[0] is not None and len(calls[0][0]) == 7  # (merged: the runs as they are)
    assert without_map_size((merged / "data.mdb").read_bytes()) == without_map_size((reference / "data.mdb").read_bytes())


def test_runs_that_share_a_key_are_refused_by_the_merging_copy_and_stored_instead(
        made: tuple[Path, bytes, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small, frame, _ = made
    dense(monkeypatch)
    keys, codes = unpack_frame(frame)
    half = len(keys) // 2
    first, second = pack_frame(keys[:half + 1], codes[:half + 1]), pack_frame(keys[half:], codes[half:])
    plan = rewrite.merge_plan(copy_of(small, tmp_path / "planned"), [first, second])
    assert plan is not None
    (tmp_path / "copy").mkdir()
    with pytest.raises(StoreError, match="a key is in two"):
        rewrite._copy(tmp_path / "planned", tmp_path / "copy", None, merge=plan)
    reference = stored_first(small, tmp_path / "reference", frame)
    store = LmdbStore(copy_of(small, tmp_path / "both"), create=False)
    store.hold_run(first)
    store.hold_run(second)
    assert store.close_dense()  # (no merge: the runs stored, then the store rewritten)
    assert everything(tmp_path / "both")[b"positions"] == everything(reference)[b"positions"]
