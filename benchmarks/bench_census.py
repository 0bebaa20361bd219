"""Questions by value in bounded memory: ``ruma find`` / ``ruma census --value`` against the full census.

    python benchmarks/bench_census.py --data DIR                      # Sowing, seeds 0..13, pots 1..13
    python benchmarks/bench_census.py --data DIR --ruleset impartial-sowing --seeds 11 --value '*4'

``DIR`` holds a store; the family (seeds ``0..B``, pots ``1..B``) is swept into it first when it is
not there yet (timed apart). Then, each in its own process (peak resident memory from the
kernel's accounting of the child, ``wait4``):

1. **full census, enumerated** (the peer): every class at once (``enumerate_family``) and every
   value looked up (``census.census``), as ``ruma census`` did before it streamed;
2. **find**: ``ruma find RULESET V... --seeds ..B --json``;
3. **census --value**: ``ruma census RULESET --seeds B --pots B --value V ... --format csv``;
4. with ``--full-streamed``, **full census, streamed**: ``ruma census RULESET --seeds B --pots B
   --format csv`` (every value, through the streamed walk: its memory is that of the values).

The rows of 2 and 3 are checked to be the rows of 1 for those values (classes, raw positions,
simplest positions), and 4's rows to be 1's. Figures: wall seconds and peak RSS of each, and
the ratios of 1's peak to the others'. Run it alone on the machine (nothing else heavy at the
same time: the figures are wall seconds and memory).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FULL_ENUMERATED = """
import csv, sys
from ruma.engine.stores import open_store
from ruma.engine.families.census import census
from ruma.engine.families.classes import Family, enumerate_family
ruleset, seeds, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
family = Family.of(ruleset, (0, seeds), (1, seeds))
store = open_store(path, create=False)
rules = family.rules
rows = census(rules, enumerate_family(family), store.lookup, "value", 3)
out = csv.writer(sys.stdout, lineterminator="\\n")
out.writerow(["by", "group", "nim_value", "classes", "raw_positions", "simplest"])
for row in rows:
    nim = row.group if isinstance(row.group, int) else row.group.nim_value
    out.writerow(["value", row.label(), "" if nim is None else nim, row.classes, row.raw_positions,
                  " ".join(rules.format(rep) for rep, _, _ in row.simplest)])
store.close()
"""


def _run(command: list[str]) -> tuple[float, int, str, str]:
    """Wall seconds, peak RSS (bytes: the child's own, reaped with ``wait4``), stdout and stderr of a
    child. Its output goes to temporary files, read once it has ended: this process stays small, so
    a child forked from it does not start with a large resident set (which ``ru_maxrss`` counts)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:6])}... failed ({child.returncode}):\n{stderr}")
    return seconds, usage.ru_maxrss * 1024, stdout, stderr


def rows_of(text: str) -> dict[str, tuple[str, str, str]]:
    """CSV census rows by group: (classes, raw positions, simplest)."""
    return {r["group"]: (r["classes"], r["raw_positions"], r["simplest"]) for r in csv.DictReader(io.StringIO(text))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="a store directory (the family is swept into it if missing)")
    parser.add_argument("--ruleset", default="sowing")
    parser.add_argument("--seeds", type=int, default=13)
    parser.add_argument("--value", action="append", help="values asked (default: *3, ^, *, 0)")
    parser.add_argument("--full-streamed", action="store_true", help="also the streamed census of every value")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    values = args.value or ["*3", "^", "*", "0"]
    ruma = [sys.executable, "-m", "ruma.client.cli"]
    seeds, path = str(args.seeds), str(Path(args.data).resolve())
    report: dict[str, Any] = {"ruleset": args.ruleset, "seeds": args.seeds, "values": values,
                              "load": os.getloadavg()}
    if not (Path(path) / "data.mdb").exists():
        Path(path).mkdir(parents=True, exist_ok=True)
    sweep = _run([*ruma, "sweep", args.ruleset, "--seeds", seeds, "--data", path, "--json", "--no-progress"])
    report["sweep"] = {"seconds": round(sweep[0], 2), "peak_bytes": sweep[1], "summary": json.loads(sweep[2])}
    runs = {
        "find": [*ruma, "find", args.ruleset, *values, "--seeds", f"..{seeds}", "--pots", seeds, "--data", path,
                 "--json", "--no-progress"],
        "census --value": [*ruma, "census", args.ruleset, "--seeds", seeds, "--pots", seeds, "--data", path,
                           "--format", "csv", "--no-progress", *[a for v in values for a in ("--value", v)]],
        "full census, enumerated (peer)": [sys.executable, "-c", FULL_ENUMERATED, args.ruleset, seeds, path],
    }
    if args.full_streamed:
        runs["full census, streamed"] = [*ruma, "census", args.ruleset, "--seeds", seeds, "--pots", seeds, "--data",
                                         path, "--format", "csv", "--no-progress"]
    results: dict[str, Any] = {}
    outputs: dict[str, str] = {}
    for name, command in runs.items():
        seconds, peak, out, err = _run(command)
        results[name] = {"seconds": round(seconds, 2), "peak_bytes": peak, "peak_mib": round(peak / 2**20)}
        outputs[name] = out
        print(f"{name:32} {seconds:8.1f} s  {peak / 2**20:8.0f} MiB", file=sys.stderr, flush=True)
    reference = rows_of(outputs["full census, enumerated (peer)"])
    if args.full_streamed:
        assert rows_of(outputs["full census, streamed"]) == reference, "the streamed census differs"
    asked = rows_of(outputs["census --value"])
    assert asked and all(reference[group] == row for group, row in asked.items()), "census --value differs"
    found = {json.loads(line)["group"]: json.loads(line) for line in outputs["find"].splitlines()}
    for group, record in found.items():
        classes, raw, simplest = reference[group]
        assert (str(record["classes"]), str(record["raw_positions"])) == (classes, raw), group
        assert record["simplest"][:3] == simplest.split(), group
    report["runs"] = results
    report["rows"] = {"full": len(reference), "asked": sorted(asked)}
    peer = results["full census, enumerated (peer)"]["peak_bytes"]
    report["peak_ratio"] = {name: round(peer / r["peak_bytes"], 2) for name, r in results.items()}
    print(json.dumps(report, indent=None if args.json else 1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
