"""The store writer process's transactions in C (``store._native.Writer``, server/store/lmdb.c, on
the LMDB in third_party/lmdb) against the store's own bulk write through py-lmdb
(``BulkOps.write_codes``, what the writer process runs without it), on real LMDB files.

What must hold: every table ends byte for byte as the py-lmdb path leaves it — positions records
(keys past the table's end through LMDB's append path), the entry counts and the names of
rulesets new to the store — with keys already stored kept (the first value stays), over several
transactions, with frames joined
to a transaction by ``more()``, from a map far too small (grown and retried) and after another
process grew the map. A malformed frame or a damaged count fails the whole transaction: nothing
of it is stored.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.frame import pack_frame
from ruma.server.store.memo import LmdbStore
from ruma.server.store.writer import unpack
from tests.support.stores import c_writer, dump, fresh

native = pytest.importorskip("ruma.server.store._native")


def made_up_frames(seed: int) -> list[list[bytes]]:
    """Groups of frames (sorted keys with value codes): two rulesets' one-byte-a-pot keys, text
    bodies (tag 1), keys near LMDB's limit, and keys stored already."""
    rng = random.Random(seed)

    def frame(n: int, prefixes: list[bytes]) -> tuple[bytes, list[bytes]]:
        items: dict[bytes, int] = {}
        for _ in range(n):
            prefix = rng.choice(prefixes)
            shape = rng.random()
            if shape < 0.8:
                key = prefix + b"\x00" + bytes(rng.randrange(0, 30) for _ in range(rng.randrange(1, 14)))
            elif shape < 0.9:
                key = prefix + b"\x01" + ",".join(str(rng.randrange(-400, 400)) for _ in range(rng.randrange(1, 5))).encode()
            else:
                key = prefix + b"\x00" + bytes(rng.randrange(0, 3) for _ in range(rng.randrange(490, 509)))
            items[key] = rng.choice([0, 2, 4, 6, 2 * 300, 2 * 70000 + 1, 3])
        keys = sorted(items)
        return pack_frame(keys, [items[k] for k in keys]), keys

    first, _ = frame(3000, [b"\x04\x01"])
    second, _ = frame(2000, [b"\x04\x01", b"\x02\x01"])
    stored_keys, stored_codes = unpack(first)
    again = pack_frame(stored_keys[::5], stored_codes[::5])  # stored already (a batch given back and sent again)
    third, _ = frame(1500, [b"\xc8\x01"])  # a code no ruleset has: its name is ""
    return [[first], [second, again], [third]]


def with_py_lmdb(path: Path, groups: list[list[bytes]]) -> dict[str, Any]:
    with LmdbStore(fresh(path), writer_process=False) as store:
        for group in groups:
            jobs = [unpack(frame) for frame in group]
            store.core._write(lambda txn: [store.core.write_codes(txn, keys, codes) for keys, codes in jobs])
        return dump(store)


def stored(path: Path) -> dict[str, Any]:
    with LmdbStore(path, create=False, writer_process=False) as store:
        return dump(store)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_c_writer_writes_what_py_lmdb_writes(tmp_path: Path, seed: int) -> None:
    groups = made_up_frames(seed)
    expected = with_py_lmdb(tmp_path / "py", groups)
    writer = c_writer(fresh(tmp_path / "c"))
    added = [writer.write(group) for group in groups]
    writer.close()
    got = stored(tmp_path / "c")
    for name in expected:
        assert got[name] == expected[name], name
    meta = dict(got["meta"])
    assert meta[b"ruleset/\x04\x01"][:-4] == b"impartial-atomic-wari" and meta[b"ruleset/\xc8\x01"][:-4] == b""
    assert sum(added) == len(got["positions"]) and added[1] < sum(len(unpack(f)[0]) for f in groups[1])
    assert any(k[2] == 1 for k, _ in got["positions"])  # (text bodies)
    assert any(len(k) > 490 for k, _ in got["positions"])  # (keys near LMDB's limit)


def test_frames_joined_by_more_are_one_transaction_and_grow_a_small_map(tmp_path: Path) -> None:
    groups = made_up_frames(3)
    flat = [frame for group in groups for frame in group]
    expected = with_py_lmdb(tmp_path / "py", [flat])
    path = fresh(tmp_path / "c", map_size=64 << 10)
    writer = c_writer(path, map_size=64 << 10)
    waiting = flat[1:]
    given: list[bytes] = []

    def more() -> bytes | None:
        if waiting and len(given) < 2:
            given.append(waiting.pop(0))
            return given[-1]
        return None

    writer.write(flat[:1], more, 3)
    assert given == flat[1:3]
    writer.write(waiting, more, 1)  # (most below the frames given: none joins)
    assert given == flat[1:3]
    writer.close()
    got = stored(path)
    for name in expected:
        assert got[name] == expected[name], name


def test_a_map_another_process_grew_is_adopted(tmp_path: Path) -> None:
    path = fresh(tmp_path / "store", map_size=64 << 10)
    writer = c_writer(path, map_size=64 << 10)
    grow = ("import sys; from ruma.server.store.memo import LmdbStore\n"
            "with LmdbStore(sys.argv[1], writer_process=False) as s:\n"
            "    s.insert_many([(bytes((2, 1, 0)) + i.to_bytes(4, 'big'), 1) for i in range(20000)])\n")
    subprocess.run([sys.executable, "-c", grow, str(path)], check=True, timeout=120)
    groups = made_up_frames(4)
    for group in groups:
        writer.write(group)
    writer.close()
    positions = dict(stored(path)["positions"])
    assert len(positions) > 20000
    assert all(key in positions for group in groups for frame in group for key in unpack(frame)[0])


def test_a_malformed_frame_or_a_damaged_count_fails_the_whole_transaction(tmp_path: Path) -> None:
    path = fresh(tmp_path / "store")
    good = made_up_frames(5)[0][0]
    writer = c_writer(path)
    with pytest.raises(ValueError, match="malformed batch"):
        writer.write([good, good[:-1]])
    with pytest.raises(TypeError):
        writer.write([good, "not bytes"])
    writer.close()
    assert stored(path)["positions"] == []
    with LmdbStore(path, writer_process=False) as store:
        with store.admin.env.begin(write=True) as txn:
            txn.put(b"count/\x04\x01", b"\x00" * 12, db=store.admin.db("meta"))  # a count whose checksum fails
    writer = c_writer(path)
    with pytest.raises(native.WriteError, match="damaged meta record count/0401"):
        writer.write([good])
    writer.close()
    assert stored(path)["positions"] == []
    with pytest.raises(native.WriteError, match="cannot open the LMDB store"):
        c_writer(tmp_path / "nowhere")
