"""A call's budget (``ruma.server.work.budget``), the tasks' use of it and errors across processes.

Deterministic counterparts of the end-to-end robustness tests: which error each way of running
out gives, that a batch keeps the values it computed before its time ran out, and that an error
raised in a worker keeps its status code in the server.
"""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest

from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError
from ruma.engine.memo import InMemoryMemo
from ruma.server.rpc.errors import status_of
from ruma.server.store.codec import CorruptRecordError
from ruma.server.work.budget import Budget
from ruma.server.work.limits import Limits
from ruma.server.work.tasks import TASKS, Context
from ruma.server.work.worker_errors import WorkerLostError, from_wire, to_wire
from ruma.v1 import ruma_pb2 as pb

pytestmark = pytest.mark.alone  # (it times what it runs)


class Flag:
    value = 0


def test_each_way_of_running_out_has_its_error() -> None:
    now = time.monotonic()
    cases = [
        (Budget(client_deadline=now - 1), CancelledError, "client's deadline"),
        (Budget(max_seconds=1.5, server_deadline=now - 1), LimitExceededError, "limit of 1.5 s (--max-seconds)"),
        (Budget(is_active=lambda: False), CancelledError, "cancelled by the client"),
        (Budget(flag=type("F", (), {"value": 2})(), memory_budget=200 << 20), LimitExceededError, "200 MiB"),
        (Budget(flag=type("F", (), {"value": 3})()), CancelledError, "shutting down"),
    ]
    for budget, kind, fragment in cases:
        assert budget.should_cancel()
        error = budget.error()
        assert isinstance(error, kind) and fragment in str(error), str(error)
    assert not Budget(max_seconds=60).should_cancel() and Budget().remaining() is None


def test_a_worker_budget_ends_its_margin_before_the_server_limit() -> None:
    server = time.monotonic() + 10
    budget = Budget.from_wire((None, server, 10.0, None), Flag(), margin=0.5)
    assert budget.deadline == pytest.approx(server - 0.5)


def test_a_batch_keeps_what_it_valued_before_its_time_ran_out() -> None:
    budget = Budget(max_seconds=1.0)
    ctx = Context(InMemoryMemo(), None, Limits(), budget)
    done = dict(TASKS["evaluate_batch"](ctx, "sowing", [(0, "312"), (1, "1^30"), (2, "2202"), (3, "3x2")],
                                        ("ascii",), True, 0))
    assert pb.Evaluation.FromString(done[0]).value.ascii == "{0|-2}"  # Erickson §2: 312 = {0|-2}
    for index in (1, 2, 3):  # the time ran out during 1^30: the rest are not valued
        kind, message = done[index]
        assert kind == "limit" and "--max-seconds" in message
    assert status_of(from_wire(*done[1]))[0] == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_a_cancelled_call_fails_as_a_whole() -> None:
    budget = Budget(is_active=lambda: False)
    with pytest.raises(CancelledError):
        TASKS["evaluate_batch"](Context(InMemoryMemo(), None, Limits(), budget), "sowing", [(0, "1^20")],
                                ("ascii",), True, 0)


@pytest.mark.parametrize("error,code", [
    (RumaInputError("bad"), grpc.StatusCode.INVALID_ARGUMENT),
    (LimitExceededError("too big"), grpc.StatusCode.RESOURCE_EXHAUSTED),
    (CorruptRecordError("positions", b"\x01\x01\x00\x01"), grpc.StatusCode.DATA_LOSS),
    (WorkerLostError("gone"), grpc.StatusCode.UNAVAILABLE),
    (RecursionError("deep"), grpc.StatusCode.RESOURCE_EXHAUSTED),
    (ZeroDivisionError("a bug"), grpc.StatusCode.INTERNAL),
])
def test_errors_keep_their_status_across_processes(error: BaseException, code: grpc.StatusCode) -> None:
    assert status_of(from_wire(*to_wire(error)))[0] == code


def test_named_statuses_cross_too(tmp_path: Path) -> None:
    from ruma.server.catalog.ops import NameTakenError, UnknownNameError

    assert status_of(from_wire(*to_wire(NameTakenError("taken"))))[0] == grpc.StatusCode.ALREADY_EXISTS
    assert status_of(from_wire(*to_wire(UnknownNameError("no such"))))[0] == grpc.StatusCode.NOT_FOUND
