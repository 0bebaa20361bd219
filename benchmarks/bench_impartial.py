"""The compiled impartial search against a plain C solver: ``ruma eval impartial-sowing 1^n`` beside
a naive solver of the same game, whole processes timed from outside.

    python benchmarks/bench_impartial.py                    # 1^14 and 1^15, 3 alternating runs each
    python benchmarks/bench_impartial.py --n 16 --repeat 1 --json

The solver is ``../shared/calibration/naive_impartial_sowing.c`` beside the repository when it is
there (the calibration solver: strip and mirror, 4-bit pots in a 64-bit key, one open-addressing
table of 9-byte slots, plain recursion), else ``benchmarks/baseline_impartial_sowing.c``, a plain
solver written the same way (the script says which). It is compiled with ``cc -O2`` into a
temporary directory and run as ``SOLVER N BITS`` (a table of 2^BITS slots: ``--bits``, by default
the smallest power of two at a load of at most 0.62, as the calibration's 1^14 = 24 and 1^16 = 27
bits give) alternately with ``ruma eval impartial-sowing 1^N --no-limit --format json``, ``--repeat``
times each. Each run is one process started from here: wall seconds from the outside, CPU seconds
and peak RSS from ``os.wait4``. The values are checked equal. Reported per n: the median of each
measure, and ruma / solver for wall, CPU and peak memory. The load average is printed: the
machine's cores are shared, and on a busy machine the CPU ratio is the steadier one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION = ROOT.parent / "shared" / "calibration" / "naive_impartial_sowing.c"
OWN_BASELINE = Path(__file__).resolve().parent / "baseline_impartial_sowing.c"
POSITIONS = {12: 353_178, 13: 1_345_046, 14: 5_202_016, 15: 20_016_436, 16: 77_453_251}  # roughly, for --bits


def default_bits(n: int) -> int:
    """The smallest table of 2^bits slots at a load of at most 0.62 for 1^n."""
    positions = POSITIONS.get(n, 4 ** (n - 3))
    bits = 8
    while positions > 0.62 * 2**bits:
        bits += 1
    return bits


def build_solver(directory: str) -> tuple[str, str]:
    """The compiled solver's path, and which source it is."""
    source, name = (CALIBRATION, "calibration solver") if CALIBRATION.is_file() else (
        OWN_BASELINE, "own baseline (the calibration solver is absent)")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        sys.exit("no C compiler (cc) to build the solver")
    binary = os.path.join(directory, "solver")
    subprocess.run([compiler, "-O2", "-o", binary, str(source)], check=True)
    return binary, f"{name}: {source}"


def ruma_command() -> list[str]:
    """``ruma`` beside this Python, else ``python -m ruma.client.cli``."""
    script = Path(sys.executable).with_name("ruma")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ruma.client.cli"]


def run(command: list[str]) -> dict[str, Any]:
    """One process: wall and CPU seconds, peak RSS (bytes), its standard output."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors)
        assert process.stdout is not None
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            sys.exit(f"{' '.join(command)} failed ({process.returncode}): {errors.read().decode(errors='replace')[-500:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024,
            "out": out.decode()}


def solver_value(out: str) -> tuple[int, int]:
    found = re.search(r"= \*(\d+)\s+positions (\d+)", out)
    if found is None:
        sys.exit(f"unexpected solver output: {out!r}")
    return int(found.group(1)), int(found.group(2))


def ruma_value(out: str) -> tuple[int, int]:
    record = json.loads(out.splitlines()[0])
    return int(record["nim_value"]), int(record["stats"]["positions_valued"])


def measure(n: int, bits: int, repeat: int, solver: str) -> dict[str, Any]:
    """Alternate the solver and ruma on 1^n, ``repeat`` runs each."""
    runs: dict[str, list[dict[str, Any]]] = {"solver": [], "ruma": []}
    values = {}
    for _ in range(repeat):
        for name, command in (("solver", [solver, str(n), str(bits)]),
                              ("ruma", [*ruma_command(), "eval", "impartial-sowing", f"1^{n}", "--no-limit",
                                        "--format", "json"])):
            result = run(command)
            values[name] = (solver_value if name == "solver" else ruma_value)(result["out"])
            runs[name].append(result)
            print(f"  1^{n} {name:6}  wall {result['wall']:7.2f} s  cpu {result['cpu']:7.2f} s  "
                  f"peak {result['rss'] / 1e6:8.1f} MB  load {os.getloadavg()[0]:.2f}", flush=True)
    if values["solver"][0] != values["ruma"][0]:
        print(f"  VALUES DIFFER: solver *{values['solver'][0]}, ruma *{values['ruma'][0]}")
    median = {name: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "rss")}
              for name, rs in runs.items()}
    return {
        "n": n, "bits": bits, "repeat": repeat,
        "value": {"solver": values["solver"][0], "ruma": values["ruma"][0]},
        "positions": {"solver": values["solver"][1], "ruma": values["ruma"][1]},
        "median": median,
        "ratio": {k: median["ruma"][k] / median["solver"][k] for k in ("wall", "cpu", "rss")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[14, 15], help="rows 1^n to value (default 14 15)")
    parser.add_argument("--repeat", type=int, default=3, help="alternating runs of each (default 3)")
    parser.add_argument("--bits", type=int, help="the solver's table: 2^BITS slots (default: by n)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        solver, which = build_solver(directory)
        print(f"solver: {which}")
        results = []
        for n in args.n:
            result = measure(n, args.bits or default_bits(n), args.repeat, solver)
            results.append(result)
            m, r = result["median"], result["ratio"]
            print(f"1^{n}: solver {m['solver']['wall']:.2f} s ({m['solver']['cpu']:.2f} s CPU) "
                  f"{m['solver']['rss'] / 1e6:.0f} MB at 2^{result['bits']} slots, {result['positions']['solver']:,} "
                  f"positions; ruma {m['ruma']['wall']:.2f} s ({m['ruma']['cpu']:.2f} s CPU) "
                  f"{m['ruma']['rss'] / 1e6:.0f} MB, {result['positions']['ruma']:,} positions")
            print(f"  ruma / solver: wall {r['wall']:.2f}, CPU {r['cpu']:.2f}, peak memory {r['rss']:.2f}")
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
