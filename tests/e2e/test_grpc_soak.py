"""Soak: 16 client processes ask a real ``ruma serve`` for 60 s over a mix of stored and new
positions, and every answer agrees with single-process ``ruma eval``.

``RUMA_SOAK_SECONDS`` shortens the soak when running it by hand; CI runs the full minute.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from ruma.client import Client
from tests.support.commands import ruma
from tests.support.serve_harness import serving

pytestmark = [pytest.mark.slow, pytest.mark.alone]  # (alone: it times what it serves)

CLIENTS = 16
SECONDS = float(os.environ.get("RUMA_SOAK_SECONDS", "60"))
RULESETS = ("sowing", "impartial-sowing", "atomic-wari")


def pool(seed: int, count: int) -> list[str]:
    """``count`` distinct rows of 3–7 pots with 0–2 seeds each (each valued in well under a second)."""
    rng = random.Random(seed)
    rows: set[str] = set()
    while len(rows) < count:
        row = "".join(str(rng.randint(0, 2)) for _ in range(rng.randint(3, 7)))
        if row.strip("0"):
            rows.add(row)
    return sorted(rows)


def reference(ruleset: str, positions: list[str]) -> dict[str, str]:
    """Each position's value from single-process ``ruma eval --json``."""
    done = ruma("eval", ruleset, *positions, "--json", timeout=600, check=True)
    records = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert len(records) == len(positions)
    return {position: record["value"] for position, record in zip(positions, records)}


def client(address: str, work: dict[str, dict[str, str]], seconds: float, seed: int) -> dict[str, Any]:
    """One client process: random calls until ``seconds`` have passed; what it saw."""
    import grpc

    from ruma.engine.cgt.notation import parse_game
    from ruma.v1 import ruma_pb2 as pb
    from ruma.v1 import ruma_pb2_grpc

    stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
    rng = random.Random(seed)
    truth = {(r, p): parse_game(v) for r, values in work.items() for p, v in values.items()}
    keys = sorted(truth)
    seen = {"calls": 0, "answers": 0, "errors": [], "disagreements": []}

    def check(ruleset: str, position: str, ascii_value: str) -> None:
        seen["answers"] += 1
        if parse_game(ascii_value) is not truth[(ruleset, position)]:
            seen["disagreements"].append((ruleset, position, ascii_value))

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ruleset, position = rng.choice(keys)
        kind = rng.random()
        seen["calls"] += 1
        try:
            if kind < 0.7:
                reply = stub.Evaluate(pb.EvaluateRequest(ruleset=ruleset, position=position,
                                                         notations=[pb.NOTATION_ASCII]), timeout=60)
                check(ruleset, position, reply.value.ascii)
            elif kind < 0.9:
                batch = [p for r, p in rng.sample(keys, 20) if r == ruleset][:5] or [position]
                items = stub.EvaluateBatch(pb.EvaluateBatchRequest(ruleset=ruleset, positions=batch, brief=True,
                                                                   notations=[pb.NOTATION_ASCII]), timeout=60).items
                for item in items:
                    if item.status.code:
                        seen["errors"].append(f"batch item {item.position}: {item.status.message}")
                    else:
                        check(ruleset, item.position, item.evaluation.value.ascii)
            else:
                for item in stub.Lookup(pb.LookupRequest(ruleset=ruleset, positions=[position],
                                                         notations=[pb.NOTATION_ASCII]), timeout=60).items:
                    if item.status.code:
                        seen["errors"].append(f"lookup {item.position}: {item.status.message}")
                    elif item.found:
                        check(ruleset, item.position, item.evaluation.value.ascii)
        except grpc.RpcError as error:
            seen["errors"].append(f"{ruleset} {position}: {error.code().name}: {error.details()}")
    return seen


def test_sixteen_clients_for_a_minute_agree_with_ruma_eval(tmp_path: Path) -> None:
    work = {ruleset: pool(seed, 400) for seed, ruleset in enumerate(RULESETS)}
    truth = {ruleset: reference(ruleset, positions) for ruleset, positions in work.items()}
    with serving(tmp_path / "data") as (server, address):
        with Client(address, timeout=300) as preload:  # half the positions are stored before the soak
            for ruleset, positions in work.items():
                summary = preload.load(ruleset, positions[::2], progress=False)
                assert not summary.failed, summary.failed[:3]
        memory_before = psutil.Process(server.pid).memory_info().rss
        context = multiprocessing.get_context("spawn")
        with context.Pool(CLIENTS) as clients:
            results = clients.starmap(client, [(address, truth, SECONDS, seed) for seed in range(CLIENTS)])
        with Client(address) as stats_client:
            stats = stats_client.stats()
        memory_after = psutil.Process(server.pid).memory_info().rss
    calls = sum(r["calls"] for r in results)
    print(f"soak: {CLIENTS} clients x {SECONDS:g} s: {calls} calls, {sum(r['answers'] for r in results)} values "
          f"checked; server hits {stats.hits}, misses {stats.misses}, shared {stats.shared}; server process "
          f"{memory_before >> 20} -> {memory_after >> 20} MiB")
    errors = [e for r in results for e in r["errors"]]
    disagreements = [d for r in results for d in r["disagreements"]]
    assert errors == [] and disagreements == [], (errors[:5], disagreements[:5])
    assert calls >= CLIENTS * 10 and sum(r["answers"] for r in results) >= calls
    assert stats.misses > 0 and stats.hits > 0  # both new and stored positions were asked for
    # the server's own process decodes no values (its workers do, and are replaced when they grow)
    assert memory_after < memory_before + (32 << 20), (memory_before >> 20, memory_after >> 20)
    verified = ruma("store", "verify", "--data", str(tmp_path / "data"), "--full", "--sample", "200", "--json")
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr
