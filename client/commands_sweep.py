"""``ruma sweep`` and ``ruma census``: value whole families, and count what is stored.

    ruma sweep sowing --seeds 10 --pots 10                 # every class into ./ruma-data, all cores
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
import csv
import json
import os
import sys
import time
from typing import Any

from ruma.engine.errors import RumaError, RumaInputError

EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 1, 2, 3
STYLES = ("unicode", "ascii", "braces")


def parse_range(text: str, low_default: int, what: str) -> tuple[int, int]:
    """``B`` or ``A..B`` (inclusive) as ``(A, B)``."""
    low, sep, high = text.partition("..")
    try:
        if not sep:
            return low_default, int(text)
        return int(low), int(high)
    except ValueError:
        raise RumaInputError(f"--{what} {text!r}: expected B or A..B (whole numbers)") from None


def _fail(command: str, message: str, status: int) -> int:
    print(f"ruma {command}: {message}", file=sys.stderr)
    return status


class Progress:
    """A one-line progress display on stderr with rate and ETA (only on a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.started = time.monotonic()

    def __call__(self, done: int, total: int, computed: int) -> None:
        if not self.enabled:
            return
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 else 0.0
        sys.stderr.write(f"\r{done:,}/{total:,} classes  {computed:,} positions valued  {rate:,.0f} classes/s  ETA {eta:,.0f} s ")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _family(args: argparse.Namespace) -> Any:
    from ruma.engine.family_enum import Family

    seeds = parse_range(args.seeds, 0, "seeds")
    pots = parse_range(args.pots, 1, "pots") if args.pots else None
    return Family.of(args.ruleset, seeds, pots)


def _client(args: argparse.Namespace) -> Any:
    from ruma.client import Client

    return Client(args.server, token=args.token, tls_ca=args.tls_ca, timeout=args.timeout)


def _data_dir(args: argparse.Namespace) -> str:
    return args.data or os.environ.get("RUMA_DATA") or "./ruma-data"


def _backend(args: argparse.Namespace) -> Any:
    if args.ray is None:
        return None
    from ruma.client.sweep_ray import RayActors

    return RayActors(args.workers, args.ray or None)


def _rpc_status(error: Exception) -> int:
    code = getattr(getattr(error, "code", None), "name", "")
    return EXIT_UNREACHABLE if code in ("UNAVAILABLE", "DEADLINE_EXCEEDED") else EXIT_FAILED


def run_sweep_command(args: argparse.Namespace) -> int:
    """``ruma sweep``: value every class of the family and commit it; prints a summary."""
    from ruma.client.sweep import StoreSink, run_sweep

    family = _family(args)
    progress = Progress(not args.no_progress)
    backend = _backend(args)
    try:
        if args.server:
            from ruma.client.client import RumaRpcError
            from ruma.client.sweep_client import ServerSink

            try:
                with _client(args) as client:
                    summary = run_sweep(family, ServerSink(client, family.ruleset), workers=args.workers,
                                        backend=backend, progress=progress)
            except RumaRpcError as error:
                return _fail("sweep", f"the server refused or failed: {error.details or error}", _rpc_status(error))
        else:
            path = _data_dir(args)
            created = not os.path.exists(os.path.join(path, "data.mdb"))
            try:
                sink = StoreSink(path)
            except RumaError as error:
                return _fail("sweep", str(error), EXIT_UNREACHABLE)
            if created:
                print(f"ruma sweep: created a new store in {path}", file=sys.stderr)
            try:
                summary = run_sweep(family, sink, workers=args.workers, backend=backend, progress=progress)
            finally:
                sink.close()
    finally:
        if backend is not None:
            backend.close()
    record = summary.to_dict()
    if args.json:
        print(json.dumps(record))
    else:
        print(f"{record['ruleset']} seeds {family.seeds_min}..{family.seeds_max} pots {family.pots_min}..{family.pots_max}: "
              f"{record['classes']:,} classes ({record['raw_positions']:,} raw positions), "
              f"{record['already_stored']:,} already stored, {record['classes_valued']:,} valued "
              f"({record['positions_valued']:,} positions) in {record['seconds']} s on {record['workers']} "
              f"worker(s) [{record['backend']}]")
    return 0


def local_census(args: argparse.Namespace, family: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Census from the local store, sweeping first what it lacks; (row records, summary record)."""
    from ruma.client.sweep import StoreSink, run_sweep
    from ruma.engine.census import census
    from ruma.engine.family_enum import enumerate_family

    started = time.perf_counter()
    path = _data_dir(args)
    sink = StoreSink(path)
    try:
        classes = enumerate_family(family)
        swept = run_sweep(family, sink, workers=args.workers, backend=_backend(args), classes=classes,
                          progress=Progress(not args.no_progress))
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
    from ruma.client import sweep_client

    with _client(args) as client:
        result = client.census(family.ruleset, (family.seeds_min, family.seeds_max), (family.pots_min, family.pots_max),
                               by=args.by, simplest=args.simplest, notations=[args.notation], compute_missing=True)
    records = [row.to_dict(args.notation) for row in result.rows]
    s: sweep_client.CensusSummary | None = result.summary
    summary = {} if s is None else {"ruleset": s.ruleset, "seeds": list(s.seeds), "pots": list(s.pots),
                                    "classes": s.classes, "raw_positions": s.raw_positions, "rows": s.rows,
                                    "computed": s.computed, "seconds": round(s.seconds, 3)}
    return records, summary


def print_census(records: list[dict[str, Any]], summary: dict[str, Any], fmt: str) -> None:
    """Rows as a table, JSON Lines (one record per row) or CSV."""
    if fmt == "json":
        for record in records:
            print(json.dumps(record, ensure_ascii=False))
        return
    if fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(["by", "group", "nim_value", "classes", "raw_positions", "simplest"])
        for r in records:
            writer.writerow([r["by"], r["group"], "" if r["nim_value"] is None else r["nim_value"], r["classes"],
                             r["raw_positions"], " ".join(r["simplest"])])
        return
    head = (records[0]["by"] if records else "group", "classes", "raw positions", "simplest")
    table = [(r["group"], f"{r['classes']:,}", f"{r['raw_positions']:,}", "  ".join(r["simplest"])) for r in records]
    widths = [max([len(head[i])] + [len(row[i]) for row in table]) for i in range(3)]
    print(f"{head[0]:<{widths[0]}}  {head[1]:>{widths[1]}}  {head[2]:>{widths[2]}}  {head[3]}")
    for row in table:
        print(f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}")
    if summary:
        print(f"# {summary['ruleset']} seeds {summary['seeds'][0]}..{summary['seeds'][1]} pots "
              f"{summary['pots'][0]}..{summary['pots'][1]}: {summary['classes']:,} classes, "
              f"{summary['raw_positions']:,} raw positions, {summary['rows']} rows", file=sys.stderr)


def run_census_command(args: argparse.Namespace) -> int:
    """``ruma census``: per group, how many classes and raw positions, and the simplest positions."""
    if args.json:
        args.format = "json"
    family = _family(args)
    if args.server:
        from ruma.client.client import RumaRpcError

        try:
            records, summary = remote_census(args, family)
        except RumaRpcError as error:
            return _fail("census", f"the server refused or failed: {error.details or error}", _rpc_status(error))
    else:
        try:
            records, summary = local_census(args, family)
        except RumaError as error:
            if "LMDB" in str(error) or "store" in str(error):
                return _fail("census", str(error), EXIT_UNREACHABLE)
            raise
    print_census(records, summary, args.format)
    return 0


def _location(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ruleset", help="sowing, impartial-sowing, atomic-wari, impartial-atomic-wari or atomic-wari-board")
    parser.add_argument("--seeds", required=True, metavar="[A..]B", help="seeds in all, A..B (A defaults to 0)")
    parser.add_argument("--pots", metavar="[C..]D", help="pots per row, C..D (default 1..B)")
    parser.add_argument("--data", "--store", dest="data", metavar="DIR",
                        help="local data directory (default $RUMA_DATA or ./ruma-data)")
    parser.add_argument("--server", metavar="ADDR", default=None, help="a ruma server instead of the local store")
    parser.add_argument("--token", default=os.environ.get("RUMA_TOKEN"), help="bearer token ($RUMA_TOKEN)")
    parser.add_argument("--tls-ca", metavar="PEM", help="CA certificate of a TLS server")
    parser.add_argument("--timeout", type=float, default=None, help="deadline of each call to the server (s)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes or Ray actors (default: all cores)")
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                        help="run the workers on Ray: a local cluster, or join the one at ADDRESS (pip install 'ruma[ray]')")
    parser.add_argument("--no-progress", action="store_true", help="no progress display on stderr")
    parser.add_argument("--json", action="store_true", help="JSON output (one record per line)")


def register(subparsers: Any) -> None:
    """Register ``sweep`` and ``census``."""
    sweep = subparsers.add_parser(
        "sweep", help="value every position of a family into the store",
        description="Value every position of RULESET with --seeds and --pots, once per normalisation class "
        "(strip, mirror, full pots), smallest first, and commit every value to the store (or upload it to "
        "--server). Resumable: classes already stored are skipped. See docs/sweeps.md.")
    _location(sweep)
    sweep.set_defaults(handler=run_sweep_command)

    census = subparsers.add_parser(
        "census", help="count a family's classes and raw positions per value",
        description="For a family (sweeping first what the store lacks): per value (or outcome, atomic weight, "
        "temperature), how many classes and raw positions have it, and the K simplest positions — fewest "
        "seeds, then fewest pots, then the smallest row. See docs/sweeps.md.")
    _location(census)
    census.add_argument("--by", choices=("value", "outcome", "atomic-weight", "temperature"), default="value")
    census.add_argument("--simplest", type=int, default=3, metavar="K", help="positions listed per row (default 3)")
    census.add_argument("--format", choices=("table", "json", "csv"), default="table")
    census.add_argument("--notation", choices=STYLES, default="unicode", help="how values are written (default unicode)")
    census.set_defaults(handler=run_census_command)

