"""gRPC service benchmark: EvaluateBatch throughput and unary Evaluate latency on stored positions.

    python benchmarks/bench_grpc.py [--seconds 5] [--batch-size 1000] [--calls 3000] [--json]

A real ``ruma serve`` runs in a subprocess (its own LMDB store in a temporary directory) and this
process is the load generator, both on this machine, over loopback. The positions are every
Sowing position of 1–6 pots with 0–3 seeds each (no empty end pots); they are loaded first, so
every measured request is answered from the store. Reported, in one invocation:

* EvaluateBatch throughput, positions/s (brief replies, ASCII only — what ``ruma load`` asks
  for — and full replies with components, analyses and all three notations);
* Evaluate latency p50/p99 (full replies), one call at a time;
* the same evaluations in-process (``evaluate`` over the LMDB store, no gRPC), as the peer that
  shows what the service adds.

Targets: ≥ 20,000 positions/s through EvaluateBatch; p50 ≤ 2 ms for Evaluate.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def positions() -> list[str]:
    """Every Sowing position with 1–6 pots of 0–3 seeds, no empty first or last pot."""
    out = []
    for pots in range(1, 7):
        for counts in itertools.product(range(4), repeat=pots):
            if counts[0] and counts[-1]:
                out.append("".join(map(str, counts)))
    return out


def start_server(data: Path) -> tuple[subprocess.Popen[str], str]:
    """``ruma serve`` on a free loopback port; returns the process and its address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ruma.client.cli", "serve", "--data", str(data), "--port", "0", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        raise SystemExit("ruma serve did not start")
    return process, json.loads(line)["address"]


def throughput(client: Any, texts: list[str], batch_size: int, seconds: float, *, brief: bool = True,
               typed: bool = False, in_flight: int = 1) -> float:
    """Positions per second through EvaluateBatch for about ``seconds``.

    ``typed``: through ``Client.evaluate_batch`` (result dataclasses); otherwise the raw stub, as
    ``ruma load`` uses it. ``in_flight``: calls outstanding at once (one thread each).
    """
    from concurrent.futures import ThreadPoolExecutor

    from ruma.v1 import ruma_pb2 as pb

    notations = [pb.NOTATION_ASCII] if brief else []
    batches = [texts[i : i + batch_size] for i in range(0, len(texts), batch_size)]
    deadline = time.perf_counter() + seconds

    def run(offset: int) -> int:
        done = 0
        for batch in itertools.islice(itertools.cycle(batches), offset, None):
            if typed:
                items = client.evaluate_batch("sowing", batch, notations=["ascii"] if brief else None, brief=brief)
                assert all(item.ok and item.evaluation.from_store for item in items)
            else:
                request = pb.EvaluateBatchRequest(ruleset="sowing", positions=batch, notations=notations, brief=brief)
                reply = client.call(client.stub.EvaluateBatch, request)
                assert all(item.evaluation.from_store for item in reply.items)
            done += len(batch)
            if time.perf_counter() >= deadline:
                return done
        return done

    started = time.perf_counter()
    with ThreadPoolExecutor(in_flight) as pool:
        total = sum(pool.map(run, range(in_flight)))
    return total / (time.perf_counter() - started)


def latency(client: Any, texts: list[str], calls: int) -> dict[str, float]:
    """p50/p99/mean of unary Evaluate, milliseconds."""
    samples = []
    for text in itertools.islice(itertools.cycle(texts), calls):
        started = time.perf_counter()
        result = client.evaluate("sowing", text)
        samples.append((time.perf_counter() - started) * 1000)
        assert result.from_store
    samples.sort()
    return {
        "p50_ms": samples[len(samples) // 2],
        "p99_ms": samples[int(len(samples) * 0.99)],
        "mean_ms": statistics.fmean(samples),
    }


def in_process(data: Path, texts: list[str], seconds: float) -> float:
    """Positions per second of ``evaluate`` over the same (stored) LMDB store, in this process."""
    from ruma.engine.evaluator import evaluate
    from ruma.server.store.memo import LmdbStore

    with LmdbStore(data, create=False) as store:
        done = 0
        started = time.perf_counter()
        for text in itertools.cycle(texts):
            assert evaluate("sowing", text, store).from_memo
            done += 1
            if done % 500 == 0 and time.perf_counter() - started >= seconds:
                break
        return done / (time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each throughput run")
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=3000, help="unary calls for the latency run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from ruma.client import Client

    texts = positions()
    results: dict[str, Any] = {"positions": len(texts), "cpus": os.cpu_count(), "batch_size": args.batch_size}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        process, address = start_server(data)
        try:
            with Client(address, timeout=600) as client:
                started = time.perf_counter()
                summary = client.load("sowing", texts, batch_size=args.batch_size, progress=False)
                results["load_seconds"] = time.perf_counter() - started
                assert not summary.failed, summary.failed[:3]
                client.evaluate_batch("sowing", texts[:100])  # warm the server's caches
                results["batch_brief_per_s"] = throughput(client, texts, args.batch_size, args.seconds)
                results["batch_brief_2_in_flight_per_s"] = throughput(client, texts, args.batch_size, args.seconds, in_flight=2)
                results["batch_brief_typed_per_s"] = throughput(client, texts, args.batch_size, args.seconds, typed=True)
                started = time.perf_counter()  # first full pass computes every analysis (then cached by value)
                client.evaluate_batch("sowing", texts)
                results["full_first_pass_seconds"] = time.perf_counter() - started
                results["batch_full_typed_per_s"] = throughput(client, texts, args.batch_size, args.seconds, brief=False,
                                                               typed=True)
                again = texts * 10
                reload = client.load("sowing", again, batch_size=args.batch_size, progress=False)
                assert reload.already_stored == len(again)
                results["load_stored_per_s"] = len(again) / reload.seconds
                results["evaluate"] = latency(client, texts, args.calls)
                results["server_stats"] = {k: v for k, v in vars(client.stats()).items() if k != "uptime_seconds"}
        finally:
            process.terminate()
            process.wait(30)
        results["in_process_per_s"] = in_process(data, texts, args.seconds)
    results["batch_vs_in_process"] = results["batch_brief_per_s"] / results["in_process_per_s"]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        ev = results["evaluate"]
        print(f"positions: {len(texts)} Sowing positions, loaded in {results['load_seconds']:.1f} s")
        print(f"EvaluateBatch brief, 1 call in flight:  {results['batch_brief_per_s']:>8,.0f} positions/s  (target >= 20,000)")
        print(f"EvaluateBatch brief, 2 calls in flight: {results['batch_brief_2_in_flight_per_s']:>8,.0f} positions/s")
        print(f"  same through Client.evaluate_batch:   {results['batch_brief_typed_per_s']:>8,.0f} positions/s")
        print(f"  full replies, Client.evaluate_batch:  {results['batch_full_typed_per_s']:>8,.0f} positions/s"
              f" (after a first pass of {results['full_first_pass_seconds']:.1f} s computing the analyses)")
        print(f"ruma load of stored positions:          {results['load_stored_per_s']:>8,.0f} positions/s")
        print(f"in-process evaluate() over the store:   {results['in_process_per_s']:>8,.0f} positions/s (peer)")
        print(f"Evaluate latency: p50 {ev['p50_ms']:.2f} ms, p99 {ev['p99_ms']:.2f} ms, mean {ev['mean_ms']:.2f} ms "
              "(target p50 <= 2 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
