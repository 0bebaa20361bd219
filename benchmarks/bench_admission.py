"""The shared service under hostile load: what a well-behaved client sees meanwhile.

    python benchmarks/bench_admission.py [--silent 32] [--heavy 40] [--max-seconds 5] [--json]

A real ``ruma serve`` (2 evaluation workers, 2 readers, ``--max-seconds``) in a subprocess and a
prober process asking it for stored values in a loop (``tests/support/serve_harness.Prober``). The peer is
the prober's own latency on the idle server, measured in the same invocation. Reported:

* stored ``Evaluate`` p50/p99, idle, then while ``--silent`` streams send headers and never their
  request and ``--heavy`` calls that cannot finish flood the server; how long the heavy calls took
  to be answered (all must end within ``--max-seconds`` + 1 s), and how they ended;
* ``--max-queue 4`` with one evaluation worker: how fast the overflow is refused;
* the server's own process and the whole tree's resident memory before and after reading 20,000
  stored values of Sowing 1^12's search (full replies);
* the web explorer (``--max-slow 16``): a cheap page's latency while 60 slow requests arrive.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # (tests.support: the serve harness)

STORED = [("sowing", "1^7"), ("sowing", "1^8"), ("sowing", "312")]


def quantiles(records: list[tuple[float, float, str]]) -> dict[str, float]:
    """p50 and p99 latency (ms) of prober records."""
    latencies = sorted(r[1] for r in records)
    return {"calls": len(latencies), "p50_ms": round(statistics.median(latencies) * 1e3, 2),
            "p99_ms": round(latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1e3, 2)}


def flood(work: Path, silent: int, heavy: int, max_seconds: float) -> dict[str, Any]:
    """Silent streams and heavy calls against a prober's stored lookups."""
    import grpc

    from ruma.v1 import ruma_pb2 as pb
    from ruma.v1 import ruma_pb2_grpc
    from tests.support.serve_harness import Prober, serving

    with serving(work / "flood", "--max-seconds", str(max_seconds), "--max-memory", "0") as (_, address):
        stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
        for ruleset, position in STORED:
            stub.Evaluate(pb.EvaluateRequest(ruleset=ruleset, position=position), timeout=60)
        prober = Prober(address, STORED)
        time.sleep(2.0)
        idle_start = time.monotonic()
        time.sleep(5.0)
        start = time.monotonic()
        gate = threading.Event()

        def never() -> Any:
            gate.wait(120)
            return
            yield b""

        channels = [grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(4)]
        streams = [channels[i % 4].stream_unary("/ruma.v1.Ruma/Evaluate", request_serializer=None,
                                                response_deserializer=None).future(never(), timeout=120)
                   for i in range(silent)]

        def one(n: int) -> tuple[str, float]:
            began = time.monotonic()
            request = pb.EvaluateRequest(ruleset="sowing", position=f"1^{30 + n % 20} {2 + n // 20}")
            try:
                stub.Evaluate(request, timeout=120)
                return "OK", time.monotonic() - began
            except grpc.RpcError as error:
                return error.code().name, time.monotonic() - began

        with ThreadPoolExecutor(heavy) as pool:
            answers = list(pool.map(one, range(heavy)))
        end = time.monotonic()
        gate.set()
        for stream in streams:
            stream.cancel()
        prober.stop()
    codes: dict[str, int] = {}
    for code, _ in answers:
        codes[code] = codes.get(code, 0) + 1
    return {"idle": quantiles(prober.window(idle_start, start)), "during": quantiles(prober.window(start, end)),
            "heavy_seconds_max": round(max(s for _, s in answers), 2),
            "heavy_seconds_min": round(min(s for _, s in answers), 2), "heavy_codes": codes}


def queue(work: Path) -> dict[str, Any]:
    """Twelve heavy calls at once against one worker and ``--max-queue 4``."""
    import grpc

    from ruma.v1 import ruma_pb2 as pb
    from ruma.v1 import ruma_pb2_grpc
    from tests.support.serve_harness import serving

    with serving(work / "queue", "--max-seconds", "4", "--eval-workers", "1", "--max-queue", "4", "--max-memory", "0",
                 workers=1) as (_, address):
        stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address))
        stub.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="312"), timeout=60)

        def one(n: int) -> tuple[str, float]:
            time.sleep(0.3 if n else 0.0)
            began = time.monotonic()
            try:
                stub.Evaluate(pb.EvaluateRequest(ruleset="sowing", position=f"1^{30 + n} 2"), timeout=60)
                return "OK", time.monotonic() - began
            except grpc.RpcError as error:
                return ("refused" if "already wait" in (error.details() or "") else error.code().name,
                        time.monotonic() - began)

        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(one, range(12)))
    refused = [s for code, s in answers if code == "refused"]
    return {"refused": len(refused), "refused_ms_max": round(max(refused) * 1e3, 1) if refused else None,
            "admitted_seconds_max": round(max(s for code, s in answers if code != "refused"), 2)}


