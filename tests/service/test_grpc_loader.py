"""Bulk loading: summaries, file formats, progress, gRPC's own retries, and failing once."""

from __future__ import annotations

import asyncio
import io
import time
from concurrent import futures
from pathlib import Path
from typing import Any, Iterator

import grpc
import pytest

from ruma.client import Client, RumaRpcError
from ruma.client.loader import read_positions
from ruma.engine.errors import RumaInputError
from ruma.engine.memo import InMemoryMemo
from tests.support.commands import free_port
from tests.support.grpc_harness import connect, running_server


def test_load_summary_valued_stored_failed(tmp_path: Path) -> None:
    with running_server(tmp_path) as (_, address), connect(address) as client:
        seen: list[tuple[int, int]] = []
        first = client.load("sowing", ["312", "1^4", "3x2", "2202"], batch_size=3, concurrency=1,
                            progress=lambda d, t: seen.append((d, t)))
        assert (first.valued, first.already_stored) == (3, 0)
        assert [p for p, _ in first.failed] == ["3x2"] and "'3x2'" in first.failed[0][1]
        assert "INVALID_ARGUMENT" not in first.failed[0][1]
        assert seen == [(3, 4), (4, 4)]
        again = client.load("sowing", ["312", "1^4"], progress=False)
        assert (again.valued, again.already_stored, again.failed) == (0, 2, [])
        assert "2 already stored" in str(again) and again.to_dict()["already_stored"] == 2
        for item in client.lookup("sowing", ["312", "1^4", "2202"]):
            assert item.found


def test_a_string_is_not_a_list_of_positions(tmp_path: Path) -> None:
    with running_server(tmp_path) as (_, address), connect(address) as client:
        with pytest.raises(TypeError, match="list of positions"):
            client.load("sowing", "312", progress=False)


def test_unknown_ruleset_fails_once_before_any_position(tmp_path: Path) -> None:
    with running_server(tmp_path) as (_, address), connect(address) as client:
        with pytest.raises(RumaRpcError) as error:
            client.load("no-such-game", ["1"] * 1000, batch_size=10, progress=False)
        assert error.value.code == grpc.StatusCode.INVALID_ARGUMENT and "no-such-game" in error.value.details
        assert error.value.summary.total == 0  # type: ignore[attr-defined]


