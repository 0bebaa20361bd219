"""The store's games (``server/store/games.py``) on the compiled game kernel.

``data/store-v2`` is a store written by ruma 0.1.0 on the pure-Python kernel (its README). It must
open and read identically on the kernel in use: every stored position reads the value evaluated
now (the same ``Game`` object), and writing those values again finds every game already there
(the same store ids, no new record). Writing and reading a partizan value makes no ``Game``
object for its followers.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import lmdb
import pytest

from ruma.engine.cgt import Game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.server.store.keys import state_of_key
from ruma.server.store.memo import LmdbStore
from tests.support import DATA

pytestmark = pytest.mark.both_engines


V2_STORE = DATA / "store-v2"


def stored_keys(path: Path) -> list[bytes]:
    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=16)
    try:
        with env.begin() as txn:
            return list(txn.cursor(db=env.open_db(b"positions", txn=txn, create=False)).iternext(values=False))
    finally:
        env.close()


def test_a_store_written_before_reads_identically(tmp_path: Path) -> None:
    shutil.copytree(V2_STORE, tmp_path / "v2")
    keys = stored_keys(tmp_path / "v2")
    memo = InMemoryMemo()
    expected: dict[bytes, Game | int] = {}
    for key in keys:
        rules, state = state_of_key(key)
        expected[key] = evaluate(rules, state, memo).value
    with LmdbStore(tmp_path / "v2", create=False) as store:
        stats = store.admin.stats()
        assert stats["entries"] == len(expected) > 4000 and stats["games"] > 100
        for key, value in expected.items():
            found = store.lookup(key)
            assert found is value if isinstance(value, Game) else found == value, key
        store.insert_many(sorted(expected.items()))  # the same values again: no new game
        store.flush()
        assert (store.admin.stats()["games"], store.admin.stats()["entries"]) == (stats["games"], stats["entries"])


FRESH = r"""
import sys
from ruma.engine.cgt.game import KERNEL
from ruma.engine.evaluator import evaluate
from ruma.server.store.memo import LmdbStore

value = evaluate("sowing", "1^12").value  # the compiled search and its CompactMemo hold ids
objects = KERNEL.cache_info()["objects"]
with LmdbStore(sys.argv[1]) as store:
    store.insert(b"\x01\x01test", value)
    store.flush()
    written = store.admin.stats()["games"]
with LmdbStore(sys.argv[1], create=False) as store:
    assert store.lookup(b"\x01\x01test") is value
made = KERNEL.cache_info()["objects"] - objects
print(value.birthday, written, made)
"""


def test_writing_and_reading_a_partizan_value_makes_no_object_per_follower(tmp_path: Path) -> None:
    # in a fresh process: no other test has made objects of these games
    out = subprocess.run([sys.executable, "-c", FRESH, str(tmp_path / "store")], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    birthday, written, made = map(int, out.stdout.split())
    assert birthday == 12 and written > 30  # a deep value, many games written and read back
    assert made == 0  # no object for any follower
