"""A schema-2 store (``tests/data/store-v2``, made by ruma 0.1.0: two B-tree entries a position)
opens and is converted to schema 3 (one entry a position) in place, once, losing nothing.

Every value the converted store holds is compared with a fresh evaluation of its position (an
in-memory memo), every game with the fresh game, and the catalog beside it still names and values
its positions. A conversion stopped half-way (an interruption between its transactions, or a
SIGKILL) leaves the old file as it was and is finished by the next open; a store another process
has open is not converted; a store a newer ruma converted is refused with a clear message.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import lmdb
import pytest

from ruma.client.cli import main
from ruma.engine.cgt import Game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.server.store import rewrite
from ruma.server.store.codec import StoreError
from ruma.server.store.keys import state_of_key
from ruma.server.store.memo import LmdbStore
from ruma.server.store.migrate import WORK, schema_of
from ruma.server.store.verify import verify_store
from tests.support import DATA
from tests.support.commands import ruma

V2_STORE = DATA / "store-v2"
POSITIONS = 4298
GAMES = 161


def old_store(where: Path) -> Path:
    shutil.copytree(V2_STORE, where)
    assert schema_of(where) == b"2"
    return where


def old_records(path: Path) -> dict[bytes, list[tuple[bytes, bytes]]]:
    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=16)
    try:
        with env.begin() as txn:
            return {name: list(txn.cursor(db=env.open_db(name, txn=txn, create=False)))
                    for name, _ in txn.cursor()}
    finally:
        env.close()


def same(a: object, b: object) -> bool:
    return a is b if isinstance(b, Game) else a == b


def check_converted(path: Path, before: dict[bytes, list[tuple[bytes, bytes]]]) -> None:
    """The converted store holds every record of the old one but its by_value index, and every
    value is what a fresh evaluation gives."""
    assert schema_of(path) == b"3" and not (path / WORK).exists()
    after = old_records(path)
    assert b"by_value" not in after and len(before[b"by_value"]) == POSITIONS
    for name, records in before.items():
        if name not in (b"by_value", b"meta"):
            assert after[name] == records, name
    assert [r for r in after[b"meta"] if r[0] != b"schema_version"] == [r for r in before[b"meta"] if r[0] != b"schema_version"]
    memo = InMemoryMemo()
    with LmdbStore(path, create=False) as store:
        stats = store.admin.stats()
        assert (stats["schema_version"], stats["entries"], stats["games"]) == (3, POSITIONS, GAMES)
        games = 0
        for key, _ in after[b"positions"]:
            rules, state = state_of_key(key)
            fresh = evaluate(rules, state, memo).value
            assert same(store.lookup(key), fresh), (rules.name, state)
            games += isinstance(fresh, Game)
        assert games > 100
        assert verify_store(store, sample=300, full=True).ok


def test_a_schema_2_store_is_converted_once_and_reads_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = old_store(tmp_path / "store")
    before = old_records(path)
    with LmdbStore(path, create=False):
        pass
    err = capsys.readouterr().err
    assert "converting" in err and f"of {POSITIONS + 2 * GAMES + len(before[b'meta'])} records" in err  # progress
    check_converted(path, before)
    assert (path / "data.mdb").stat().st_size < (V2_STORE / "data.mdb").stat().st_size / 2
    with LmdbStore(path, create=False):  # once: already schema 3
        pass
    assert "converting" not in capsys.readouterr().err
    # the catalog beside it still names and values its positions
    memo = InMemoryMemo()
    for name, ruleset, position in [("sowing-312", "sowing", "312"), ("impartial-142101", "impartial-sowing", "142101"),
                                    ("wari-31011", "atomic-wari", "31011")]:
        assert main(["catalog", "show", name, "--data", str(path), "--json", "--notation", "ascii"]) == 0
        shown = json.loads(capsys.readouterr().out)
        fresh = evaluate(ruleset, position, memo).value
        expected = f"*{fresh}" if isinstance(fresh, int) else format(fresh, "ascii")  # (--notation ascii)
        assert (shown["ruleset"], shown["position"]) == (ruleset, position)
        assert shown["value"] == expected or (isinstance(fresh, int) and shown["nim_value"] == fresh), shown
    assert main(["catalog", "search", "--data", str(path), "--stored", "--ruleset", "impartial-sowing",
                 "--value", "*2", "--json", "--limit", "5"]) == 0


def test_a_conversion_stopped_half_way_loses_nothing_and_is_finished_by_the_next_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = old_store(tmp_path / "store")
    before = old_records(path)
    monkeypatch.setattr(rewrite, "CHUNK", 500)
    from ruma.server.store import migrate

    real = migrate._Progress.__call__

    def interrupted(self: object, done: int) -> None:
        if done >= 2000:
            raise KeyboardInterrupt  # (between two of its transactions)
        real(self, done)  # type: ignore[arg-type]

    monkeypatch.setattr(migrate._Progress, "__call__", interrupted)
    with pytest.raises(KeyboardInterrupt):
        LmdbStore(path, create=False)
    assert old_records(path) == before and (path / WORK / "new" / "data.mdb").is_file()  # the old file as it was
    monkeypatch.setattr(migrate._Progress, "__call__", real)
    with LmdbStore(path, create=False):
        pass
    check_converted(path, before)


_KILLED = r"""
import sys, time
from ruma.server.store import migrate, rewrite
rewrite.CHUNK = 200
real = migrate._Progress.__call__
def slowly(self, done):
    print(done, flush=True)
    time.sleep(0.2)
