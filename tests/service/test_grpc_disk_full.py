"""A full disk is the server's condition: RESOURCE_EXHAUSTED "the store's disk is full", at once and
before computing, never INVALID_ARGUMENT or INTERNAL (nor a catalog write's SQL statement), over a
real ``ruma serve`` whose data directory is a small tmpfs (mounting one needs root; CI runs as root).

Expected values: Erickson 1996, §2 (Sowing 312 = {0|-2}) and Theorem 2.2 ((10)^m 03 (01)^n = 0).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Iterator

import grpc
import pytest

from ruma.server.work.disk import DISK_RESERVE, free_bytes
from ruma.v1 import catalog_pb2 as cpb
from ruma.v1 import catalog_pb2_grpc, ruma_pb2_grpc
from ruma.v1 import ruma_pb2 as pb
from tests.support.serve_harness import serving

pytestmark = [pytest.mark.slow, pytest.mark.alone]  # (alone: it times what it serves)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(disk)], check=True)
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def fill(disk: Path, leave: int) -> None:
    """Take the disk's free space down to about ``leave`` bytes."""
    free = free_bytes(disk) or 0
    with open(disk / f"filler-{time.monotonic_ns()}", "wb") as filler:
        if free > leave:
            os.posix_fallocate(filler.fileno(), 0, free - leave)


def call(method: object, request: object) -> tuple[grpc.StatusCode, str, float]:
    started = time.monotonic()
    try:
        method(request, timeout=60)  # type: ignore[operator]
        return grpc.StatusCode.OK, "", time.monotonic() - started
    except grpc.RpcError as error:
        return error.code(), error.details() or "", time.monotonic() - started


def test_a_full_disk_is_resource_exhausted_at_once(small_disk: Path) -> None:
    with serving(small_disk / "data", "--max-seconds", "30") as (_, address):
        channel = grpc.insecure_channel(address)
        ruma, catalog = ruma_pb2_grpc.RumaStub(channel), catalog_pb2_grpc.CatalogStub(channel)
        assert ruma.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="312"), timeout=60).value.ascii == "{0|-2}"
        # the disk fills while an evaluation runs: its commit fails, and says why
        fill(small_disk, DISK_RESERVE + (4 << 20))
        code, details, _ = call(ruma.Evaluate, pb.EvaluateRequest(ruleset="sowing", position="1^12"))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "the store's disk is full" in details, (code, details)
        # once it is full, work that would write is refused before anything is computed
        fill(small_disk, 0)
        refused = []
        for position in ("1^11", "1^13", "2^7"):
            code, details, seconds = call(ruma.Evaluate, pb.EvaluateRequest(ruleset="sowing", position=position))
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "the store's disk is full" in details, details
            assert "nothing was computed" in details and seconds < 1.0, (details, seconds)
            refused.append(seconds)
        print(f"full disk: heavy calls refused in {min(refused) * 1e3:.1f}-{max(refused) * 1e3:.1f} ms")
        assert ruma.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="312"), timeout=60).from_store
        for method, request in ((catalog.AddPosition, cpb.AddPositionRequest(name="p", ruleset="sowing", position="312")),
                                (catalog.AddTheorem, cpb.AddTheoremRequest(name="t", ruleset="sowing",
                                                                            family="(10)^m 03 (01)^n", claim="0",
                                                                            domain="m>=0,n>=0"))):
            code, details, _ = call(method, request)
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "the catalog's disk is full" in details, details
            assert "INSERT" not in details.upper() and "SQL" not in details.upper(), details
