"""``ruma sweep`` and ``ruma census``: value whole families, and count what is stored.

    ruma sweep impartial-sowing --seeds 10 --pots 10      # every class into ./ruma-data, all cores
    ruma sweep sowing --seeds 10 --workers 1 --json        # in this process; a JSON summary
    ruma sweep sowing --seeds 10 --ray                     # on a local Ray cluster
    ruma sweep sowing --seeds 10 --ray ray://head:10001    # on an existing Ray cluster
    ruma sweep sowing --seeds 10 --server HOST:PORT --token T   # upload to a server (write token)
    ruma census impartial-sowing --seeds 10 --simplest 3 --format csv
    ruma census atomic-wari --seeds 8 --by atomic-weight --server HOST:PORT

The local store is found through the ``ruma.stores`` entry point (the client never imports the
server); conventions (``--data``, ``--server``, exit codes, one-line errors) follow docs/cli.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ruma.client.cli.errors import Unreachable, UsageError
from ruma.client.cli.options import (add_data_option, add_format_option, add_notation_option, add_progress_option,
                                     add_server_options, connect, data_directory, positive)
from ruma.client.cli.output import Output, progress
from ruma.engine.errors import RumaError

STYLES = ("unicode", "ascii", "braces")
CENSUS_COLUMNS = ("by", "group", "nim_value", "classes", "raw_positions", "simplest")


def parse_range(text: str, low_default: int, what: str) -> tuple[int, int]:
    """``B`` or ``A..B`` (inclusive) as ``(A, B)``."""
    low, sep, high = text.partition("..")
    try:
        if not sep:
            return low_default, int(text)
        return int(low), int(high)
    except ValueError:
        raise UsageError(f"--{what} {text!r}: expected B or A..B (whole numbers)") from None


def _family(args: argparse.Namespace) -> Any:
    from ruma.engine.families.enum import Family

    seeds = parse_range(args.seeds, 0, "seeds")
    pots = parse_range(args.pots, 1, "pots") if args.pots else None
    return Family.of(args.ruleset, seeds, pots)


def _backend(args: argparse.Namespace) -> Any:
    if args.ray is None:
        return None
    from ruma.client.sweep.ray import RayActors

    return RayActors(args.workers, args.ray or None)


def _store_sink(args: argparse.Namespace, create: bool = True) -> Any:
    from ruma.client.sweep.driver import StoreSink

    path = data_directory(args, create=create)
    try:
        return StoreSink(str(path))
    except RumaError as error:
        raise Unreachable(f"cannot open the store in {str(args.data)!r}: {error}") from None


def _run(args: argparse.Namespace, family: Any, sink: Any, **kwargs: Any) -> Any:
    """A sweep with a progress display (classes done of classes to value)."""
    from ruma.client.sweep.driver import run_sweep

    backend = _backend(args)
    name = f"{family.ruleset} seeds {family.seeds_min}..{family.seeds_max}"
    started = time.monotonic()
    try:
        with progress(name, total=1, enabled=args.progress, unit="classes") as bar:
            def report(done: int, total: int, computed: int) -> None:
                rate = done / max(time.monotonic() - started, 1e-9)
                bar.describe(f"{name}: {computed:,} positions valued, {rate:,.0f} classes/s")
                bar.update(done, total)

            return run_sweep(family, sink, workers=args.workers, backend=backend, progress=report, **kwargs)
    finally:
        if backend is not None:
            backend.close()


def run_sweep_command(args: argparse.Namespace) -> int:
    """``ruma sweep``: value every class of the family and commit it; prints a summary."""
    family = _family(args)
    if args.server:
        from ruma.client.sweep.client import ServerSink

        with connect(args) as client:
            summary = _run(args, family, ServerSink(client, family.ruleset))
    else:
        sink = _store_sink(args)
        try:
            summary = _run(args, family, sink)
        except BaseException:
            sink.close()
            raise
        sink.close(dense=True)  # (a store a sweep wrote is mostly free pages: rewritten densely)
    record = summary.to_dict()
    text = (f"{record['ruleset']} seeds {family.seeds_min}..{family.seeds_max} pots {family.pots_min}..{family.pots_max}: "
            f"{record['classes']:,} classes ({record['raw_positions']:,} raw positions), "
            f"{record['already_stored']:,} already stored, {record['classes_valued']:,} valued "
            f"({record['positions_valued']:,} positions) in {record['seconds']} s on {record['workers']} "
            f"worker(s) [{record['backend']}]")
    with Output(args.format) as out:
        out.emit(record, text)
    return 0


def local_census(args: argparse.Namespace, family: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Census from the local store, sweeping first what it lacks; (row records, summary record)."""
    from ruma.engine.families.census import census
    from ruma.engine.families.enum import enumerate_family

    started = time.perf_counter()
    sink = _store_sink(args, create=False)  # a census adds to a store, it never starts one
    try:
        classes = enumerate_family(family)
        swept = _run(args, family, sink, classes=classes)
        rows = census(family.rules, classes, sink.store.lookup, args.by, args.simplest)
    finally:
        sink.close()
    rules = family.rules
    records = []
    for row in rows:
        nim = row.group if isinstance(row.group, int) and not isinstance(row.group, bool) else getattr(row.group, "nim_value", None)
        records.append({"by": args.by, "group": row.label(args.notation), "nim_value": nim, "classes": row.classes,
                        "raw_positions": row.raw_positions,
                        "simplest": [rules.format(rep) for rep, _, _ in row.simplest],
                        "simplest_canonical": [rules.format(state) for _, state, _ in row.simplest]})
    summary = {"ruleset": rules.name, "seeds": [family.seeds_min, family.seeds_max],
               "pots": [family.pots_min, family.pots_max], "classes": len(classes),
               "raw_positions": sum(c.raw_total for c in classes), "rows": len(rows),
               "computed": swept.classes_valued, "seconds": round(time.perf_counter() - started, 3)}
    return records, summary