migrate._Progress.__call__ = slowly
from ruma.server.store.memo import LmdbStore
LmdbStore(sys.argv[1], create=False)
"""


def test_a_conversion_killed_half_way_resumes(tmp_path: Path) -> None:
    path = old_store(tmp_path / "store")
    before = old_records(path)
    process = subprocess.Popen([sys.executable, "-c", _KILLED, str(path)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    while int(process.stdout.readline() or 0) < 1000:
        pass
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert old_records(path) == before
    with LmdbStore(path, create=False):
        pass
    check_converted(path, before)


_OPENER = """
import lmdb, sys
env = lmdb.open(sys.argv[1], max_dbs=16)
with env.begin() as txn:
    print(txn.get(b"schema_version", db=env.open_db(b"meta", txn=txn)).decode())
"""


def test_a_process_opening_the_store_while_it_is_converted_waits_and_finds_schema_3(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = old_store(tmp_path / "store")
    lmdb.open(str(path), max_dbs=16).close()  # (a store used before has its lock file)
    from ruma.server.store import migrate

    real = migrate._Progress.__call__
    opener: list[subprocess.Popen[str]] = []

    def meanwhile(self: object, done: int) -> None:
        if not opener:  # (an older ruma starting now: it opens the environment, then reads the schema)
            opener.append(subprocess.Popen([sys.executable, "-c", _OPENER, str(path)], stdout=subprocess.PIPE, text=True))
            time.sleep(1.0)
            assert opener[0].poll() is None  # (waiting in LMDB's open)
        real(self, done)  # type: ignore[arg-type]

    monkeypatch.setattr(migrate._Progress, "__call__", meanwhile)
    LmdbStore(path, create=False).close()
    out, _ = opener[0].communicate(timeout=60)
    assert opener[0].returncode == 0 and out.strip() == "3"


def test_a_store_open_elsewhere_is_not_converted(tmp_path: Path) -> None:
    path = old_store(tmp_path / "store")
    holder = subprocess.Popen([sys.executable, "-c", "import lmdb, sys, time\nenv = lmdb.open(sys.argv[1], max_dbs=16)\n"
                               "print('open', flush=True)\ntime.sleep(60)", str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(StoreError, match="schema 2 and is open in another process"):
            LmdbStore(path, create=False)
    finally:
        holder.kill()
        holder.wait()
    assert schema_of(path) == b"2"


def test_a_server_refuses_a_store_a_newer_ruma_converted(tmp_path: Path) -> None:
    path = old_store(tmp_path / "store")
    LmdbStore(path, create=False).close()
    env = lmdb.open(str(path), max_dbs=16)
    with env.begin(write=True) as txn:
        txn.put(b"schema_version", b"4", db=env.open_db(b"meta", txn=txn))
    env.close()
    started = time.monotonic()
    done = ruma("serve", "--data", str(path), "--port", "0", timeout=60)
    assert done.returncode == 3 and "schema version '4'" in done.stderr and "reads version 3" in done.stderr, done.stderr
    assert time.monotonic() - started < 30 and "Traceback" not in done.stderr