def memory(work: Path) -> dict[str, Any]:
    """Resident memory before and after reading 20,000 stored values (full replies)."""
    import grpc
    import psutil

    from ruma.server.store.keys import state_of_key
    from ruma.server.store.memo import LmdbStore
    from ruma.v1 import ruma_pb2 as pb
    from ruma.v1 import ruma_pb2_grpc
    from tests.support.serve_harness import serving, tree_rss

    data = work / "memory"
    with serving(data, "--max-seconds", "120") as (process, address):
        stub = ruma_pb2_grpc.RumaStub(grpc.insecure_channel(address, options=[
            ("grpc.max_receive_message_length", 64 << 20)]))
        stub.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="1^12"), timeout=120)
        with LmdbStore(data, create=False) as store:
            with store.admin.env.begin(db=store.admin.db("positions")) as txn:
                keys = [bytes(key) for key, _ in txn.cursor()]
        random.Random(12).shuffle(keys)
        texts = []
        for key in keys[:20_000]:
            rules, state = state_of_key(key)
            texts.append(rules.format(state))
        time.sleep(3.0)  # the worker that valued 1^12 is replaced
        server = psutil.Process(process.pid)
        before, tree_before = server.memory_info().rss, tree_rss(process.pid)
        began = time.monotonic()
        for start in range(0, len(texts), 500):
            stub.EvaluateBatch(pb.EvaluateBatchRequest(ruleset="sowing", positions=texts[start:start + 500]), timeout=120)
        seconds = time.monotonic() - began
        after, tree_after = server.memory_info().rss, tree_rss(process.pid)
    return {"server_mib": [before >> 20, after >> 20], "tree_mib": [tree_before >> 20, tree_after >> 20],
            "values_per_second": round(len(texts) / seconds)}


def web(work: Path) -> dict[str, Any]:
    """A cheap page's latency while 60 slow requests arrive at the explorer."""
    import httpx

    from ruma.server.work.limits import Limits
    from ruma.web import BackgroundServer, Gateway, create_app
    from tests.support.grpc_harness import running_server

    with running_server(work / "web", limits=Limits(max_seconds=5, max_memory=0)) as (_, address):
        gateway = Gateway(address)
        try:
            with BackgroundServer(create_app(gateway)) as site:
                httpx.get(site.url + "/api/v1/rulesets", timeout=30)
                idle = []
                for _ in range(20):
                    began = time.monotonic()
                    httpx.get(site.url + "/api/v1/rulesets", timeout=30)
                    idle.append(time.monotonic() - began)

                def slow(n: int) -> int:
                    return httpx.get(site.url + f"/api/v1/positions/sowing/1%5E{30 + n % 20}%20{2 + n // 20}"
                                     "?options=false", timeout=60).status_code

                with ThreadPoolExecutor(60) as pool:
                    futures = [pool.submit(slow, n) for n in range(60)]
                    time.sleep(1.0)
                    busy = []
                    for _ in range(20):
                        began = time.monotonic()
                        httpx.get(site.url + "/api/v1/rulesets", timeout=60)
                        busy.append(time.monotonic() - began)
                    codes = [f.result() for f in futures]
        finally:
            gateway.close()
    return {"cheap_ms_idle_median": round(statistics.median(idle) * 1e3, 1),
            "cheap_ms_during_median": round(statistics.median(busy) * 1e3, 1),
            "cheap_ms_during_max": round(max(busy) * 1e3, 1),
            "slow_shed_503": codes.count(503), "slow_other": sorted(set(c for c in codes if c != 503))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--silent", type=int, default=32)
    parser.add_argument("--heavy", type=int, default=40)
    parser.add_argument("--max-seconds", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        results = {"flood": flood(work, args.silent, args.heavy, args.max_seconds), "queue": queue(work),
                   "memory": memory(work), "web": web(work)}
    if args.json:
        print(json.dumps(results))
        return
    f, q, m, w = results["flood"], results["queue"], results["memory"], results["web"]
    print(f"stored Evaluate idle: p50 {f['idle']['p50_ms']} ms, p99 {f['idle']['p99_ms']} ms ({f['idle']['calls']} calls)")
    print(f"  with {args.silent} silent streams and {args.heavy} heavy calls: p50 {f['during']['p50_ms']} ms, "
          f"p99 {f['during']['p99_ms']} ms ({f['during']['calls']} calls)")
    print(f"  heavy calls answered in {f['heavy_seconds_min']}-{f['heavy_seconds_max']} s "
          f"(--max-seconds {args.max_seconds:g}): {f['heavy_codes']}")
    print(f"--max-queue 4, one worker, 12 calls: {q['refused']} refused within {q['refused_ms_max']} ms; "
          f"the admitted answered within {q['admitted_seconds_max']} s")
    print(f"20,000 stored values read ({m['values_per_second']}/s): server process {m['server_mib'][0]} -> "
          f"{m['server_mib'][1]} MiB, with its workers {m['tree_mib'][0]} -> {m['tree_mib'][1]} MiB")
    print(f"web: a cheap page {w['cheap_ms_idle_median']} ms idle, {w['cheap_ms_during_median']} ms (max "
          f"{w['cheap_ms_during_max']} ms) during 60 slow requests; {w['slow_shed_503']} of them shed with 503, "
          f"the others {w['slow_other']}")


if __name__ == "__main__":
    main()
