"""Integrity of the LMDB store: checksummed records, damaged files refused, verify and repair.

Every expected value is computed afresh by the engine with an in-memory memo (the reference the
store must agree with); damage is done to the real ``data.mdb`` the way disks and people do it:
one flipped bit in a record, a truncated file, a zero-filled file or page.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import lmdb
import pytest

from ruma.client.cli import main
from ruma.engine.cgt import Game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.server.store import codec
from ruma.server.store.check import check_files, quick_check
from ruma.server.store.codec import CorruptRecordError, StoreDamagedError
from ruma.server.store.memo import LmdbStore
from ruma.server.store.repair import repair_store
from ruma.server.store.verify import verify_store
from tests.support import DATA
from tests.support.commands import ruma

V1_STORE = DATA / "store-v1"
#: what the schema-1 fixture holds (it was written by ruma before records had checksums)
V1_POSITIONS = [("sowing", "1^7"), ("sowing", "2202"), ("sowing", "312"), ("impartial-sowing", "2^4"),
                ("atomic-wari", "31011"), ("nim", "3 5 7")]
POSITIONS = [("sowing", "1^6"), ("sowing", "2202"), ("impartial-sowing", "2^4"), ("atomic-wari", "31011")]


def reference(positions: list[tuple[str, str]]) -> dict[bytes, Game | int]:
    """Every key the evaluator stores for ``positions``, with its value, from a fresh memo."""
    memo = InMemoryMemo()
    for ruleset, position in positions:
        evaluate(ruleset, position, memo)
    return dict(memo.entries)


def same(a: Game | int | None, b: Game | int) -> bool:
    return a is b if isinstance(b, Game) else a == b


def ask_again(store: LmdbStore, expected: dict[bytes, Game | int]) -> None:
    """Value every expected key that the store no longer holds (a user asking for it again)."""
    from ruma.server.store.keys import state_of_key

    for key in expected:
        if store.lookup(key) is None:
            ruleset, state = state_of_key(key)
            evaluate(ruleset, state, store)


def make_store(path: Path) -> dict[bytes, Game | int]:
    with LmdbStore(path) as store:
        for ruleset, position in POSITIONS:
            evaluate(ruleset, position, store)
    return reference(POSITIONS)


def records(path: Path, table: str) -> list[tuple[bytes, bytes]]:
    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=8)
    with env.begin() as txn:
        items = list(txn.cursor(db=env.open_db(table.encode(), txn=txn, create=False)))
    env.close()
    return items


def flip(path: Path, needle: bytes, offset: int, bit: int = 0) -> None:
    """Flip one bit ``offset`` bytes into the first occurrence of ``needle`` in ``data.mdb``."""
    data = bytearray((path / "data.mdb").read_bytes())
    at = data.find(needle)
    assert at >= 0 and data.find(needle, at + 1) < 0, "the record must occur once in the file"
    data[at + offset] ^= 1 << bit
    (path / "data.mdb").write_bytes(bytes(data))


def test_a_schema_1_store_is_migrated_on_open_and_reads_correctly(tmp_path: Path) -> None:
    shutil.copytree(V1_STORE, tmp_path / "v1")
    assert records(tmp_path / "v1", "meta")[-1] == (b"schema_version", b"1")
    expected = reference(V1_POSITIONS)
    with LmdbStore(tmp_path / "v1", create=False) as store:
        assert store.admin.stats()["schema_version"] == 3 and store.admin.stats()["entries"] == len(expected)
        for key, value in expected.items():
            assert same(store.lookup(key), value), key
        report = verify_store(store, sample=1000, full=True)
    assert report.ok and report.checked == len(expected), report.to_dict()
    assert records(tmp_path / "v1", "meta")[-1] == (b"schema_version", b"3")  # (sealed, then one entry a position)
    for table in ("positions", "games", "game_index", "meta"):
        for key, value in records(tmp_path / "v1", table):
            if key != b"schema_version":
                codec.unseal(table, key, value)  # every record now carries its checksum


def test_every_record_carries_a_checksum_and_full_verify_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = make_store(tmp_path)
    assert main(["store", "verify", "--data", str(tmp_path), "--full", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["records"]["positions"] == len(expected)
    assert "by_value" not in report["records"] and report["records"]["games"] > 10  # (schema 3: one entry a position)
    assert main(["store", "verify", "--data", str(tmp_path), "--full", "--sample", "7"]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("records checked (every record of every table): ") and first.endswith("; damaged: 0")
    assert f"positions {len(expected):,}" in first
    assert second == "values re-evaluated and compared: 7 stored positions drawn at random (--sample 7), 0 differ, 0 skipped"


@pytest.mark.parametrize("part", ["value", "key"])
def test_a_flipped_bit_in_a_position_is_never_served(tmp_path: Path, part: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = make_store(tmp_path)
    key, record = next((k, v) for k, v in records(tmp_path, "positions") if k.startswith(b"\x01") and len(k) > 6)
    flip(tmp_path, key + record, len(key) if part == "value" else len(key) - 1)
    with LmdbStore(tmp_path, create=False) as store:
        if part == "value":
            with pytest.raises(CorruptRecordError, match="positions"):
                store.lookup(key)
        else:
            assert store.lookup(key) is None  # the damaged key is another key now: a miss, then recomputed
        for other, value in expected.items():
            if other != key:
                assert same(store.lookup(other), value)
    assert main(["store", "verify", "--data", str(tmp_path), "--full", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(p["table"] == "positions" and p["problem"] == "checksum mismatch" for p in problems), problems
    # repair drops it; asking again recomputes it
    repaired = repair_store(tmp_path)
    assert any(p["table"] == "positions" for p in repaired.problems)
    with LmdbStore(tmp_path, create=False) as store:
        assert verify_store(store, sample=1000, full=True).ok
        assert store.lookup(key) is None
        ask_again(store, expected)
        for other, value in expected.items():
            assert same(store.lookup(other), value)


@pytest.mark.parametrize("table", ["games", "game_index", "meta"])
def test_a_flipped_bit_in_any_table_is_found(tmp_path: Path, table: str, capsys: pytest.CaptureFixture[str]) -> None:
    expected = make_store(tmp_path)
    items = records(tmp_path, table)
    key, record = items[len(items) // 2] if table != "meta" else next(i for i in items if i[0] == b"engine_version")
    flip(tmp_path, key + record, len(key))
    status = main(["store", "verify", "--data", str(tmp_path), "--full", "--json"])
    out = capsys.readouterr().out
    assert status == 1 and any(p["table"] == table for p in json.loads(out)["problems"]), out
    if table == "meta":  # the server's start-up check reads every meta record
        with LmdbStore(tmp_path, create=False) as store, pytest.raises(StoreDamagedError, match="meta"):
            quick_check(store.core)
    if table == "games":  # a position whose value names the damaged game is refused, never served
        with LmdbStore(tmp_path, create=False) as store:
            bad = [k for k, v in expected.items() if isinstance(v, Game) and _raises(store, k)]
            assert bad and all(not same(_lookup(store, k), expected[k]) for k in bad)
    repair_store(tmp_path)
    with LmdbStore(tmp_path, create=False) as store:
        report = verify_store(store, sample=1000, full=True)
        assert report.ok, report.to_dict()
        ask_again(store, expected)
        for k, value in expected.items():
            assert same(store.lookup(k), value)


def _lookup(store: LmdbStore, key: bytes) -> object:
    try:
        return store.lookup(key)
    except CorruptRecordError:
        return CorruptRecordError


def _raises(store: LmdbStore, key: bytes) -> bool:
    store.core.from_store.clear()  # games are rebuilt from the file, not from this process's memo
    return _lookup(store, key) is CorruptRecordError


def _damage(path: Path, how: str) -> None:
    data = path / "data.mdb"
    size = data.stat().st_size
    if how == "truncated":
        with data.open("r+b") as file:
            file.truncate(size // 2)
    elif how == "zero-filled":
        data.write_bytes(bytes(size))
    elif how == "empty":
        data.write_bytes(b"")
    elif how == "meta page":
        raw = bytearray(data.read_bytes())
        raw[16] ^= 0xFF  # the magic number of meta page 0
        data.write_bytes(bytes(raw))


@pytest.mark.parametrize("how", ["truncated", "zero-filled", "empty", "meta page"])
def test_a_damaged_file_is_refused_before_it_is_mapped(tmp_path: Path, how: str) -> None:
    make_store(tmp_path)
    _damage(tmp_path, how)
    with pytest.raises(StoreDamagedError, match="damaged"):
        check_files(tmp_path)
    with pytest.raises(StoreDamagedError):
        LmdbStore(tmp_path, create=False)
    # in another process: one line and exit status 3, never SIGBUS or a traceback; verify reads what
    # it can of a file with a sound meta page, and reports (exit status 1)
    readable = how in ("truncated", "meta page")
    for command in (["stats"], ["verify", "--full"]):
        done = ruma("store", command[0], "--data", str(tmp_path), *command[1:], timeout=60)
        if command[0] == "verify" and readable:
            assert done.returncode == 1 and "damaged" in done.stdout, (done.returncode, done.stdout, done.stderr)
            assert "Traceback" not in done.stderr
            continue
        assert done.returncode == 3, (done.returncode, done.stderr)
        assert "damaged" in done.stderr and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_repair_salvages_a_truncated_file(tmp_path: Path) -> None:
    expected = make_store(tmp_path)
    _damage(tmp_path, "truncated")
    report = repair_store(tmp_path)
    assert Path(report.damaged_copy).is_file()
    with LmdbStore(tmp_path, create=False) as store:
        assert verify_store(store, sample=1000, full=True).ok
        kept = [k for k in expected if store.lookup(k) is not None]
        assert all(same(store.lookup(k), expected[k]) for k in kept)
        ask_again(store, expected)  # what was lost is recomputed
        assert all(same(store.lookup(k), v) for k, v in expected.items())


def test_repair_of_a_damaged_meta_page_keeps_the_commit_before(tmp_path: Path) -> None:
    """LMDB keeps two meta pages, of the last two commits; with the newer one damaged the store is
    read as of the commit before (LMDB's own fallback), which repair then keeps."""
    with LmdbStore(tmp_path) as store:
        evaluate("sowing", "2202", store)
    first = reference([("sowing", "2202")])
    with LmdbStore(tmp_path) as store:
        evaluate("atomic-wari", "31011", store)
    data = bytearray((tmp_path / "data.mdb").read_bytes())
    txnids = [int.from_bytes(data[p * 4096 + 144 : p * 4096 + 152], "little") for p in (0, 1)]
    newer = txnids.index(max(txnids))
    data[newer * 4096 + 16] ^= 0xFF  # its magic number
    (tmp_path / "data.mdb").write_bytes(bytes(data))
    with pytest.raises(StoreDamagedError, match="meta page"):
        check_files(tmp_path)
    repair_store(tmp_path)
    with LmdbStore(tmp_path, create=False) as store:
        assert verify_store(store, sample=1000, full=True).ok
        assert store.admin.stats()["entries"] == len(first)
        assert all(same(store.lookup(k), v) for k, v in first.items())


def test_a_zero_filled_page_is_reported_and_never_served(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = make_store(tmp_path)
    data = bytearray((tmp_path / "data.mdb").read_bytes())
    key, record = records(tmp_path, "positions")[len(expected) // 2]
    page = data.find(key + record) // 4096
    data[page * 4096 : (page + 1) * 4096] = bytes(4096)
    (tmp_path / "data.mdb").write_bytes(bytes(data))
    assert main(["store", "verify", "--data", str(tmp_path), "--full", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(p["table"] == "positions" and "cannot be read" in p["problem"] for p in problems), problems
    with LmdbStore(tmp_path, create=False) as store:
        for k, value in expected.items():
            try:
                found = store.lookup(k)
            except (lmdb.Error, CorruptRecordError):
                continue
            assert found is None or same(found, value)


def test_repair_refuses_a_store_open_elsewhere(tmp_path: Path) -> None:
    make_store(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom ruma.server.store.memo import LmdbStore\n"
                               "s = LmdbStore(sys.argv[1]); print('open', flush=True); time.sleep(60)", str(tmp_path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(codec.StoreError, match="open in another process"):
            repair_store(tmp_path)
    finally:
        holder.kill()
        holder.wait()
    with LmdbStore(tmp_path) as store:
        with pytest.raises(codec.StoreError, match="open in another process"):
            repair_store(tmp_path)  # this very process, too
        store.flush()