class _Flaky:
    """A real gRPC server whose EvaluateBatch answers UNAVAILABLE ``failures`` times, then works."""

    def __init__(self, data: Path, failures: int) -> None:
        from ruma.server.rpc.servicer import RumaServicer
        from ruma.v1 import ruma_pb2_grpc

        self.calls = 0
        real = RumaServicer(InMemoryMemo())
        flaky = self

        class Servicer(ruma_pb2_grpc.RumaServicer):  # type: ignore[misc]
            def EvaluateBatch(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802
                flaky.calls += 1
                if flaky.calls <= failures:
                    context.abort(grpc.StatusCode.UNAVAILABLE, "restarting")
                return asyncio.run(real.EvaluateBatch(request, context))  # (the servicer's methods are coroutines)

        self.server = grpc.server(futures.ThreadPoolExecutor(4))
        ruma_pb2_grpc.add_RumaServicer_to_server(Servicer(), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()


@pytest.fixture
def flaky(tmp_path: Path) -> Iterator[_Flaky]:
    server = _Flaky(tmp_path, failures=2)
    try:
        yield server
    finally:
        server.server.stop(0)


def test_grpc_retries_unavailable_calls(flaky: _Flaky) -> None:
    with Client(f"127.0.0.1:{flaky.port}", timeout=30) as client:
        summary = client.load("sowing", ["312", "2202"], progress=False)
    assert summary.valued == 2 and not summary.failed
    assert flaky.calls == 3  # two refused attempts retried by the channel's retryPolicy


def test_unreachable_server_fails_once_and_quickly() -> None:
    port = free_port()
    started = time.monotonic()
    with Client(f"127.0.0.1:{port}", timeout=30) as client:
        with pytest.raises(RumaRpcError) as error:
            client.load("sowing", [str(n) for n in range(1, 200)], batch_size=10, progress=False)
    assert error.value.code == grpc.StatusCode.UNAVAILABLE and error.value.address == f"127.0.0.1:{port}"
    assert time.monotonic() - started < 15  # gRPC's retries (about 2 s of backoff), not a 30 s wait


def test_read_positions_formats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("% comment\n312\n\n 1^4 \n")
    (tmp_path / "b.csv").write_text("id,position\n1,312\n2,1^4\n")
    (tmp_path / "c.jsonl").write_text('{"position": "312"}\n\n{"position": "1^4", "x": 1}\n')
    for name in ("a.txt", "b.csv", "c.jsonl"):
        assert read_positions(tmp_path / name) == ["312", "1^4"]
    monkeypatch.setattr("sys.stdin", io.StringIO("312\n  % x\n1^4\n"))
    assert read_positions("-") == ["312", "1^4"]
    (tmp_path / "full.txt").write_text("#1^11#\n# 1^3 #\n")  # a full pot, not a comment
    assert read_positions(tmp_path / "full.txt") == ["#1^11#", "# 1^3 #"]
    (tmp_path / "bad.csv").write_text("pos\n312\n")
    with pytest.raises(RumaInputError, match="'position' column"):
        read_positions(tmp_path / "bad.csv")
    (tmp_path / "bad.jsonl").write_text('{"position": "1"}\nnot json\n')
    with pytest.raises(RumaInputError, match="line 2"):
        read_positions(tmp_path / "bad.jsonl")
    with pytest.raises(RumaInputError, match="cannot read"):
        read_positions(tmp_path / "missing.txt")
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe312")
    with pytest.raises(RumaInputError, match="not UTF-8"):
        read_positions(tmp_path / "binary.txt")


class _Strained:
    """A real gRPC server over the real servicer whose EvaluateBatch fails as a whole with
    RESOURCE_EXHAUSTED whenever a batch holds ``poison`` beside other positions (as a server out
    of resources would), and refuses ``busy`` once for want of capacity ("try again later")."""

    def __init__(self, poison: str, busy: str) -> None:
        from ruma.server.rpc.servicer import RumaServicer
        from ruma.v1 import ruma_pb2_grpc

        self.batches: list[list[str]] = []
        real = RumaServicer(InMemoryMemo())
        strained = self
        refused = [busy]

        class Servicer(ruma_pb2_grpc.RumaServicer):  # type: ignore[misc]
            def EvaluateBatch(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802
                strained.batches.append(list(request.positions))
                if poison in request.positions:
                    context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, f"evaluation of {poison!r} ran out of memory")
                reply = asyncio.run(real.EvaluateBatch(request, context))  # (the servicer's methods are coroutines)
                for item in reply.items:
                    if item.position in refused:
                        refused.remove(item.position)
                        item.ClearField("evaluation")
                        item.status.code = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
                        item.status.message = "3 requests already wait for an evaluation worker; try again later"
                return reply

        self.server = grpc.server(futures.ThreadPoolExecutor(4))
        ruma_pb2_grpc.add_RumaServicer_to_server(Servicer(), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()


def test_a_call_failing_whole_is_split_until_its_culprit_is_alone(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    from ruma.client import loader

    monkeypatch.setattr(loader, "PAUSES", (0.1, 0.1))
    positions = [f"{a}{b}{c}" for a in range(1, 4) for b in range(3) for c in range(1, 3)]  # 18 Sowing rows
    strained = _Strained(poison=positions[5], busy=positions[11])
    try:
        with Client(f"127.0.0.1:{strained.port}", timeout=30) as client:
            summary = client.load("sowing", positions, batch_size=8, concurrency=1, progress=False)
    finally:
        strained.server.stop(0)
    assert summary.failed == [(positions[5], f"evaluation of {positions[5]!r} ran out of memory")]
    assert summary.valued + summary.already_stored == len(positions) - 1
    assert [positions[5]] in strained.batches  # split down to the culprit alone
    assert [positions[11]] in strained.batches  # sent again after its refusal
    loader.write_failures(tmp_path / "f.csv", summary.failed)
    loader.write_failures(tmp_path / "f.jsonl", summary.failed)
    assert read_positions(tmp_path / "f.csv") == read_positions(tmp_path / "f.jsonl") == [positions[5]]


def test_a_load_says_how_far_it_got_when_the_server_dies(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    from tests.support.serve_harness import serving

    cheap = [f"{a}{b}{c}" for a in range(1, 4) for b in range(4) for c in range(4)]  # 48 small rows
    positions = tmp_path / "positions.txt"
    positions.write_text("\n".join(cheap + [f"1^{20 + n % 10} {n // 10 + 2}" for n in range(100)]) + "\n")
    with serving(tmp_path / "data", "--max-seconds", "60") as (server, address):
        load = subprocess.Popen([sys.executable, "-m", "ruma.client.cli", "load", "sowing", str(positions),
                                 "--server", address, "--batch-size", "8"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        with Client(address, timeout=10) as client:
            deadline = time.monotonic() + 60
            while client.stats().evaluations_total < len(cheap):  # the small rows are in; a large one is computing
                assert time.monotonic() < deadline and load.poll() is None
                time.sleep(0.1)
        os.kill(server.pid, signal.SIGKILL)
        _, err = load.communicate(timeout=60)
    assert load.returncode == 3, err
    assert f"of {len(cheap) + 100} positions were done before that" in err and "run it again to go on" in err, err
    done = int(err.split(" of ")[0].rsplit(" ", 1)[-1].lstrip("("))
    assert len(cheap) <= done < len(cheap) + 100, err
