"""A sweep's drains kept as runs beside the store (``store.runs``, ``LmdbStore.hold_run``): the C
merge of runs against the Python one, a run's checks, and what becomes of runs when their sweep
closes the store, is killed, or meets another sweep holding the store's runs."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ruma.engine.frame import pack_frame, read_run, unpack_frame, write_run
from ruma.server.store import runs
from ruma.server.store.bulk import _NATIVE
from ruma.server.store.memo import LmdbStore
from tests.support.stores import everything

PREFIX = bytes([0x02, 0x01])  # (impartial Sowing's code and version: keys the store takes)


def frames_of(rng: random.Random, parts: int, count: int) -> list[bytes]:
    """``count`` distinct keys of random lengths dealt at random into ``parts`` sorted frames."""
    keys: set[bytes] = set()
    while len(keys) < count:
        keys.add(PREFIX + bytes(rng.randrange(4) for _ in range(rng.randint(1, 12))))
    dealt: list[list[bytes]] = [[] for _ in range(parts)]
    for key in keys:
        dealt[rng.randrange(parts)].append(key)
    return [pack_frame(sorted(part), [2 * rng.randrange(9) for _ in part]) for part in dealt]


@pytest.mark.skipif(not hasattr(_NATIVE, "merge_frames"), reason="the store's compiled module is not built")
@pytest.mark.parametrize("parts, count", [(1, 0), (1, 50), (2, 300), (7, 1000), (40, 2000)])
def test_the_c_merge_is_the_python_merge(parts: int, count: int) -> None:
    frames = frames_of(random.Random(parts * 1000 + count), parts, count)
    merged = _NATIVE.merge_frames(frames)
    assert merged == runs.merge_frames_python(frames)
    keys, _ = unpack_frame(merged)
    assert len(keys) == count and keys == sorted(keys)


@pytest.mark.skipif(not hasattr(_NATIVE, "merge_frames"), reason="the store's compiled module is not built")
def test_runs_that_overlap_are_out_of_order_or_cut_short_are_refused() -> None:
    a = pack_frame([PREFIX + b"\x01", PREFIX + b"\x03"], [2, 4])
    for bad in ([a, pack_frame([PREFIX + b"\x03"], [6])],  # a key in two runs
                [pack_frame([PREFIX + b"\x03", PREFIX + b"\x01"], [2, 4])]):  # out of order
        with pytest.raises(ValueError, match="not sorted, or a key is in two"):
            _NATIVE.merge_frames(bad)
        with pytest.raises(ValueError, match="not sorted, or a key is in two"):
            runs.merge_frames_python(bad)
    with pytest.raises(ValueError, match="run 1 of 2 is not a whole batch frame"):
        _NATIVE.merge_frames([a, a[:-1]])


def test_a_run_reads_back_and_a_damaged_one_is_refused(tmp_path: Path) -> None:
    kept = runs.Runs.open(tmp_path)
    assert kept is not None
    frame = pack_frame([PREFIX + b"\x01\x02", PREFIX + b"\x02"], [0, 6])
    kept.keep(frame)
    write_run(tmp_path / runs.FOLDER / "worker-1.run", frame)  # (a worker's, in the same folder)
    assert kept.frames() == [frame, frame]
    path = next((tmp_path / runs.FOLDER).glob("*-00000001.run"))
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="is not a whole run"):
        read_run(path)
    kept.close()


def test_another_sweep_does_not_take_runs_held_and_stores_its_drains_at_once(tmp_path: Path) -> None:
    first, second = LmdbStore(tmp_path / "data"), LmdbStore(tmp_path / "data")
    one, two = pack_frame([PREFIX + b"\x01"], [2]), pack_frame([PREFIX + b"\x02"], [4])
    first.hold_run(one)
    assert runs.orphans(tmp_path / "data") == []  # (held: no one adopts them)
    second.hold_run(two)  # (the runs are the first's: stored now)
    second.flush()
    assert first.lookup(PREFIX + b"\x02") == 2 and first.lookup(PREFIX + b"\x01") is None
    first.close()  # (a close that is not dense stores its runs)
    second.close()
    stored = dict(everything(tmp_path / "data")[b"positions"])
    assert set(stored) == {PREFIX + b"\x01", PREFIX + b"\x02"}
    assert not list((tmp_path / "data" / runs.FOLDER).glob("*.run"))


def test_a_killed_sweeps_runs_are_adopted_by_the_next_open_for_a_sweep_or_a_server(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    LmdbStore(data).close()
    frames = frames_of(random.Random(5), 3, 400)
    code = ("import sys, os, pickle\n"
            "from ruma.server.store.memo import LmdbStore\n"
            "store = LmdbStore(sys.argv[1])\n"
            "for frame in pickle.loads(sys.stdin.buffer.read()):\n"
            "    store.hold_run(frame)\n"
            "os._exit(9)  # (killed: nothing closed)\n")
    import pickle

    done = subprocess.run([sys.executable, "-c", code, str(data)], input=pickle.dumps(frames), capture_output=True,
                          timeout=120)
    assert done.returncode == 9, done.stderr
    left = runs.orphans(data)
    assert len(left) == 3
    assert everything(data)[b"positions"] == []  # (nothing stored yet)
    assert runs.pending(data) == {"files": 3, "entries": 400, "held": False}
    from ruma.client.cli import main

    assert main(["store", "stats", "--data", str(data)]) == 0
    assert "3 files, 400 entries (a killed sweep's" in capsys.readouterr().out
    held = runs.Runs.open(data)  # (a running sweep's)
    assert held is not None and runs.pending(data)["held"]
    held.close()
    with LmdbStore(data, create=False) as store:
        assert store.admin.stats()["runs"]["files"] == 3
        assert store.adopt_runs() == 400
        assert store.admin.stats()["runs"] == {"files": 0, "entries": 0, "held": False}
    expected = {key: code // 2 for frame in frames for key, code in zip(*unpack_frame(frame))}
    with LmdbStore(data, create=False) as store:
        assert dict(zip(expected, store.lookup_many(list(expected)))) == expected
    assert runs.orphans(data) == [] and not list((data / runs.FOLDER).glob("*.run"))


def test_a_store_opened_for_a_sweep_adopts_a_killed_sweeps_runs_before_anything_reads_it(tmp_path: Path) -> None:
    from ruma.client.sweep.driver import StoreSink

    data = tmp_path / "data"
    LmdbStore(data).close()
    (data / runs.FOLDER).mkdir()
    write_run(data / runs.FOLDER / "123-w00000001.run", pack_frame([PREFIX + b"\x09"], [10]))  # (no one holds it)
    sink = StoreSink(str(data))
    assert sink.stored([PREFIX + b"\x09"]) == [True]
    sink.close()


def test_a_damaged_orphan_is_left_where_it_is(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "data"
    LmdbStore(data).close()
    kept = runs.Runs.open(data)
    assert kept is not None
    kept.keep(pack_frame([PREFIX + b"\x07"], [2]))
    kept.close()  # (as a kill leaves it)
    path = next((data / runs.FOLDER).glob("*.run"))
    path.write_bytes(path.read_bytes()[:-1])
    with LmdbStore(data) as store:
        assert store.adopt_runs() == 0
        assert store.lookup(PREFIX + b"\x07") is None
    assert path.exists() and "is not a whole run" in caplog.text
    os.unlink(path)
