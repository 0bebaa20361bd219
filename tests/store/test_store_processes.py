"""The LMDB store shared by several processes: SIGKILL mid-write, concurrent valuers, live backup.

Reference values come from fresh evaluations with an in-memory memo in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ruma.engine.cgt import Game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.server.store.memo import LmdbStore
from ruma.server.store.verify import verify_store

# A bulk evaluation that keeps writing for several seconds (far longer than the tests wait).
_WRITER = r"""
import sys
from ruma.engine.evaluator import evaluate
from ruma.server.store.memo import LmdbStore
work = [("sowing", p) for p in ("1^8", "2^6", "1^9", "2^7", "3^6", "1^10", "3^7", "2^8")]
work += [("impartial-sowing", p) for p in ("2^6", "1^10", "2^7", "3^7", "1^11")]
with LmdbStore(sys.argv[1], batch_size=int(sys.argv[2]), batch_seconds=0.05) as store:
    for ruleset, position in work:
        evaluate(ruleset, position, store)
print("finished")
"""


def _start_writer(path: Path, batch_size: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(batch_size)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_entries(path: Path, count: int, writer: subprocess.Popen[str], timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert writer.poll() is None, writer.communicate()
        if (path / "data.mdb").exists():
            with LmdbStore(path, create=False, batch_seconds=0) as store:
                entries = store.admin.stats()["entries"]
            if entries >= count:
                return int(entries)
        time.sleep(0.05)
    raise AssertionError(f"the writer did not store {count} entries in {timeout}s")


def _keys(path: Path) -> set[bytes]:
    with LmdbStore(path, create=False, batch_seconds=0) as store:
        with store.admin.env.begin() as txn:
            return set(txn.cursor(db=store.admin.db("positions")).iternext(values=False))


def _check_all_entries(store: LmdbStore) -> int:
    """Every stored entry decodes and equals a fresh evaluation; returns how many were checked."""
    entries = store.admin.stats()["entries"]
    report = verify_store(store, sample=entries + 1)
    assert not report.mismatches and not report.skipped, report.to_dict()
    assert report.checked == entries
    return entries


def test_sigkill_mid_bulk_evaluation_loses_only_the_tail(tmp_path: Path) -> None:
    path = tmp_path / "store"
    writer = _start_writer(path, batch_size=97)
    try:
        _wait_for_entries(path, 3000, writer)
        committed = _keys(path)  # a snapshot of what is committed now
        time.sleep(0.1)  # let it be in the middle of more work
        assert writer.poll() is None, "the writer finished before it could be killed"
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.kill()
        writer.communicate()
    assert writer.returncode == -signal.SIGKILL
    with LmdbStore(path, create=False) as store:
        assert _keys(path) >= committed  # nothing committed was lost
        assert _check_all_entries(store) >= len(committed) >= 3000
        # still usable: a new evaluation runs through it and is right
        value = evaluate("sowing", "1^7", store).value
        assert value is evaluate("sowing", "1^7", InMemoryMemo()).value
        again = evaluate("sowing", "2^6", store)
        assert again.value is evaluate("sowing", "2^6", InMemoryMemo()).value


def _worker(path: str, jobs: list[tuple[str, str]], barrier: Any, answers: Any) -> None:
    """Value ``jobs`` into the shared store; report each whole position's stored entry.

    The entry is a store game id (checked to rebuild the very same ``Game``) or a nim value.
    All workers start valuing together (``barrier``) so that their writes really interleave.
    """
    out = []
    with LmdbStore(path, batch_size=64, batch_seconds=0.05) as store:
        barrier.wait(timeout=120)
        results = [evaluate(ruleset, position, store) for ruleset, position in jobs]
        store.flush()
        for (ruleset, position), result in zip(jobs, results):
            stored = store.lookup(result.key)
            if isinstance(stored, Game):
                assert stored is (-result.value if result.mirrored else result.value)  # type: ignore[operator]
                sid = store.store_game_id(stored)
                assert sid is not None and store.game_by_store_id(sid) is stored
                out.append((ruleset, position, result.key, sid, True))
            else:
                assert stored == result.value
                out.append((ruleset, position, result.key, stored, False))
    answers.put(out)


JOBS = [("sowing", p) for p in ("1^8", "2^5", "1111011", "3^4", "21^5", "1^6", "2^4 1", "2^6")] + [
    ("impartial-sowing", p) for p in ("1^9", "2^5", "3^4", "12^3")
]


def test_four_processes_value_overlapping_positions_into_one_store(tmp_path: Path) -> None:
    path = str(tmp_path / "store")
    plans = [JOBS[k:] + JOBS[:k] for k in range(0, 4 * 3, 3)]  # overlapping, in different orders
    context = multiprocessing.get_context("spawn")
    barrier, queue = context.Barrier(len(plans)), context.Queue()
    workers = [context.Process(target=_worker, args=(path, plan, barrier, queue)) for plan in plans]
    for worker in workers:
        worker.start()
    answers = [queue.get(timeout=180) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    memo: dict[str, InMemoryMemo] = {"sowing": InMemoryMemo(), "impartial-sowing": InMemoryMemo()}
    for ruleset, position in JOBS:
        evaluate(ruleset, position, memo[ruleset])
    with LmdbStore(path, create=False) as store:
        for answer in answers:
            assert len(answer) == len(JOBS)
            for ruleset, _, key, number, is_game in answer:
                expected = memo[ruleset].entries[key]
                if is_game:
                    assert isinstance(expected, Game) and store.store_game_id(expected) == number
                    assert store.game_by_store_id(number) is expected
                else:
                    assert number == expected
        # the store holds exactly the single-process memo's entries, with the same values
        stats = store.admin.stats()
        assert stats["entries"] == sum(len(m) for m in memo.values())
        for m in memo.values():
            for key, value in m.entries.items():
                assert store.lookup(key) == value
        games: dict[Any, Any] = {}
        with store.admin.env.begin() as txn:
            games = dict(txn.cursor(db=store.admin.db("games")))
        assert len(set(games.values())) == len(games)  # no game stored twice


def test_backup_while_another_process_writes(tmp_path: Path) -> None:
    path, dest = tmp_path / "store", tmp_path / "backup"
    writer = _start_writer(path, batch_size=53)
    try:
        _wait_for_entries(path, 1500, writer)
        with LmdbStore(path, create=False) as store:
            store.admin.backup(dest)
        assert writer.poll() is None, "the writer finished before the backup was taken"
        after = _wait_for_entries(path, 1, writer)
    finally:
        writer.kill()
        writer.communicate()
    with LmdbStore(dest, create=False) as copy:
        copied = _check_all_entries(copy)
        assert 1500 <= copied
        assert copy.admin.stats()["file_bytes"] > 0
    assert after >= 1
