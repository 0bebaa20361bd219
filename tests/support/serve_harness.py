"""A real ``ruma serve`` in a subprocess on 127.0.0.1, and what the robustness tests measure of it.

* ``serving(data, *flags)`` starts ``ruma serve --port 0 --json`` (the console command's own code,
  run as ``python -m ruma.client.cli``), checks its ``server`` record against the record's JSON
  Schema, yields ``(process, address)``, and stops it (SIGTERM, then SIGKILL) — checking that no
  worker process outlives it; its standard error is the file ``serve_log(data)``;
* ``tree_rss(pid)`` is the resident memory of the server and its worker processes together;
* ``Prober`` is a separate process asking the server for stored values in a loop and recording
  every call's latency, so that a test can read the p99 of any window of time; ``baseline_prober``
  starts one after storing its positions and lets it measure the idle server first, and
  ``check_p99`` compares a window with that baseline.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

import psutil


def serve_log(data: Path) -> Path:
    """The file a server ``serving(data)`` started writes its standard error to (a file, not a
    pipe: a full pipe would block the server)."""
    return data.parent / f"{data.name}-serve.log"


@contextlib.contextmanager
def serving(data: Path, *flags: str, env: dict[str, str] | None = None,
            workers: int = 2, readers: int = 2) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``ruma serve --data DATA --port 0 --json FLAGS`` until the block ends (after ``workers``
    evaluation workers and ``readers`` reader workers have started), without the caller's
    ``RUMA_SERVER``, ``RUMA_TOKEN`` and ``RUMA_DATA``."""
    import jsonschema

    from ruma.client.records import schema

    data.parent.mkdir(parents=True, exist_ok=True)
    log = serve_log(data)
    environment = {k: v for k, v in os.environ.items() if k not in ("RUMA_SERVER", "RUMA_TOKEN", "RUMA_DATA")}
    with log.open("a") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "ruma.client.cli", "serve", "--data", str(data), "--port", "0", "--json", *flags],
            stdout=subprocess.PIPE, stderr=err, text=True, env={**environment, **(env or {})})
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.wait(10)
        raise AssertionError(f"ruma serve did not start: {log.read_text()}")
    record = json.loads(line)
    jsonschema.validate(record, schema("server"))
    address = record["address"]
    children: list[psutil.Process] = []
    try:
        wait_for_workers(process.pid, workers + readers)
        children = psutil.Process(process.pid).children(recursive=True)
        yield process, address
    finally:
        if process.poll() is None:
            children = psutil.Process(process.pid).children(recursive=True)
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        gone, alive = psutil.wait_procs(children, timeout=10)
        for child in alive:
            child.kill()
        assert not alive, f"processes outlived the server: {alive}"


def wait_for_workers(pid: int, count: int = 4, within: float = 60.0) -> None:
    """Wait until the server ``pid`` has ``count`` worker processes running."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        workers = [c for c in psutil.Process(pid).children(recursive=True) if "spawn_main" in " ".join(c.cmdline())]
        if len(workers) >= count:
            return
        time.sleep(0.1)


def owned_rss(process: psutil.Process) -> int:
    """Resident bytes a process owns: anonymous and shared memory (``RssAnon`` + ``RssShmem``).
    Its pages of mapped files are left out: a worker that scanned the store has hundreds of MB of
    the LMDB file mapped, which is the kernel's page cache, not memory the server holds."""
    fields = {}
    with open(f"/proc/{process.pid}/status") as status:
        for line in status:
            if line.startswith(("RssAnon:", "RssShmem:")):
                name, value, _unit = line.split()
                fields[name] = int(value) << 10
    return fields.get("RssAnon:", 0) + fields.get("RssShmem:", 0)


def tree_rss(pid: int) -> int:
    """Resident bytes process ``pid`` and all its descendants own (``owned_rss``)."""
    root = psutil.Process(pid)
    total = 0
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error, OSError):
            total += owned_rss(process)
    return total


def rss_by_process(pid: int) -> dict[str, int]:
    """MiB each process of the tree owns (``owned_rss``; for messages)."""
    root = psutil.Process(pid)
    out = {}
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error, OSError):
            out[f"{process.pid} {process.name()}"] = owned_rss(process) >> 20
    return out


