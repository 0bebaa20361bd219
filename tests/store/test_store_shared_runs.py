"""A partizan sweep's runs: shared frames (``ruma.engine.frame.pack_shared``) its workers write
beside the store, whose nodes the store interns into its games when it merges them into its dense
rewrite (``store.runs.intern_runs``, ``LmdbStore.close_dense``) or adopts them after a kill
(``store.runs.adopt``, ``store_payload``).

What must hold, on real LMDB files and a real ``SharedGames`` table: the C interning
(``_native.Writer.write`` of the nodes, then ``translate``) leaves the store and the frames
exactly as the Python path does; a store whose runs are merged is the store the store's writer
process makes of the same shared frames, then rewritten — every table record for record; a
killed sweep's runs are adopted with every value read back as the canonical form published; a
run naming a node no earlier run of its session gave is left, with a warning. Expected values
come from the engine itself (the canonical forms the search found) and from the store's own
writer path, which ``test_store_shared_frames`` compares with the Python reference.
"""

from __future__ import annotations

import mmap
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.frame import pack_frame, pack_shared, unpack_frame, write_run
from ruma.server.store import memo, rewrite, runs
from ruma.server.store.memo import LmdbStore
from ruma.server.store.rewrite import compact_store
from tests.store.test_store_shared_frames import frame_of, published
from tests.support.stores import c_writer, everything, fresh

native = pytest.importorskip("ruma.server.store._native")
core = pytest.importorskip("ruma.engine.native._core")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("the shared tables are read and written by the compiled engine only", allow_module_level=True)


@pytest.fixture()
def made() -> tuple[list[bytes], dict[bytes, Any]]:
    """Three runs of Sowing in two sessions (no key in two of them) and the games their values name."""
    games = core.SharedGames(mmap.mmap(-1, 128 + 8 * 65536 + 4 * 2_000_000), 65536)
    first = published(games, [("sowing", "1^8"), ("sowing", "2^4")])
    second = {k: v for k, v in published(games, [("sowing", "4013"), ("sowing", "31202")]).items()
              if k not in first}
    payloads = [frame_of(games, 7, first), frame_of(games, 7, second)]
    games.forget()  # (another session: its nodes again; the store finds them through its index)
    later = {k: v for k, v in published(games, [("sowing", "1^9")]).items() if k not in first and k not in second}
    payloads.append(frame_of(games, 8, later))
    values = {k: g for part in (first, second, later) for k, (_, g) in part.items()}
    del games
    return payloads, values


def values_of(path: Path, keys: list[bytes]) -> dict[bytes, Any]:
    with LmdbStore(path, create=False, writer_process=False) as store:
        return dict(zip(keys, store.lookup_many(keys)))


def test_runs_are_interned_in_c_as_in_python(tmp_path: Path, made: tuple[list[bytes], dict[bytes, Any]],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    payloads, values = made
    in_c = runs.intern_runs(fresh(tmp_path / "c"), payloads)
    monkeypatch.setenv("RUMA_STORE_WRITER", "python")
    in_python = runs.intern_runs(fresh(tmp_path / "py"), payloads)
    assert in_c == in_python
    assert everything(tmp_path / "c") == everything(tmp_path / "py")
    assert everything(tmp_path / "c")[b"positions"] == []  # (the games alone: the positions go to the merge)
    keys, codes = unpack_frame(in_c[0])
    assert all(code & 1 for code in codes)  # (the store's own codes: 2 * store id + 1)
    with LmdbStore(tmp_path / "c", create=False, writer_process=False) as store:
        assert [store.game_by_store_id(code >> 1) for code in codes] == [values[k] for k in keys]


def test_a_workers_interner_gives_what_the_runs_interning_gives(tmp_path: Path,
                                                               made: tuple[list[bytes], dict[bytes, Any]]) -> None:
    payloads, _ = made
    expected = runs.intern_runs(fresh(tmp_path / "runs"), payloads)
    with LmdbStore(fresh(tmp_path / "interned")) as store:
        factory = store.shared_interner()
    assert factory is not None and pickle.loads(pickle.dumps(factory)) is factory
    interner = factory(str(tmp_path / "interned"))  # (pickled by reference to a worker, and called there)
    assert interner is not None
    try:
        assert [interner(payload) for payload in payloads] == expected
    finally:
        interner.close()
    assert everything(tmp_path / "interned") == everything(tmp_path / "runs")


def test_merged_runs_make_the_store_the_writer_makes_of_them(tmp_path: Path, made: tuple[list[bytes], dict[bytes, Any]],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    payloads, values = made
    monkeypatch.setattr(memo, "DENSE_RATIO", 0.0)  # (every store rewritten by close_dense)
    reference = fresh(tmp_path / "reference")
    writer = c_writer(reference)
    writer.write(payloads[:2])
    writer.write(payloads[2:])
    writer.close()
    compact_store(reference, pages=False)
    store = LmdbStore(fresh(tmp_path / "merged"))
    folder = store.runs_folder()
    assert folder is not None
    for number, payload in enumerate(payloads):
        write_run(Path(folder) / f"{100 + number}-w00000001.run", payload)
    calls: list[object] = []
    plain = rewrite._copy
    monkeypatch.setattr(rewrite, "_copy", lambda *a: calls.append(a[-1]) or plain(*a))
    assert store.close_dense()
    assert calls and calls[0] is not None  # (merged: no put of the runs' positions went first)
    assert everything(tmp_path / "merged") == everything(reference)
    assert not list(Path(folder).glob("*.run"))
    assert values_of(tmp_path / "merged", list(values)) == values


def test_runs_with_the_store_open_elsewhere_are_stored_without_a_rewrite(
        tmp_path: Path, made: tuple[list[bytes], dict[bytes, Any]]) -> None:
    payloads, values = made
    store = LmdbStore(fresh(tmp_path / "elsewhere"))
    folder = store.runs_folder()
    assert folder is not None
    for number, payload in enumerate(payloads):
        write_run(Path(folder) / f"{100 + number}-w00000001.run", payload)
    with LmdbStore(tmp_path / "elsewhere", create=False):
        assert not store.close_dense()
    assert values_of(tmp_path / "elsewhere", list(values)) == values


def test_a_killed_sweeps_shared_runs_are_adopted_and_an_orphan_node_left(
        tmp_path: Path, made: tuple[list[bytes], dict[bytes, Any]], caplog: pytest.LogCaptureFixture) -> None:
    payloads, values = made
    data = fresh(tmp_path / "data")
    folder = data / runs.FOLDER
    folder.mkdir()
    for number, payload in enumerate(payloads):  # (one process's runs, in the order written; no one holds them)
        write_run(folder / f"100-w{number + 1:08d}.run", payload)
    keys, codes = unpack_frame(payloads[0][16 + 4 * int.from_bytes(payloads[0][12:16], "little"):])
    orphan = pack_shared(9, b"", pack_frame(keys, codes))  # (a session none of whose nodes was written)
    write_run(folder / "200-w00000001.run", orphan)
    assert runs.pending(data) == {"files": 4, "entries": len(values) + len(keys), "held": False}  # (counted past the nodes)
    with LmdbStore(data, create=False) as store:
        assert store.adopt_runs() == len(values)
    assert values_of(data, list(values)) == values
    assert [path.name for path in folder.glob("*.run")] == ["200-w00000001.run"]
    assert "never sent" in caplog.text