def remote_census(args: argparse.Namespace, family: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Census from a server (``compute_missing``: the server values what it lacks)."""
    from ruma.client.sweep import client as sweep_client

    with connect(args) as client:
        result = client.census(family.ruleset, (family.seeds_min, family.seeds_max), (family.pots_min, family.pots_max),
                               by=args.by, simplest=args.simplest, notations=[args.notation], compute_missing=True)
    records = [row.to_dict(args.notation) for row in result.rows]
    s: sweep_client.CensusSummary | None = result.summary
    summary = {} if s is None else {"ruleset": s.ruleset, "seeds": list(s.seeds), "pots": list(s.pots),
                                    "classes": s.classes, "raw_positions": s.raw_positions, "rows": s.rows,
                                    "computed": s.computed, "seconds": round(s.seconds, 3)}
    return records, summary


def run_census_command(args: argparse.Namespace) -> int:
    """``ruma census``: per group, how many classes and raw positions, and the simplest positions."""
    family = _family(args)
    records, summary = remote_census(args, family) if args.server else local_census(args, family)
    with Output(args.format, CENSUS_COLUMNS) as out:
        for record in records:
            shown = dict(record)
            if args.format != "json":
                shown["simplest"] = " ".join(record["simplest"])
            out.emit(shown)
    if summary and args.format == "table":
        print(f"# {summary['ruleset']} seeds {summary['seeds'][0]}..{summary['seeds'][1]} pots "
              f"{summary['pots'][0]}..{summary['pots'][1]}: {summary['classes']:,} classes, "
              f"{summary['raw_positions']:,} raw positions, {summary['rows']} rows", file=sys.stderr)
    return 0


def _location(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ruleset", help="sowing, impartial-sowing, atomic-wari, impartial-atomic-wari or atomic-wari-board")
    parser.add_argument("--seeds", required=True, metavar="[A..]B", help="seeds in all, A..B (A defaults to 0)")
    parser.add_argument("--pots", metavar="[C..]D", help="pots per row, C..D (default 1..B)")
    add_data_option(parser)
    parser.add_argument("--store", dest="data", metavar="DIR", help="same as --data")
    add_server_options(parser, optional=True)
    parser.add_argument("--workers", type=positive, default=None,
                        help="worker processes or Ray actors (default: all cores, but 1 for a partizan ruleset with "
                             "the compiled engine, where one process is faster; 1: value in this process)")
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                        help="run the workers on Ray: a local cluster, or join the one at ADDRESS (pip install 'ruma[ray]')")
    add_progress_option(parser)


def register(subparsers: Any) -> None:
    """Register ``sweep`` and ``census``."""
    sweep = subparsers.add_parser(
        "sweep", help="value every position of a family into the store",
        description="Value every position of RULESET with --seeds and --pots, once per normalisation class "
        "(strip, mirror, full pots), smallest first, and commit every value to the store (or upload it to "
        "--server). Resumable: classes already stored are skipped. See docs/sweeps.md.")
    _location(sweep)
    add_format_option(sweep, lists=False)
    sweep.set_defaults(handler=run_sweep_command)

    census = subparsers.add_parser(
        "census", help="count a family's classes and raw positions per value",
        description="For a family (sweeping first what the store lacks): per value (or outcome, atomic weight, "
        "temperature), how many classes and raw positions have it, and the K simplest positions — fewest "
        "seeds, then fewest pots, then the smallest row. See docs/sweeps.md.")
    _location(census)
    census.add_argument("--by", choices=("value", "outcome", "atomic-weight", "temperature"), default="value")
    census.add_argument("--simplest", type=int, default=3, metavar="K", help="positions listed per row (default 3)")
    add_format_option(census)
    add_notation_option(census)
    census.set_defaults(handler=run_census_command)

