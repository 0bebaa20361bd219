"""The server's memory stays bounded however many stored values it reads (a real ``ruma serve``).

Canonical forms are interned for the life of a process, so a process that reads partizan values
keeps every game it decoded. The server's own process decodes none: stored lookups run on reader
workers, each replaced once it has grown ``pool.READER_RECYCLE_ABOVE`` past its baseline. Reading
20,000 of the values stored by valuing Sowing 1^11 (91,229 positions, 24,024 distinct games: the
row's followers are hot games, Erickson 1996 §2) leaves the server's process where it was and the
whole tree within that bound.
"""

from __future__ import annotations

import random
from pathlib import Path

import grpc
import psutil
import pytest

from ruma.server.store.keys import state_of_key
from ruma.server.store.memo import LmdbStore
from ruma.server.work.pool import READER_RECYCLE_ABOVE, READERS
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc
from tests.support.serve_harness import serving, tree_rss

pytestmark = pytest.mark.slow


def stored_positions(data: Path, count: int) -> list[str]:
    """``count`` random stored positions of the store in ``data`` (read by this process)."""
    with LmdbStore(data, create=False) as store:
        with store.admin.env.begin(db=store.admin.db("positions")) as txn:
            keys = [bytes(key) for key, _ in txn.cursor()]
    random.Random(12).shuffle(keys)
    out = []
    for key in keys[:count]:
        rules, state = state_of_key(key)
        out.append(rules.format(state))
    return out


def test_reading_20000_stored_values_leaves_the_servers_memory_bounded(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with serving(data, "--max-seconds", "120") as (process, address):
        stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address, options=[("grpc.max_receive_message_length",
                                                                                  64 << 20)]))
        stub.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="1^11"), timeout=120)
        positions = stored_positions(data, 20_000)
        server = psutil.Process(process.pid)
        before, tree_before = server.memory_info().rss, tree_rss(process.pid)
        for start in range(0, len(positions), 500):  # full replies: every value decoded and analysed
            reply = stub.EvaluateBatch(pb.EvaluateBatchRequest(ruleset="sowing", positions=positions[start:start + 500]),
                                       timeout=120)
            assert all(item.evaluation.from_store for item in reply.items)
        after, tree_after = server.memory_info().rss, tree_rss(process.pid)
        recycled = stub.GetStats(pb.GetStatsRequest(), timeout=10).workers_recycled
    print(f"memory: server {before >> 20} -> {after >> 20} MiB, with its workers {tree_before >> 20} -> "
          f"{tree_after >> 20} MiB; {recycled} workers replaced")
    assert after < before + (16 << 20), (before >> 20, after >> 20)
    assert tree_after < tree_before + READERS * READER_RECYCLE_ABOVE + (32 << 20), (tree_before >> 20, tree_after >> 20)
