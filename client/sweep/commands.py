"""``ruma sweep``: value whole families into the store, and what ``ruma census`` and ``ruma find``
(``ruma.studies.questions``) share with it: a family's options, its store as a sink, a sweep with progress.

    ruma sweep impartial-sowing --seeds 10 --pots 10      # every class into ./ruma-data, all cores
    ruma sweep sowing --seeds 10 --workers 1 --json        # in this process; a JSON summary
    ruma sweep sowing --seeds 10 --ray                     # on a local Ray cluster
    ruma sweep sowing --seeds 10 --ray ray://head:10001    # on an existing Ray cluster
    ruma sweep sowing --seeds 10 --server HOST:PORT --token T   # upload to a server (write token)

The local store is found through the ``ruma.stores`` entry point (the client never imports the
server); conventions (``--data``, ``--server``, exit codes, one-line errors) follow docs/cli.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ruma.client.cli.errors import UnreachableError, UsageError
from ruma.client.cli.options import (
    add_data_option,
    add_format_option,
    add_progress_option,
    add_server_options,
    connect,
    data_directory,
    positive,
)
from ruma.client.cli.output import Output
from ruma.client.progress import progress
from ruma.engine.errors import RumaError

STYLES = ("unicode", "ascii", "braces")


def parse_range(text: str, low_default: int, what: str) -> tuple[int, int]:
    """``B``, ``A..B`` or ``..B`` (inclusive) as ``(A, B)``."""
    low, sep, high = text.partition("..")
    try:
        if not sep:
            return low_default, int(text)
        return (int(low) if low.strip() else low_default), int(high)
    except ValueError:
        raise UsageError(f"--{what} {text!r}: expected B, A..B or ..B (whole numbers)") from None


def _family(args: argparse.Namespace) -> Any:
    from ruma.engine.families.classes import Family

    seeds = parse_range(args.seeds, 0, "seeds")
    pots = parse_range(args.pots, 1, "pots") if args.pots else None
    return Family.of(args.ruleset, seeds, pots)


def _backend(args: argparse.Namespace) -> Any:
    if args.ray is None:
        return None
    from ruma.client.sweep.ray import RayActors

    return RayActors(args.workers, args.ray or None)


def store_sink(args: argparse.Namespace, create: bool = True, merge_last: bool = False) -> Any:
    """The local store of ``--data`` as a sweep's sink (``merge_last``: see ``StoreSink``)."""
    from ruma.client.sweep.driver import StoreSink

    path = data_directory(args, create=create)
    try:
        return StoreSink(str(path), merge_last=merge_last)
    except RumaError as error:
        raise UnreachableError(f"cannot open the store in {str(args.data)!r}: {error}") from None


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
        from ruma.client.sweeps_client import ServerSink

        with connect(args) as client:
            remote = ServerSink(client, family.ruleset)
            summary = run_family_sweep(args, family, remote)
            rejected = remote.rejected
    else:
        sink = store_sink(args, merge_last=True)  # (closed densely right after: its last drain merged then)
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


def add_family_options(parser: argparse.ArgumentParser, question: bool = False) -> None:
    """A family's ruleset, ``--seeds`` and ``--pots`` (``question``: the default pots are what the
    seeds can fill), and where its values are: ``--data``/``--store`` or ``--server``, the workers."""
    parser.add_argument("ruleset", help="a row-of-pots ruleset: sowing, impartial-sowing, atomic-wari, "
                                        "impartial-atomic-wari, atomic-wari-board or an installed one (ruma rulesets)")
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
    """Register ``sweep``."""
    sweep = subparsers.add_parser(
        "sweep", help="value every position of a family into the store",
        description="Value every position of RULESET with --seeds and --pots, once per normalisation class "
        "(strip, mirror, full pots), smallest first, and commit every value to the store (or upload it to "
        "--server). Resumable: classes already stored are skipped. See docs/sweeps.md.")
    add_family_options(sweep)
    add_format_option(sweep, lists=False)
    sweep.set_defaults(handler=run_sweep_command)
