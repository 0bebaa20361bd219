"""Graceful shutdown: calls in flight finish within the grace period, and the store is flushed."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import grpc
import pytest

from ruma.client import RumaRpcError
from ruma.server.rpc.app import create_server
from tests.support.grpc_harness import connect

pytestmark = pytest.mark.alone  # (it times what it runs)


def test_shutdown_flushes_the_store(tmp_path: Path) -> None:
    from ruma.server.store.memo import LmdbStore

    server, port = create_server(tmp_path)
    with connect(f"127.0.0.1:{port}") as client:
        results = {p: client.evaluate("sowing", p) for p in ("312", "2202", "1^6")}
    server.stop(grace=2)
    assert server.wait_for_termination(0)
    from grpc_health.v1 import health_pb2

    for service in ("", "ruma.v1.Ruma"):  # health turned NOT_SERVING first
        reply = asyncio.run(server.health.Check(health_pb2.HealthCheckRequest(service=service), None))
        assert reply.status == health_pb2.HealthCheckResponse.NOT_SERVING
    with LmdbStore(tmp_path, create=False) as store:  # a new handle on the same files
        for result in results.values():
            stored = store.lookup(result.key)
            assert stored is not None
    # and a new server answers them from the store
    again, port = create_server(tmp_path)
    try:
        with connect(f"127.0.0.1:{port}") as client:
            for position, result in results.items():
                served = client.evaluate("sowing", position)
                assert served.from_store and served.value == result.value
    finally:
        again.stop(0)


def test_call_in_flight_finishes_within_grace(tmp_path: Path) -> None:
    server, port = create_server(tmp_path)
    outcome: dict[str, object] = {}

    def query() -> None:
        with connect(f"127.0.0.1:{port}") as client:
            outcome["value"] = client.evaluate("sowing", "1^9").value.ascii

    thread = threading.Thread(target=query)
    thread.start()
    time.sleep(0.3)  # the evaluation is under way
    server.stop(grace=60)
    thread.join(10)
    assert isinstance(outcome.get("value"), str)


def test_call_beyond_grace_is_cancelled_and_stops(tmp_path: Path) -> None:
    server, port = create_server(tmp_path)
    errors: list[RumaRpcError] = []

    def query() -> None:
        with connect(f"127.0.0.1:{port}") as client:
            try:
                client.evaluate("sowing", "1^16")
            except RumaRpcError as error:
                errors.append(error)

    thread = threading.Thread(target=query)
    thread.start()
    time.sleep(0.3)
    started = time.monotonic()
    server.stop(grace=0.2)
    assert time.monotonic() - started < 3  # cancelled, flushed and closed promptly
    thread.join(10)
    assert errors and errors[0].code in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE)
    assert server.servicer.wait_idle(0)  # stop() returned only after the evaluation noticed and stopped
