"""The LMDB store on its own: round trips across reopen and processes, buffer, map growth, index.

Real LMDB files in temporary directories. Games come from the CGT algebra (``Game.from_options``),
so equality of a read-back game is identity with the game that was written.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import lmdb
import pytest

from ruma.engine.cgt import DOWN, STAR, UP
from ruma.server.store import codec
from ruma.server.store.memo import LmdbStore, StoreError
from tests.support import ROOT
from tests.support.stores import game_pool


def key(code: int, i: int) -> bytes:
    return bytes((code, 1, 0)) + i.to_bytes(3, "big")


def test_round_trip_of_games_and_nim_values_across_reopen(tmp_path: Path) -> None:
    games = game_pool(150)
    with LmdbStore(tmp_path / "s", batch_size=37) as store:
        for i, g in enumerate(games):
            store.insert(key(1, i), g, explored=i)
            store.insert(key(2, i), i * 3)
    with LmdbStore(tmp_path / "s", create=False) as store:
        for i, g in enumerate(games):
            assert store.lookup(key(1, i)) is g
            assert store.entry(key(1, i)) == (g, i)
            assert store.lookup(key(2, i)) == i * 3
        assert store.lookup(key(1, 10**6)) is None
        stats = store.admin.stats()
        assert stats["entries"] == 300
        assert {(r["code"], r["entries"]) for r in stats["rulesets"]} == {(1, 150), (2, 150)}
        assert stats["games"] >= len(set(games))


def test_lookups_see_the_unflushed_buffer(tmp_path: Path) -> None:
    with LmdbStore(tmp_path, batch_size=10**6, batch_seconds=0) as store:
        store.insert(key(1, 1), UP)
        store.insert(key(2, 1), 5)
        assert store.lookup(key(1, 1)) is UP and store.lookup(key(2, 1)) == 5
        assert store.entry(key(1, 1)) is None  # not yet written
        store.flush()
        assert store.entry(key(1, 1)) == (UP, 0)


def test_first_value_inserted_is_kept(tmp_path: Path) -> None:
    with LmdbStore(tmp_path) as store:
        store.insert(key(2, 1), 4)
        store.flush()
        store.insert(key(2, 1), 4)
        store.flush()
        assert store.admin.stats()["entries"] == 1


def test_bad_values_and_missing_store(tmp_path: Path) -> None:
    with LmdbStore(tmp_path / "a") as store:
        for bad in (True, -1, 1.5, "x"):
            with pytest.raises(TypeError):
                store.insert(key(2, 1), bad)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="missing"):
        LmdbStore(tmp_path / "nowhere", create=False)


def test_the_store_is_a_store_with_its_admin_documents_and_provenance(tmp_path: Path) -> None:
    """``capabilities(store).store`` is the store itself; its ``admin``, ``documents`` and
    ``provenance`` answer while it is open and raise ``StoreError`` once it is closed."""
    from ruma.engine.memo import capabilities

    store = LmdbStore(tmp_path)
    able = capabilities(store)
    assert able.store is store and able.lookup_many is not None and able.insert_packed is not None
    store.insert(key(2, 9), 9)
    assert store.admin.stats()["buffered"] == 1 and store.documents.names() == []
    assert store.provenance.unverified_count() == 0
    store.close()
    for call in (store.admin.stats, store.documents.names, store.provenance.unverified_count):
        with pytest.raises(StoreError):
            call()


def test_one_environment_per_path_per_process(tmp_path: Path) -> None:
    a = LmdbStore(tmp_path)
    b = LmdbStore(str(tmp_path / "." ))
    assert a.admin.env is b.admin.env
    a.insert(key(2, 9), 9)
    assert b.lookup(key(2, 9)) == 9  # shared buffer
    a.close()
    assert b.lookup(key(2, 9)) == 9  # still open through b
    b.close()
    with pytest.raises(StoreError):
        b.lookup(key(2, 9))
    with LmdbStore(tmp_path) as c:
        assert c.lookup(key(2, 9)) == 9


def test_map_grows_from_a_tiny_size(tmp_path: Path) -> None:
    games = game_pool(400, seed=3)
    with LmdbStore(tmp_path, map_size=16 * 4096, batch_size=5000) as store:
        start = store.admin.stats()["map_size"]
        for i in range(6000):
            store.insert(key(2, i), i % 97, explored=i)
        for i, g in enumerate(games):
            store.insert(key(1, i), g)
        store.flush()  # one transaction far larger than the initial map
        grown = store.admin.stats()["map_size"]
    assert grown > start
    with LmdbStore(tmp_path, create=False) as store:
        assert store.lookup(key(2, 5999)) == 5999 % 97
        assert all(store.lookup(key(1, i)) is g for i, g in enumerate(games))


def test_threads_insert_and_look_up_concurrently(tmp_path: Path) -> None:
    games = game_pool(120, seed=11)
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(400):
                j = (i + offset) % 400
                store.insert(key(2, j), j)
                g = games[j % len(games)]
                store.insert(key(1, j), g)
                assert store.lookup(key(1, j)) is g
                assert store.lookup(key(2, (j * 7) % 400)) in (None, (j * 7) % 400)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    with LmdbStore(tmp_path, batch_size=64, map_size=8 * 4096) as store:
        threads = [threading.Thread(target=work, args=(k * 100,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        store.flush()
        assert store.admin.stats()["entries"] == 800
        assert all(store.lookup(key(1, j)) is games[j % len(games)] for j in range(400))


def test_positions_with_value_simplest_first(tmp_path: Path) -> None:
    states = [(3, 0, 1), (1,), (0, 2), (4,), (1, 1, 1, 1)]
    with LmdbStore(tmp_path) as store:
        for s in states:
            k = bytes((1, 1, 0)) + bytes(s)
            store.insert(k, STAR)
            store.insert(bytes((2, 1, 0)) + bytes(s), 1)
        store.insert(bytes((1, 1, 0, 9)), UP)
        found = store.positions_with_value(1, STAR, limit=3)
        assert found == [bytes((1, 1, 0)) + bytes(s) for s in [(1,), (0, 2), (4,)]]  # 4 seeds: (4,) is shorter than (3, 0, 1)
        assert len(store.positions_with_value(2, 1, limit=10)) == 5
        assert store.positions_with_value(2, 2, limit=10) == []
        assert store.positions_with_value(1, UP, limit=10) == [bytes((1, 1, 0, 9))]
        assert store.positions_with_value(1, DOWN, limit=10) == []
        assert store.positions_with_value(1, STAR, limit=10, version=2) == []


_CHILD = r"""
import json, sys
sys.path.insert(0, {root!r})
from tests.support.stores import game_pool
from ruma.server.store.memo import LmdbStore
games = game_pool(200, seed={seed})
order = list(range(len(games)))
if {reverse}:
    order.reverse()
