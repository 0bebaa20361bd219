"""Printing a table of long canonical forms to a pipe: ``ruma``'s plain table against CSV and
against a ``rich`` table padded to the widest cell (how tables were written to pipes before).

    python benchmarks/bench_output.py                 # 5,000 rows: Sowing values of 1..10 seeds
    python benchmarks/bench_output.py --rows 20000

The rows are ``evaluation`` records of Sowing positions: the ``--rows`` with the longest values of
a random sample of four times as many rows of up to 10 seeds in up to 10 pots, valued in this
process (canonical forms of up to a few hundred characters, to which the peer pads every row).
They are printed into a file with ``ruma.client.cli.output.Output`` as ``table`` and as ``csv``,
and as the ``rich`` table the peer draws. Figures: seconds of each (best of ``--repeat``), bytes
written, and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from itertools import islice
from typing import Any


def records(count: int) -> list[dict[str, Any]]:
    import random

    from ruma.client.records import evaluation_record
    from ruma.engine.evaluator import evaluate
    from ruma.engine.families.classes import Family, raw_rows
    from ruma.engine.memo import new_memo

    family = Family.of("sowing", (1, 10), (1, 10))
    memo = new_memo()
    rules = family.rules
    rows = random.Random(31).sample([row for row in raw_rows(family) if row[0] and row[-1]], 4 * count)
    rows.sort(key=lambda row: -len(format(evaluate(rules, row, memo).value, "unicode")))  # the longest values first
    return [evaluation_record(evaluate(rules, row, memo)) for row in islice(rows, count)]


def timed(write: Any, repeat: int) -> tuple[float, int]:
    best, size = float("inf"), 0
    for _ in range(repeat):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
            started = time.perf_counter()
            write(out)
            out.flush()
            best = min(best, time.perf_counter() - started)
            size = os.fstat(out.fileno()).st_size
    return best, size


def main(argv: list[str] | None = None) -> int:
    from ruma.client.cli.eval import COLUMNS
    from ruma.client.cli.output import Output, cell

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    data = records(args.rows)

    def as_format(fmt: str) -> Any:
        def write(out: Any) -> None:
            with Output(fmt, COLUMNS, stream=out) as printer:
                for record in data:
                    printer.emit(record)
        return write

    def padded_rich(out: Any) -> None:  # the peer: every column padded to its widest cell
        from rich.console import Console
        from rich.table import Table

        console = Console(file=out, width=100_000, no_color=True, highlight=False, emoji=False, markup=False)
        table = Table(box=None, show_edge=False, pad_edge=False)
        for column in COLUMNS:
            table.add_column(column.title, justify=column.justify, overflow="fold")  # type: ignore[arg-type]
        for record in data:
            table.add_row(*[cell(record.get(c.key)) for c in COLUMNS])
        with console.capture() as captured:
            console.print(table)
        out.write("\n".join(line.rstrip() for line in captured.get().splitlines()) + "\n")

    report: dict[str, Any] = {"rows": len(data), "longest_value": max(len(r["value"]) for r in data),
                              "load": os.getloadavg()}
    for name, write in (("table (plain)", as_format("table")), ("csv", as_format("csv")),
                        ("table, rich padded (peer)", padded_rich)):
        seconds, size = timed(write, args.repeat)
        report[name] = {"seconds": round(seconds, 3), "bytes": size}
        print(f"{name:28} {seconds:7.3f} s  {size:>12,} bytes", file=sys.stderr)
    report["plain / csv"] = round(report["table (plain)"]["seconds"] / report["csv"]["seconds"], 2)
    report["peer / plain"] = round(report["table, rich padded (peer)"]["seconds"] / report["table (plain)"]["seconds"], 1)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
