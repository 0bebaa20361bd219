"""Where a stored EvaluateBatch spends its CPU: server and load generator, per position.

    python benchmarks/profile_grpc_server.py [--seconds 6] [--py-spy FILE]

Starts ``ruma serve`` on a fresh store as ``bench_grpc.py`` does, loads the same 3,072 Sowing
positions, then keeps two brief EvaluateBatch calls in flight for ``--seconds`` and prints the
throughput and the CPU seconds per position of the server process (from ``/proc``, all its
threads) and of this process. With ``--py-spy FILE`` it also records the server with py-spy
(``pip install py-spy``; raw collapsed stacks, for a flame graph or a quick count). Linux only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_grpc  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--py-spy", dest="py_spy", help="record the server with py-spy into this file")
    args = parser.parse_args()
    from ruma.client import Client

    texts = bench_grpc.positions()
    with tempfile.TemporaryDirectory() as directory:
        process, address = bench_grpc.start_server(Path(directory) / "data")
        try:
            client = Client(address)
            client.load("sowing", texts)
            bench_grpc.throughput(client, texts, 1000, 1.0, in_flight=2)  # warm up
            spy = None
            if args.py_spy:
                spy = subprocess.Popen(["py-spy", "record", "-p", str(process.pid), "-d", str(int(args.seconds) + 1),
                                        "-f", "raw", "-o", args.py_spy, "-r", "200"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(0.5)
            server, mine, started = cpu_seconds(process.pid), time.process_time(), time.perf_counter()
            rate = bench_grpc.throughput(client, texts, 1000, args.seconds, in_flight=2)
            done = rate * (time.perf_counter() - started)
            server, mine = cpu_seconds(process.pid) - server, time.process_time() - mine
            print(f"EvaluateBatch brief, 2 calls in flight: {rate:,.0f} positions/s; CPU per position: "
                  f"server {server / done * 1e6:.1f} µs, load generator {mine / done * 1e6:.1f} µs")
            if spy is not None:
                spy.wait()
            client.close()
        finally:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
