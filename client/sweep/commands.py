"""``ruma sweep``, ``ruma census`` and ``ruma find``: value whole families, and count what is stored.

    ruma sweep impartial-sowing --seeds 10 --pots 10      # every class into ./ruma-data, all cores
    ruma sweep sowing --seeds 10 --workers 1 --json        # in this process; a JSON summary
    ruma sweep sowing --seeds 10 --ray                     # on a local Ray cluster
    ruma sweep sowing --seeds 10 --ray ray://head:10001    # on an existing Ray cluster
    ruma sweep sowing --seeds 10 --server HOST:PORT --token T   # upload to a server (write token)
    ruma census impartial-sowing --seeds 10 --simplest 3 --format csv
    ruma census atomic-wari --seeds 8 --by atomic-weight --server HOST:PORT
    ruma census sowing --seeds 13 --value '*3'             # only the positions of value ∗3
    ruma find sowing '*3' --seeds ..13                     # the simplest of them (client/sweep/questions.py)

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


def _family(args: argparse.Namespace) -> Any:
    from ruma.client.sweep.questions import parse_range
    from ruma.engine.families.enum import Family

    seeds = parse_range(args.seeds, 0, "seeds")
    pots = parse_range(args.pots, 1, "pots") if args.pots else None
    return Family.of(args.ruleset, seeds, pots)


def _backend(args: argparse.Namespace) -> Any:
    if args.ray is None:
        return None
    from ruma.client.sweep.ray import RayActors

    return RayActors(args.workers, args.ray or None)


def store_sink(args: argparse.Namespace, create: bool = True) -> Any:
    """The local store of ``--data`` as a sweep's sink."""
    from ruma.client.sweep.driver import StoreSink

    path = data_directory(args, create=create)
    try:
        return StoreSink(str(path))
    except RumaError as error:
        raise Unreachable(f"cannot open the store in {str(args.data)!r}: {error}") from None


def run_family_sweep(args: argparse.Namespace, family: Any, sink: Any, **kwargs: Any) -> Any:
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
    rejected: list[tuple[bytes, str]] = []
    if args.server:
        from ruma.client.sweep.client import ServerSink

        with connect(args) as client:
            remote = ServerSink(client, family.ruleset)
            summary = run_family_sweep(args, family, remote)
            rejected = remote.rejected
    else:
        sink = store_sink(args)
        try:
            summary = run_family_sweep(args, family, sink)
        except BaseException:
            sink.close()
            raise
        sink.close(dense=True)  # (a store a sweep wrote is mostly free pages: rewritten densely)
    record = summary.to_dict()
    text = (f"{record['ruleset']} seeds {family.seeds_min}..{family.seeds_max} pots {family.pots_min}..{family.pots_max}: "
            f"{record['classes']:,} classes ({record['raw_positions']:,} raw positions), "
            f"{record['already_stored']:,} already stored, {record['classes_valued']:,} classes valued by searching "
            f"{record['positions_valued']:,} positions (followers included; a class made of components already "
            f"valued is summed, not searched) in {record['seconds']} s on {record['workers']} worker(s) "
            f"[{record['backend']}]")
    with Output(args.format) as out:
        out.emit(record, text)
    if rejected:
        for key, reason in rejected[:5]:
            print(f"{args.command_prog}: key {key.hex()}: {reason}", file=sys.stderr)
        print(f"{args.command_prog}: the server rejected {len(rejected):,} of the values sent "
              f"(it stored the others)", file=sys.stderr)
        return 1
    return 0


def _location(parser: argparse.ArgumentParser, question: bool = False) -> None:
    parser.add_argument("ruleset", help="sowing, impartial-sowing, atomic-wari, impartial-atomic-wari or atomic-wari-board")
    parser.add_argument("--seeds", required=True, metavar="[A..]B", help="seeds in all, A..B (A defaults to 0)")
    parser.add_argument("--pots", metavar="[C..]D",
                        help="pots per row, C..D (default: what the seeds can fill, as far as a walk of 6 million rows "
                             "reaches; a narrower range is stated)" if question else "pots per row, C..D (default 1..B)")
    add_data_option(parser)
    parser.add_argument("--store", dest="data", metavar="DIR", help="same as --data")
    add_server_options(parser, optional=True)
    parser.add_argument("--workers", type=positive, default=None,
                        help="worker processes or Ray actors (default: all cores; 1: value in this process)")
    parser.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                        help="run the workers on Ray: a local cluster, or join the one at ADDRESS (pip install 'ruma[ray]')")
    add_progress_option(parser)


def register(subparsers: Any) -> None:
    """Register ``sweep``, ``census`` and ``find``."""
    from ruma.client.sweep.questions import register_find, run_census_command

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
        "seeds, then fewest pots, then the smallest row. --value keeps only some values. The bound searched "
        "is stated on stderr. See docs/sweeps.md.")
    _location(census, question=True)
    census.add_argument("--by", choices=("value", "outcome", "atomic-weight", "temperature"), default="value")
    census.add_argument("--value", action="append", metavar="V",
                        help="only the positions of this value, e.g. '*3' or '^' (repeatable)")
    census.add_argument("--simplest", type=int, default=3, metavar="K", help="positions listed per row (default 3)")
    add_format_option(census)
    add_notation_option(census)
    census.set_defaults(handler=run_census_command)
    register_find(subparsers, _location)