with LmdbStore({path!r}, batch_size=16) as store:
    for i in order:
        store.insert(bytes((1, 1, 0)) + i.to_bytes(3, "big"), games[i])
    store.flush()
    ids = [store.store_game_id(g) for g in games]
    back = [store.game_by_store_id(sid) is g for sid, g in zip(ids, games)]
print(json.dumps({{"ids": ids, "back": all(back)}}))
"""


def test_store_ids_agree_across_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "s")
    runs = []
    for seed, reverse in ((5, False), (5, True), (6, False)):
        script = _CHILD.format(root=str(ROOT), seed=seed, reverse=reverse, path=path)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    assert all(run["back"] for run in runs)
    assert runs[0]["ids"] == runs[1]["ids"]  # written in another order by another process: same ids
    with LmdbStore(path, create=False) as store:
        for seed, run in ((5, runs[0]), (6, runs[2])):
            for g, sid in zip(game_pool(200, seed=seed), run["ids"]):
                assert store.store_game_id(g) == sid
                assert store.game_by_store_id(sid) is g
        # every stored game is distinct, and the index maps each back to its id
        with store.admin.env.begin() as txn:
            games = {k: codec.unseal("games", k, v) for k, v in txn.cursor(db=store.admin.db("games"))}
            index = {k: codec.unseal("game_index", k, v) for k, v in txn.cursor(db=store.admin.db("game_index"))}
        assert len(games) == len(index) == len(set(games.values()))
        for gid, options in games.items():
            assert index[codec.index_key(options, store.admin.env.max_key_size())] == gid


def test_schema_version_is_checked(tmp_path: Path) -> None:
    with LmdbStore(tmp_path) as store:
        store.insert(key(2, 1), 1)
    env = lmdb.open(str(tmp_path), max_dbs=8)
    with env.begin(write=True) as txn:
        txn.put(b"schema_version", b"999", db=env.open_db(b"meta", txn=txn))
    env.close()
    with pytest.raises(StoreError, match="schema version"):
        LmdbStore(tmp_path)


_GROWER = r"""
import sys
from ruma.server.store.memo import LmdbStore
with LmdbStore(sys.argv[1], batch_size=100000) as store:
    for i in range(30000):
        store.insert(bytes((2, 1, 0)) + i.to_bytes(3, "big"), i % 1000, explored=i)
"""


def test_a_process_copes_when_another_grows_the_map(tmp_path: Path) -> None:
    with LmdbStore(tmp_path, map_size=16 * 4096) as store:
        store.insert(key(1, 0), UP)
        store.flush()
        small = store.admin.env.info()["map_size"]
        assert store.lookup(key(2, 29999)) is None
        subprocess.run([sys.executable, "-c", _GROWER, str(tmp_path)], check=True)
        # this process still has the small map; the file is now far larger
        assert store.admin.env.info()["map_size"] == small
        deadline = time.monotonic() + 5  # lookups see other processes' commits within 50 ms
        while store.lookup(key(2, 29999)) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert store.lookup(key(2, 29999)) == 29999 % 1000
        assert store.entry(key(2, 12345)) == (12345 % 1000, 12345)
        assert store.admin.env.info()["map_size"] > small
        store.insert(key(1, 1), DOWN)  # and it still writes
        store.flush()
        assert store.admin.stats()["entries"] == 30002
    with LmdbStore(tmp_path, create=False) as store:
        assert store.lookup(key(1, 1)) is DOWN and store.lookup(key(1, 0)) is UP
