"""Faults against a real ``ruma serve``: an acknowledged write survives SIGKILL, a damaged store is
refused at start or reported by ``ruma store verify``, and is never served as a value.

Reference values come from the engine with a fresh in-memory memo (what the store must agree with).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import psutil
import pytest

from ruma.client import Client
from ruma.engine.cgt import Game
from ruma.engine.cgt.notation import parse_game
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.server.store import codec
from ruma.server.store.keys import state_of_key
from ruma.server.store.memo import LmdbStore
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc
from tests.support.commands import ruma
from tests.support.serve_harness import serving

pytestmark = pytest.mark.slow


def random_rows(seed: int, count: int, pots: tuple[int, int] = (3, 7), seeds: int = 3) -> list[str]:
    """``count`` distinct rows of ``pots`` pots with 0..``seeds`` seeds each (digit notation)."""
    rng = random.Random(seed)
    rows: set[str] = set()
    while len(rows) < count:
        row = "".join(str(rng.randint(0, seeds)) for _ in range(rng.randint(*pots)))
        if row.strip("0"):
            rows.add(row)
    return sorted(rows)


def test_sigkill_right_after_a_load_loses_nothing(tmp_path: Path) -> None:
    positions = random_rows(11, 1500)  # six batches of 256: the last one is what an unflushed write loses
    data = tmp_path / "data"
    with serving(data) as (process, address):
        with Client(address, timeout=120) as client:
            summary = client.load("sowing", positions, batch_size=256, progress=False)
        assert not summary.failed and summary.valued + summary.already_stored == len(positions)
        workers = psutil.Process(process.pid).children(recursive=True)
        os.kill(process.pid, signal.SIGKILL)  # right after the load reported success
        process.wait(10)
        gone, alive = psutil.wait_procs(workers, timeout=10)
        assert not alive, f"worker processes outlived the killed server: {alive}"
    memo = InMemoryMemo()
    rules = get_ruleset("sowing")
    lost = []
    with LmdbStore(data, create=False) as store:
        for text in positions:
            try:  # a pure lookup: computing even one position raises
                stored = evaluate(rules, text, store, max_positions=0).value
            except Exception:  # noqa: BLE001 - counted as lost
                lost.append(text)
                continue
            assert stored is evaluate(rules, text, memo).value, text
    assert lost == [], f"{len(lost)} of {len(positions)} acknowledged positions lost, e.g. {lost[:5]}"


def _store_with_values(path: Path) -> dict[bytes, Game | int]:
    positions = [("sowing", "1^6"), ("sowing", "2202"), ("impartial-sowing", "2^4"), ("atomic-wari", "31011")]
    reference = InMemoryMemo()
    with LmdbStore(path) as store:
        for ruleset, position in positions:
            evaluate(ruleset, position, store)
            evaluate(ruleset, position, reference)
    return dict(reference.entries)


def _flip_records(path: Path, table: str, count: int, seed: int) -> list[bytes]:
    """Flip one bit in the payload of ``count`` records of ``table``; returns their keys."""
    import lmdb

    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=8)
    with env.begin() as txn:
        items = list(txn.cursor(db=env.open_db(table.encode(), txn=txn, create=False)))
    env.close()
    data = bytearray((path / "data.mdb").read_bytes())
    chosen = random.Random(seed).sample([i for i in items if data.count(i[0] + i[1]) == 1], count)
    for key, record in chosen:
        at = data.find(key + record) + len(key)
        data[at + random.Random(seed + len(key)).randrange(len(record) - codec.CRC_BYTES)] ^= 1 << (seed % 8)
    (path / "data.mdb").write_bytes(bytes(data))
    return [key for key, _ in chosen]


def _ask_in_batches(stub: ruma_pb2_grpc.RumaStub, keys: list[bytes]) -> dict[bytes, tuple[str, str]]:
    """``_ask`` of every key through brief ASCII EvaluateBatch calls (what ``ruma load`` sends),
    one call per ruleset."""
    by_ruleset: dict[str, list[tuple[bytes, str]]] = {}
    for key in keys:
        rules, state = state_of_key(key)
        by_ruleset.setdefault(rules.name, []).append((key, rules.format(state)))
    answers = {}
    for name, asked in by_ruleset.items():
        reply = stub.EvaluateBatch(pb.EvaluateBatchRequest(ruleset=name, positions=[t for _, t in asked],
                                                           notations=[pb.NOTATION_ASCII], brief=True), timeout=60)
        for (key, _), item in zip(asked, reply.items):
            if item.status.code:
                answers[key] = grpc.StatusCode.DATA_LOSS.name if item.status.code == grpc.StatusCode.DATA_LOSS.value[0] \
                    else str(item.status.code), item.status.message
            else:
                answers[key] = "OK", item.evaluation.value.ascii
    return answers


def _ask(stub: ruma_pb2_grpc.RumaStub, key: bytes) -> tuple[str, str]:
    """``(status, ascii value)`` of the position a stored key was made from."""
    rules, state = state_of_key(key)
    try:
        reply = stub.Evaluate(pb.EvaluateRequest(ruleset=rules.name, position=rules.format(state),
                                                 notations=[pb.NOTATION_ASCII]), timeout=60)
        return "OK", reply.value.ascii
    except grpc.RpcError as error:
        return error.code().name, error.details() or ""


@pytest.mark.parametrize("table", ["positions", "games"])
def test_flipped_bits_in_values_and_games_are_never_served(tmp_path: Path, table: str) -> None:
    data = tmp_path / "data"
    expected = _store_with_values(data)
    flipped = _flip_records(data, table, 19 if table == "positions" else 5, seed=3)
    answers: dict[bytes, tuple[str, str]] = {}
    with serving(data) as (_, address):
        stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
        for key in expected:
            answers[key] = _ask(stub, key)
        assert _ask_in_batches(stub, list(expected)) == answers  # the batch path serves and refuses alike
    wrong = []
    for key, (status, text) in answers.items():
        value = expected[key]
        if status == "OK":
            game = parse_game(text)
            truth = value if isinstance(value, Game) else parse_game(f"*{value}")
            rules, state = state_of_key(key)
            if rules.normalise(state)[1] and isinstance(value, Game):
                truth = -truth  # the stored canonical orientation is the mirror image of the text asked
            if game is not truth:
                wrong.append((key.hex(), text))
        else:
            assert status == "DATA_LOSS" and "damaged" in text, (status, text)
    assert wrong == [], f"damaged records served as values: {wrong}"
    if table == "positions":
        assert all(answers[k][0] == "DATA_LOSS" for k in flipped if k in answers)
    assert sum(1 for status, _ in answers.values() if status == "DATA_LOSS") >= 1
    verified = ruma("store", "verify", "--data", str(data), "--full", "--json")
    assert verified.returncode == 1, verified.stderr
    problems = json.loads(verified.stdout)["problems"]
    assert {bytes.fromhex(p["key"]) for p in problems if p["table"] == table} >= set(flipped)
    repaired = ruma("store", "repair", "--data", str(data))
    assert repaired.returncode == 0, repaired.stderr
    with serving(data) as (_, address):  # everything is recomputed, correctly
        stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
        assert all(_ask(stub, key)[0] == "OK" for key in expected)


@pytest.mark.parametrize("how", ["truncated", "zero-filled", "meta record", "meta page"])
def test_a_damaged_store_is_refused_at_start(tmp_path: Path, how: str) -> None:
    data = tmp_path / "data"
    _store_with_values(data)
    mdb = data / "data.mdb"
    raw = bytearray(mdb.read_bytes())
    if how == "truncated":
        raw = raw[: len(raw) // 2]
    elif how == "zero-filled":
        raw = bytearray(len(raw))
    elif how == "meta page":
        raw[16] ^= 0x01
    mdb.write_bytes(bytes(raw))
    if how == "meta record":  # one bit of the live record flipped (through LMDB: stale copies abound)
        import lmdb

        env = lmdb.open(str(data), max_dbs=8)
        with env.begin(write=True) as txn:
            meta = env.open_db(b"meta", txn=txn, create=False)
            record = bytearray(txn.get(b"engine_version", db=meta))
            record[0] ^= 0x10
            txn.put(b"engine_version", bytes(record), db=meta)
        env.close()
    started = ruma("serve", "--data", str(data), "--port", "0", timeout=120)
    assert started.returncode == 3, (started.returncode, started.stderr)
    lines = started.stderr.strip().splitlines()
    assert lines[-1].startswith("ruma serve: ") and "damaged" in lines[-1] and "ruma store repair" in lines[-1], (
        started.stderr)
    assert "Traceback" not in started.stderr and started.stdout == ""
    verified = ruma("store", "verify", "--data", str(data), "--full")
    assert verified.returncode in (1, 3) and "Traceback" not in verified.stderr


def test_random_bit_flips_are_refused_or_reported_and_never_served(tmp_path: Path) -> None:
    """One bit flipped anywhere in the data pages (meta pages aside), 24 times over: opening refuses
    the store, or each stored value is read right, missed or refused — and whatever is not read
    right is reported by ``store verify --full``; no process dies of a signal."""
    from ruma.engine.cgt.notation import format_game

    clean = tmp_path / "clean"
    expected = {key.hex(): format_game(value) if isinstance(value, Game) else str(value)
                for key, value in _store_with_values(clean).items()}
    size = (clean / "data.mdb").stat().st_size
    rng = random.Random(2026)
    probe = tmp_path / "probe.py"
    probe.write_text(_PROBE)
    outcomes = []
    for trial in range(24):
        damaged = tmp_path / f"trial{trial}"
        damaged.mkdir()
        raw = bytearray((clean / "data.mdb").read_bytes())
        raw[rng.randrange(2 * 4096, size)] ^= 1 << rng.randrange(8)
        (damaged / "data.mdb").write_bytes(bytes(raw))
        done = subprocess.run([sys.executable, str(probe), str(damaged), json.dumps(sorted(expected))],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"trial {trial}: exit {done.returncode}: {done.stderr[-500:]}"
        result = json.loads(done.stdout)
        if result.get("refused"):
            outcomes.append("refused")
            continue
        read = result["values"]
        wrong = [k for k, v in read.items() if v not in ("missing", "refused") and v != expected[k]]
        assert not wrong, f"trial {trial}: wrong values served for {wrong}"
        if any(v in ("missing", "refused") for v in read.values()):
            assert result["problems"], f"trial {trial}: a value was lost but verify found nothing"
            outcomes.append("reported")
        else:
            outcomes.append("reported" if result["problems"] else "harmless")
    assert "reported" in outcomes or "refused" in outcomes, outcomes


_PROBE = r"""
import json, sys
from ruma.engine.cgt import Game
from ruma.engine.cgt.notation import format_game
from ruma.server.store.memo import LmdbStore
from ruma.server.store.check import quick_check
from ruma.server.store.verify import verify_store
path, keys = sys.argv[1], json.loads(sys.argv[2])
try:
    store = LmdbStore(path, create=False)
    quick_check(store.core)
