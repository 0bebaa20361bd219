"""Shared frames: a partizan sweep's drains, written by the store's writer process, which interns
the games their values name (``ruma.engine.frame.pack_shared``; in C ``store/interning.c`` in
``store._native.Writer``, in Python ``store.games.put_exported``, what the writer process runs
without the C writer).

What must hold, on real LMDB files and a real ``SharedGames`` table: the C writer leaves every
table byte for byte as the Python path does — over several transactions and sessions, with
games the store holds already, from a map too small (grown and retried: the ids a failed
transaction interned are dropped with it) — and every value reads back as the game published. A
frame naming a node never sent fails its whole transaction; a shared frame the writer process
fails is never lost silently (the next ``flush`` raises). Expected values come from the engine
itself: the games published are the canonical forms the compiled search found, read back
through the store's own decoder.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import random
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.evaluator import evaluate
from ruma.engine.frame import frame_codes, is_shared, pack_frame, pack_shared, unpack_shared
from ruma.engine.memo import InMemoryMemo
from ruma.server.store import writer_child
from ruma.server.store.codec import StoreError
from ruma.server.store.memo import LmdbStore
from tests.support.stores import c_writer, dump, fresh

native = pytest.importorskip("ruma.server.store._native")
core = pytest.importorskip("ruma.engine.native._core")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("the shared tables are read and written by the compiled engine only", allow_module_level=True)


def published(games: Any, texts: list[tuple[str, str]]) -> dict[bytes, tuple[int, Any]]:
    """key -> (shared id, Game) of every position valued for the positions ``texts``."""
    out: dict[bytes, tuple[int, Any]] = {}
    for ruleset, text in texts:
        memo = InMemoryMemo()
        evaluate(ruleset, text, memo)
        for key, value in memo.entries.items():
            out[key] = (games.publish(value.id), value)
    return out


def frame_of(games: Any, session: int, entries: dict[bytes, tuple[int, Any]]) -> bytes:
    keys = sorted(entries)
    inner = pack_frame(keys, [2 * entries[k][0] for k in keys])
    count = len(keys)
    return pack_shared(session, games.export(frame_codes(inner, count)), inner)


@pytest.fixture()
def games() -> Any:
    table = core.SharedGames(mmap.mmap(-1, 128 + 8 * 65536 + 4 * 2_000_000), 65536)
    yield table
    del table


def groups_of(games: Any) -> tuple[list[list[bytes]], dict[bytes, Any]]:
    """Three transactions: two sessions, a frame whose nodes were all sent before, a session whose
    nodes are all in the store already."""
    first = published(games, [("sowing", "1^8"), ("sowing", "2^4")])
    second = published(games, [("atomic-wari", "32123"), ("sowing", "31202")])
    later = published(games, [("sowing", "1^9")])
    frames = [[frame_of(games, 7, first)], [frame_of(games, 7, second), frame_of(games, 7, first)]]
    games.forget()  # a new session: every node again (the store holds them: found by the index)
    frames.append([frame_of(games, 8, later)])
    values = {k: g for part in (first, second, later) for k, (_, g) in part.items()}
    return frames, values


def python_writer(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("RUMA_STORE_WRITER", "python")
    write, close = writer_child._open(path, 64 << 20)
    monkeypatch.delenv("RUMA_STORE_WRITER")
    return write, close


def test_the_c_writer_interns_shared_frames_as_the_python_path_does(
        tmp_path: Path, games: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    groups, values = groups_of(games)
    assert all(is_shared(f) for group in groups for f in group)
    assert unpack_shared(groups[1][1])[1].nbytes == 0  # (its nodes were sent with the first frame)
    write, close = python_writer(fresh(tmp_path / "py"), monkeypatch)
    for group in groups:
        write(group, lambda: None)
    close()
    writer = c_writer(fresh(tmp_path / "c"))
    for group in groups:
        writer.write(group)
    writer.close()
    expected = dump_of(tmp_path / "py")
    assert dump_of(tmp_path / "c") == expected
    assert expected["games"] and len(expected["games"]) == len(expected["game_index"])
    with LmdbStore(tmp_path / "c", create=False, writer_process=False) as store:
        read = dict(zip(values, store.lookup_many(list(values))))
    assert read == values  # every value reads back as the canonical form published


def test_games_the_store_holds_already_keep_their_ids(tmp_path: Path, games: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    groups, values = groups_of(games)
    held = dict(list(values.items())[::7])  # (written by this process first: games interned here)
    for name in ("py", "c"):
        with LmdbStore(fresh(tmp_path / name), writer_process=False) as store:
            store.insert_many(sorted(held.items()))
    write, close = python_writer(tmp_path / "py", monkeypatch)
    for group in groups:
        write(group, lambda: None)
    close()
    writer = c_writer(tmp_path / "c")
    for group in groups:
        writer.write(group)
    writer.close()
    assert dump_of(tmp_path / "c") == dump_of(tmp_path / "py")


def test_a_map_too_small_is_grown_and_the_ids_of_the_failed_transaction_dropped(tmp_path: Path, games: Any) -> None:
    groups, values = groups_of(games)
    writer = c_writer(fresh(tmp_path / "small", map_size=1 << 16), map_size=1 << 16)
    for group in groups:
        writer.write(group)
    writer.close()
    with LmdbStore(tmp_path / "small", create=False, writer_process=False) as store:
        assert dict(zip(values, store.lookup_many(list(values)))) == values
        ids = [k for k, _ in dump(store)["games"]]
    assert ids == sorted(ids) and [int.from_bytes(k, "big") for k in ids] == list(range(len(ids)))  # none lost


def test_a_frame_naming_a_node_never_sent_fails_its_whole_transaction(tmp_path: Path, games: Any) -> None:
    entries = published(games, [("sowing", "1^7")])
    good = frame_of(games, 3, entries)
    keys = sorted(entries)
    orphan = pack_shared(4, b"", pack_frame(keys, [2 * entries[k][0] for k in keys]))  # a new session, no nodes
    reference = c_writer(fresh(tmp_path / "reference"))
    reference.write([good])
    reference.close()
    writer = c_writer(fresh(tmp_path / "c"))
    writer.write([good])
    with pytest.raises(native.WriteError, match="never sent"):
        writer.write([good, orphan])  # (the good frame again, then the orphan: nothing of either)
    with pytest.raises(ValueError, match="malformed"):
        writer.write([good[:20]])
    writer.close()
    assert dump_of(tmp_path / "c") == dump_of(tmp_path / "reference")


def test_a_shared_frame_the_writer_process_fails_is_raised_by_the_next_flush(tmp_path: Path, games: Any) -> None:
    entries = published(games, [("sowing", "1^8")])
    keys = sorted(entries)
    orphan = pack_shared(9, b"", pack_frame(keys, [2 * entries[k][0] for k in keys]))
    with LmdbStore(tmp_path / "s") as store:
        store.insert_many([(k, entries[k][1]) for k in keys[:1200]])  # (starts the writer process)
        store.flush()
        writer = store.core.writer
        assert writer is not None and writer.wait_ready(60)
        assert writer.submit_shared(orphan)
        with pytest.raises(StoreError, match="never sent"):
            store.flush()


def test_the_digest_of_long_index_keys_is_sha256() -> None:
    rng = random.Random(5)
    for n in [*range(0, 130), 511, 512, 4096, 70_001]:
        data = bytes(rng.randrange(256) for _ in range(n))
        assert native.sha256(data) == hashlib.sha256(data).digest()


def dump_of(path: Path) -> dict[str, Any]:
    """The store's tables (``test_store_bulk.dump``)."""
    with LmdbStore(path, create=False, writer_process=False) as store:
        return dump(store)


def test_a_store_without_its_writer_process_stores_a_shared_drain_as_games(tmp_path: Path, games: Any) -> None:
    entries = published(games, [("sowing", "1^9"), ("atomic-wari", "2^5")])
    keys = sorted(entries)
    frame = pack_frame(keys, [2 * entries[k][0] for k in keys])  # (as SharedValues.drain_packed packs a drain)
    with LmdbStore(tmp_path / "inline", writer_process=False) as store:
        store.insert_shared(frame, games, 11)
        store.flush()
        assert dict(zip(keys, store.lookup_many(keys))) == {k: entries[k][1] for k in keys}
