"""Limits, deadlines and cancellation: the right status code, and the server stays healthy.

Sowing's 1^n needs exponentially many positions (Erickson 1996, Theorem 2.1), so 1^16 cannot be
valued within half a second; small positions come from Erickson's worked example (312 = {0|-2}).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import grpc
import pytest

from ruma.client import Client, RumaRpcError
from ruma.engine.cgt import integer
from ruma.server.rpc.servicer import Limits
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc
from tests.support.grpc_harness import ascii_of, connect, running_server, switch

pytestmark = pytest.mark.alone  # (it times what it runs)

LARGE = "1^16"


@pytest.fixture()
def served(tmp_path: Path) -> Iterator[tuple[object, str]]:
    limits = Limits(max_pots=20, max_seeds=40, max_positions=None, max_batch_size=3)
    with running_server(tmp_path / "data", limits=limits) as pair:
        yield pair


def wait_idle(client: Client, within: float) -> float:
    """Seconds until the server has no evaluation in flight (fails after ``within``)."""
    started = time.monotonic()
    while client.stats().evaluations_in_flight:
        assert time.monotonic() - started < within, "evaluation still running"
        time.sleep(0.02)
    return time.monotonic() - started


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-sowing"])  # the partizan search and the compiled impartial one
def test_deadline_stops_the_evaluation_and_keeps_its_work(served: tuple[object, str], ruleset: str) -> None:
    _, address = served
    with connect(address) as client:
        started = time.monotonic()
        with pytest.raises(RumaRpcError) as error:
            client.evaluate(ruleset, LARGE, timeout=0.5)
        assert error.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert time.monotonic() - started < 1.5
        wait_idle(client, within=1.0)  # the evaluation stopped within a second of the deadline
        assert client.health() == "SERVING"
        small = client.evaluate("sowing", "312", timeout=5)
        assert small.value.ascii == ascii_of(switch(integer(0), integer(-2)))
        stats = client.stats()
        assert stats.store_entries > 0  # what the cancelled evaluation valued was kept


def test_client_cancellation_stops_the_evaluation(served: tuple[object, str]) -> None:
    _, address = served
    with grpc.insecure_channel(address) as channel, connect(address) as client:
        stub = ruma_pb2_grpc.RumaStub(channel)
        future = stub.Evaluate.future(pb.EvaluateRequest(ruleset="sowing", position=LARGE), timeout=60)
        deadline = time.monotonic() + 5
        while client.stats().evaluations_in_flight == 0:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        future.cancel()
        assert future.cancelled()
        wait_idle(client, within=1.0)
        assert client.health() == "SERVING"


@pytest.mark.parametrize(
    "position,fragment",
    [("1" * 21, "21 pots"), ("5^9", "45 seeds")],
)
def test_size_limits_are_resource_exhausted(served: tuple[object, str], position: str, fragment: str) -> None:
    _, address = served
    with connect(address) as client:
        with pytest.raises(RumaRpcError) as error:
            client.evaluate("sowing", position)
        assert error.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert fragment in error.value.details and "limit" in error.value.details


def test_position_limit_is_resource_exhausted(served: tuple[object, str]) -> None:
    _, address = served
    with connect(address) as client:
        with pytest.raises(RumaRpcError) as error:
            client.evaluate("sowing", "1^9", max_positions=10)
        assert error.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "10" in error.value.details
        items = client.evaluate_batch("sowing", ["312", "1^9"], max_positions=10)
        assert [item.code for item in items] == [grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED]


def test_server_position_limit_caps_requests(tmp_path: Path) -> None:
    with running_server(tmp_path, limits=Limits(max_positions=10)) as (_, address), connect(address) as client:
        with pytest.raises(RumaRpcError) as error:
            client.evaluate("sowing", "1^9", max_positions=1_000_000)
        assert error.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert client.capabilities().max_positions == 10


def test_batch_size_limit(served: tuple[object, str]) -> None:
    _, address = served
    with connect(address) as client:
        with pytest.raises(RumaRpcError) as error:
            client.evaluate_batch("sowing", ["1", "2", "3", "4"])
        assert error.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "limit is 3" in error.value.details
        assert client.capabilities().max_batch_size == 3


def test_a_deep_sum_has_its_whole_analysis(served: tuple[object, str]) -> None:
    # n·↑ = {0 | (n-1)·↑∗} (Winning Ways ch. 3): birthday n + 1, atomic weight n (ch. 8)
    _, address = served
    stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
    reply = stub.Sum(pb.SumRequest(terms=[pb.Operand(expression="^400")], notations=[pb.NOTATION_ASCII]), timeout=60)
    assert reply.analysis.birthday == 401
    assert reply.analysis.atomic_weight.ascii == "400"