except Exception as error:
    print(json.dumps({"refused": str(error)}))
    sys.exit(0)
values = {}
for key in keys:
    try:
        value = store.lookup(bytes.fromhex(key))
        values[key] = "missing" if value is None else (format_game(value) if isinstance(value, Game) else str(value))
    except Exception:
        values[key] = "refused"
try:
    problems = [p["problem"] for p in verify_store(store, sample=0, full=True).problems]
except Exception as error:
    problems = [f"verify failed: {error}"]
print(json.dumps({"values": values, "problems": problems}))
"""


def test_a_worker_killed_mid_evaluation_is_unavailable_and_replaced(tmp_path: Path) -> None:
    import threading
    import time

    from ruma.server.work.limits import Limits
    from tests.support.grpc_harness import running_server

    with running_server(tmp_path / "data", limits=Limits(eval_workers=1)) as (server, address):
        pool = server.servicer.runner
        stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
        outcome: list[grpc.StatusCode] = []

        def big() -> None:
            try:
                stub.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="1^20"), timeout=60)
                outcome.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                outcome.append(error.code())

        caller = threading.Thread(target=big)
        caller.start()
        deadline = time.monotonic() + 30
        while not pool.stats()["busy"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        victim = pool.workers[0].process.pid
        os.kill(victim, signal.SIGKILL)
        caller.join(30)
        assert outcome == [grpc.StatusCode.UNAVAILABLE]
        reply = stub.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="312"), timeout=60)  # a new worker
        assert reply.value.ascii == "{0|-2}" and pool.workers[0].process.pid != victim
        assert pool.stats()["recycled"] == 1