def _probe(address: str, positions: Sequence[tuple[str, str]], stop: Any, conn: Any) -> None:
    import grpc

    from ruma.v1 import ruma_pb2 as pb
    from ruma.v1 import ruma_pb2_grpc

    stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
    records: list[tuple[float, float, str]] = []
    i = 0
    while not stop.is_set():
        ruleset, position = positions[i % len(positions)]
        i += 1
        started = time.monotonic()
        try:
            reply = stub.Evaluate(pb.EvaluateRequest(ruleset=ruleset, position=position,
                                                     notations=[pb.NOTATION_ASCII]), timeout=10)
            status = "OK" if reply.from_store else "COMPUTED"
        except grpc.RpcError as error:
            status = error.code().name
        records.append((started, time.monotonic() - started, status))
        time.sleep(0.005)
    conn.send(records)


class Prober:
    """Stored ``Evaluate`` calls in a loop from another process; ``records`` once stopped."""

    def __init__(self, address: str, positions: Sequence[tuple[str, str]]) -> None:
        context = multiprocessing.get_context("spawn")
        self.stop_event = context.Event()
        self.parent, child = context.Pipe()
        self.process = context.Process(target=_probe, args=(address, list(positions), self.stop_event, child),
                                       daemon=True)
        self.process.start()
        self.records: list[tuple[float, float, str]] = []

    def stop(self) -> list[tuple[float, float, str]]:
        """Stop probing; every ``(start time, latency, status)``."""
        self.stop_event.set()
        if self.parent.poll(30):
            self.records = self.parent.recv()
        self.process.join(10)
        return self.records

    def window(self, start: float, end: float) -> list[tuple[float, float, str]]:
        """The calls that started between ``start`` and ``end`` (monotonic seconds)."""
        return [r for r in self.records if start <= r[0] < end]


def p99(records: Sequence[tuple[float, float, str]]) -> float:
    """The 99th percentile latency of ``records``."""
    latencies = sorted(r[1] for r in records)
    assert latencies, "no calls were made in the window"
    return latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]


def latency_limit(baseline_p99: float) -> float:
    """The p99 past which a stored lookup under load counts as stalled: 100 ms, scaled up when the
    machine itself is slow (the baseline p99 of the same calls on an idle server, measured in the
    same test, above the 5 ms such a call takes on an unloaded machine).

    The service's target is a p99 under 50 ms, and docs/service.md records the figures these tests
    print (41.5–43.9 ms beside 60 MB batches, single-digit milliseconds beside floods). The test's
    line sits at twice the target: the stalls it guards against were 496 ms to 2.4 s, while a
    shared CI machine's scheduling alone moves a p99 that sits near the target by a few ms."""
    return 0.100 * max(1.0, baseline_p99 / 0.005)


def baseline_prober(address: str, positions: Sequence[tuple[str, str]], via: str | None = None,
                    settle: float = 3.0, baseline: float = 3.0) -> tuple[Prober, float]:
    """Store ``positions`` (an ``Evaluate`` each), start a ``Prober`` of them on ``via`` (default
    ``address``) and let it run ``settle`` seconds, then ``baseline`` seconds more; returns the
    prober and when the baseline began (it ends at the return)."""
    import grpc

    from ruma.v1 import ruma_pb2 as pb
    from ruma.v1 import ruma_pb2_grpc

    stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(via or address))
    for ruleset, position in positions:
        stub.Evaluate(pb.EvaluateRequest(ruleset=ruleset, position=position), timeout=60)
    prober = Prober(via or address, positions)
    time.sleep(settle)
    started = time.monotonic()
    time.sleep(baseline)
    return prober, started


def check_p99(base: Sequence[tuple[float, float, str]], during: Sequence[tuple[float, float, str]],
              what: str) -> None:
    """Every call of ``base`` and ``during`` answered from the store, and ``during``'s p99 under
    ``latency_limit`` of ``base``'s; both printed after ``what``."""
    assert all(r[2] == "OK" for r in [*base, *during]), {r[2] for r in [*base, *during]}
    limit = latency_limit(p99(base))
    print(f"{what}: stored Evaluate p99 {p99(base) * 1e3:.1f} ms idle, {p99(during) * 1e3:.1f} ms during "
          f"({len(during)} calls, at most {max(r[1] for r in during) * 1e3:.0f} ms; limit {limit * 1e3:.0f} ms)")
    assert p99(during) < limit, (p99(base), p99(during), limit, len(during))
