"""Bulk work that always finishes: every position of a load and of an ``EvaluateBatch`` has its own
outcome. A real server (LMDB store, evaluation worker processes, a small memory budget) on a
loopback port; ``ruma load`` run as a user runs it.

Values: Erickson 1996, §2 (Sowing 312 = {0|-2}); impartial Sowing's values are checked against
the pure-Python reference engine of this repository (``RUMA_ENGINE=python`` is the reference
every fast path is tested against).
"""

from __future__ import annotations

import random
from pathlib import Path

import grpc

from grpc_harness import connect, running_server
from ruma.server.work.limits import Limits

#: Sowing 1^13 values 1.3 million positions in about 1 GB (docs/benchmarks.md): far past the budget
HEAVY = "1^13"
BUDGET = 192 << 20


def _cheap(count: int) -> list[str]:
    rng = random.Random(31)
    out: set[str] = set()
    while len(out) < count:
        out.add("".join(str(rng.randint(0, 3)) for _ in range(rng.randint(2, 6))).strip("0") or "1")
    return sorted(out)


def test_a_position_the_memory_budget_stops_fails_alone(tmp_path: Path) -> None:
    from ruma.v1 import ruma_pb2 as pb

    with running_server(tmp_path / "data", limits=Limits(max_memory=BUDGET, eval_workers=1)) as (_, address), \
            connect(address) as client:
        request = pb.EvaluateBatchRequest(ruleset="sowing", positions=["312", HEAVY, "2202", "11(01)^2"],
                                          notations=[pb.NOTATION_ASCII], brief=True)
        items = client.call(client.stub.EvaluateBatch, request, 120).items
        assert items[1].status.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert "'1^13'" in items[1].status.message and "memory budget" in items[1].status.message
        # Erickson 1996: 312 = {0|-2} (§2), 2202 = ↑ (Table 1), 11(01)^2 = {3|0} (Theorem 2.4)
        assert [(i.status.code, i.evaluation.value.ascii) for i in (items[0], *items[2:])] == [
            (0, "{0|-2}"), (0, "^"), (0, "{3|0}")]


def test_each_position_of_a_batch_has_its_own_time(tmp_path: Path) -> None:
    from ruma.engine.evaluator import evaluate
    from ruma.engine.memo import InMemoryMemo
    from ruma.engine.rulesets.sowing import IMPARTIAL_SOWING
    from ruma.v1 import ruma_pb2 as pb

    cheap = _cheap(20)
    with running_server(tmp_path / "data", limits=Limits(eval_workers=1)) as (_, address), connect(address) as client:
        request = pb.EvaluateBatchRequest(ruleset="impartial-sowing", positions=[cheap[0], "1^16", *cheap[1:]],
                                          notations=[pb.NOTATION_ASCII], brief=True, max_seconds=1.0)
        reply = client.call(client.stub.EvaluateBatch, request, 120)
        heavy = reply.items[1]
        assert heavy.status.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert "'1^16'" in heavy.status.message and "1 s each position may take" in heavy.status.message
        memo = InMemoryMemo()
        for item in [reply.items[0], *reply.items[2:]]:
            assert item.status.code == 0, item.status.message
            expected = evaluate(IMPARTIAL_SOWING, IMPARTIAL_SOWING.parse(item.position), memo).value
            assert item.evaluation.value.ascii == ("0" if expected == 0 else f"*{expected}" if expected > 1 else "*")
