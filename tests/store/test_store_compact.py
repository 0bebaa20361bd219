"""``ruma store compact``: the store rewritten densely holds every record it held, in no more file.

The store is one a sweep wrote (impartial Sowing of at most 11 seeds, partizan Sowing of at most
6: nim values and games); LMDB itself reads every table before and after and they must be equal.
A compaction stopped half-way (by an interruption between its transactions, or between the two
renames of its swap) is finished by the next run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ruma.client.cli import main
from ruma.client.sweep.driver import sweep_store
from ruma.engine.families.classes import Family
from ruma.server.store import rewrite
from ruma.server.store.codec import StoreError
from ruma.server.store.memo import DENSE_FILL, DENSE_RATIO, LmdbStore
from ruma.server.store.page_file import PageFile
from ruma.server.store.rewrite import compact_store
from tests.support.stores import everything


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[bytes, Any]]:
    path = tmp_path_factory.mktemp("compact") / "store"
    sweep_store(Family.of("impartial-sowing", (0, 11)), str(path), workers=1)
    sweep_store(Family.of("sowing", (0, 6)), str(path), workers=1)
    return path, everything(path)


def copy_of(swept: tuple[Path, Any], where: Path) -> Path:
    store = where / "store"
    store.mkdir(parents=True)
    shutil.copyfile(swept[0] / "data.mdb", store / "data.mdb")
    return store


def test_compact_keeps_every_record(swept: tuple[Path, dict[bytes, Any]], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    store = copy_of(swept, tmp_path)
    before = (store / "data.mdb").stat().st_size
    assert main(["store", "compact", "--data", str(store), "--json", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert everything(store) == swept[1]
    after = (store / "data.mdb").stat().st_size
    assert report["bytes_before"] == before and report["bytes_after"] == after <= before  # (a sparse store shrinks: below)
    assert report["records"][b"positions".decode()] == len(swept[1][b"positions"])
    assert not (store / rewrite.WORK).exists()
    assert main(["store", "verify", "--full", "--data", str(store)]) == 0


def test_a_compaction_stopped_half_way_is_finished_by_the_next_run(swept: tuple[Path, dict[bytes, Any]],
                                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = copy_of(swept, tmp_path)
    monkeypatch.setattr(rewrite, "CHUNK", 10_000)

    stopped_at: list[int] = []

    def stop(done: int) -> None:
        if done >= 60_000:
            stopped_at.append(done)
            raise KeyboardInterrupt  # (as a Ctrl-C between two of its transactions)

    with pytest.raises(KeyboardInterrupt):
        compact_store(store, stop)
    assert (store / rewrite.WORK / "new" / "data.mdb").is_file() and everything(store) == swept[1]
    seen: list[int] = []
    report = compact_store(store, seen.append)
    total = sum(len(records) for records in swept[1].values())
    assert report.resumed and seen[-1] == total - stopped_at[0]  # (went on after what it had put)
    assert everything(store) == swept[1]
    # stopped between the renames of the swap: the next run puts the verified copy in place
    again = copy_of(swept, tmp_path / "again")
    real = os.replace
    calls: list[Any] = []

    def interrupted(a: Any, b: Any) -> None:
        calls.append((a, b))
        if len(calls) == 4:  # (two writes of the state file, then the swap's two renames)
            raise KeyboardInterrupt
        real(a, b)

    monkeypatch.setattr(rewrite.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        compact_store(again)
    monkeypatch.setattr(rewrite.os, "replace", real)
    assert not (again / "data.mdb").exists()
    assert compact_store(again).resumed
    assert everything(again) == swept[1]


def test_compact_refuses_a_store_in_use(swept: tuple[Path, dict[bytes, Any]], tmp_path: Path) -> None:
    store = copy_of(swept, tmp_path)
    with LmdbStore(store, create=False):
        with pytest.raises(StoreError, match="open in another process"):
            compact_store(store)


def test_a_sweep_leaves_its_store_dense(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``ruma sweep`` rewrites the store it wrote densely when it ends (its commits, each spread over
    the key space, leave the file mostly pages freed for reuse); not a store another process has open."""
    data = tmp_path / "data"
    assert main(["sweep", "impartial-sowing", "--seeds", "11", "--data", str(data), "--workers", "1", "--no-progress"]) == 0
    assert main(["store", "stats", "--data", str(data), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out.splitlines()[-1])
    # (dense as the sweep's close promises: it rewrites a store past these bounds, keeps one within)
    assert stats["entries"] == 174877 and stats["bytes"] <= DENSE_RATIO * stats["data_bytes"]
    assert stats["file_bytes_per_entry"] <= 40
    with PageFile(data / "data.mdb") as pages:
        assert pages.leaf_fill() >= DENSE_FILL
    other = tmp_path / "other"  # (the same values put in random order, 5,000 a transaction, while an old
    # snapshot is read: no freed page can be reused, as when readers keep up with a sweep's commits)
    with LmdbStore(data, create=False) as swept_store:
        keys = [key for key, _ in swept_store.admin.sample(200_000, seed=1)]
        values = swept_store.lookup_many(keys)
    with LmdbStore(other, batch_size=5000, batch_seconds=0, writer_process=False) as sparse:
        sparse.insert(keys[0], values[0])
        sparse.flush()
        reader = sparse.admin.env.begin()
        for key, value in zip(keys, values):
            sparse.insert(key, value)
        sparse.flush()
        reader.abort()
    before = (other / "data.mdb").stat().st_size
    with LmdbStore(other, create=False) as elsewhere:  # (this process: another handle keeps it open)
        assert not LmdbStore(other, create=False).close_dense()
        stats = elsewhere.admin.stats()
    assert (other / "data.mdb").stat().st_size == before
    from ruma.server.store import memo

    monkeypatch.setattr(memo, "DENSE_RATIO", 0.99 * stats["bytes"] / stats["data_bytes"])  # (this store: just past it)
    monkeypatch.setattr(memo, "DENSE_FILL", 0.0)  # (however full its pages)
    assert LmdbStore(other, create=False).close_dense() and (other / "data.mdb").stat().st_size < before
