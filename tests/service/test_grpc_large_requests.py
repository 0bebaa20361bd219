"""Very large requests fail item by item, with short reasons, and do not stall the stored lookups.

The probe: an ``EvaluateBatch`` of 10,000 malformed positions of 6,000 characters (60 MB) once
pushed an honest client's stored lookups to 496 ms, and 10,000 × ``'1 ' * 3000`` failed whole
after 2.5 s ("Sent message larger than max (80140000 vs. 67108864)": every item's message quoted
its input). Now such a request is decoded and answered by a reader worker (at a lower priority,
one reader left for the others), each item fails alone with a message that quotes a prefix of its
input and its length, and a reply is kept within 64 MiB item by item.

The batches come from a process of their own at a lower priority, each request serialised once:
on a test machine of two cores the client's own work would otherwise be counted as the server's.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from ruma.server.rpc.servicer import bound_reply
from ruma.v1 import ruma_pb2 as pb
from tests.support.serve_harness import baseline_prober, check_p99, serving

pytestmark = [pytest.mark.slow, pytest.mark.alone]  # (alone: it times what it serves)

STORED = [("sowing", "1^7"), ("sowing", "1^8"), ("sowing", "312")]
MALFORMED, TOO_MANY_POTS = "x" * 6000, "1 " * 3000
INVALID, EXHAUSTED = grpc.StatusCode.INVALID_ARGUMENT.value[0], grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]


def send_batches(address: str, text: str, times: int, conn: Any) -> None:
    """``times`` EvaluateBatch calls of 10,000 × ``text``, one after another; what each got back."""
    os.nice(10)
    raw = pb.EvaluateBatchRequest(ruleset="sowing", positions=[text] * 10_000, brief=True,
                                  notations=[pb.NOTATION_ASCII]).SerializeToString()
    channel = grpc.insecure_channel(address, options=[("grpc.max_send_message_length", 64 << 20),
                                                      ("grpc.max_receive_message_length", 64 << 20)])
    call = channel.unary_unary("/ruma.v1.Ruma/EvaluateBatch", request_serializer=None, response_deserializer=None)
    answers = []
    for _ in range(times):
        started = time.monotonic()
        try:
            reply = pb.EvaluateBatchResponse.FromString(call(raw, timeout=60))
            answers.append(("OK", time.monotonic() - started, len(raw), reply.ByteSize(),
                            [(item.status.code, item.status.message, item.position) for item in reply.items[:3]],
                            {item.status.code for item in reply.items}, len(reply.items)))
        except grpc.RpcError as error:
            answers.append((error.code().name, time.monotonic() - started, len(raw), 0, error.details(), set(), 0))
    conn.send(answers)


def test_a_60_mb_batch_fails_item_by_item_beside_fast_stored_lookups(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    with serving(tmp_path / "data") as (_, address):
        prober, baseline_start = baseline_prober(address, STORED, baseline=4.0)
        start = time.monotonic()
        answers = []
        for text, times in ((MALFORMED, 6), (TOO_MANY_POTS, 2)):
            parent, child = context.Pipe()
            sender = context.Process(target=send_batches, args=(address, text, times, child), daemon=True)
            sender.start()
            assert parent.poll(300), "the batches were not answered"
            answers += [(text, answer) for answer in parent.recv()]
            sender.join(10)
        end = time.monotonic()
        prober.stop()
    for text, (status, _, sent, size, first, codes, count) in answers:
        assert status == "OK" and count == 10_000 and sent > 60_000_000, (status, first)
        assert codes == ({INVALID} if text == MALFORMED else {EXHAUSTED}), codes
        assert size < 4_000_000, size  # short reasons, long positions sent back shortened
        for _, message, position in first:
            assert len(message) <= 300 and text[:200] not in message and "6000 characters" in message.replace(",", ""), message
            assert position.endswith("... (6,000 characters)") and len(position) < 100, position
    check_p99(prober.window(baseline_start, start), prober.window(start, end),
              f"60 MB batches (answered in {', '.join(f'{a[1]:.2f}' for _, a in answers)} s)")


def test_a_reply_past_the_message_limit_fails_the_items_past_it_alone() -> None:
    reply = pb.EvaluateBatchResponse()
    for n in range(10):
        reply.items.add(position=f"1^{n}", evaluation=pb.Evaluation(position=f"1^{n}", value=pb.Value(ascii="x" * 10_000)))
    bound_reply(reply, None, limit=40_000)
    kept = [item for item in reply.items if item.HasField("evaluation")]
    refused = [item for item in reply.items if item.status.code == EXHAUSTED]
    assert len(kept) + len(refused) == 10 and len(kept) == 3 and kept == list(reply.items[:3])
    assert all("smaller batch" in item.status.message and item.position for item in refused)
    assert reply.ByteSize() <= 40_000
