"""The store's games (``server/store/games.py``) on the compiled game kernel.

``data/store-v2`` is a schema-2 store written by ruma 0.1.0 on the pure-Python kernel (Sowing,
Atomic Wari and impartial Sowing positions, 413 games). It must open and read identically: every
key the evaluator stores for its positions reads the value evaluated now (the same ``Game``
object), its full verify passes, and writing those values again finds every game already there
(same store ids). Writing and reading a partizan value makes no ``Game`` object for its followers.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ruma.engine.cgt import Game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.server.store.memo import LmdbStore
from ruma.server.store.verify import verify_store

V2_STORE = Path(__file__).parent / "data" / "store-v2"
V2_POSITIONS = [("sowing", "1^8"), ("sowing", "2^4"), ("sowing", "31202"), ("atomic-wari", "2^5"),
                ("atomic-wari", "32123"), ("impartial-sowing", "2^4")]


def reference() -> dict[bytes, Game | int]:
    memo = InMemoryMemo()
    for ruleset, position in V2_POSITIONS:
        evaluate(ruleset, position, memo)
    return dict(memo.entries)


def test_a_store_written_before_reads_identically(tmp_path: Path) -> None:
    shutil.copytree(V2_STORE, tmp_path / "v2")
    expected = reference()
    with LmdbStore(tmp_path / "v2", create=False) as store:
        stats = store.stats()
        assert stats["entries"] == len(expected) == 1716 and stats["games"] == 413
        for key, value in expected.items():
            found = store.lookup(key)
            assert found is value if isinstance(value, Game) else found == value, key
        assert verify_store(store, sample=2000, full=True).ok
        store.insert_many(sorted(expected.items()))  # the same values again: no new game
        store.flush()
        assert store.stats()["games"] == 413 and store.stats()["entries"] == 1716


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
    written = store.stats()["games"]
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
