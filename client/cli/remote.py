"""``ruma query`` and ``ruma load``: use a ruma server from the command line.

    ruma query sowing 312 1^8                       # the server in $RUMA_SERVER, else 127.0.0.1:50051
    ruma query --server lab.example.org sowing 312  # port 50051 unless given
    ruma load impartial-sowing positions.txt        # one position a line (% starts a comment), or .csv / .jsonl; - reads stdin

    ruma load impartial-sowing big.txt --max-seconds 30 --failed failed.txt   # then: ruma load impartial-sowing failed.txt

``query`` prints the same ``evaluation`` records as ``ruma eval`` (``--lookup``: only what the
store already has, never computing). ``load`` values every position on the server and prints a
``load-summary``. Every position has its own outcome and its own time: one that runs out of it
(``--max-seconds``, else the server's limit) or of the server's memory budget fails alone, with
its reason, and the others are valued (a heavy position never costs its neighbours their time).
Positions the server stores already are counted as done before anything is sent, so a load that
stopped is simply run again and its progress is cumulative; a position stored by the end is never
reported failed. ``--failed FILE`` lists the positions that could not be valued, each with its
reason (``%`` comment lines in text: a file ``ruma load`` reads back; a line starting with ``#`` is
a position, a full pot); the exit status is then 1, with a one-line summary on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruma.client.cli.errors import CliError, Exit, UsageError, WorkFailedError, as_cli_error, report, rpc_error
from ruma.client.cli.options import (
    add_format_option,
    add_notation_option,
    add_progress_option,
    add_server_options,
    connect,
    positive,
    read_positions,
    seconds,
)
from ruma.client.cli.output import Output

QUERY_FORMATS = ("table", "text", "json", "csv")
MAX_FAILURES_SHOWN = 20


def _check_ruleset(args: argparse.Namespace, client: Any) -> None:
    """Fail on an unknown ruleset before any position is sent: one this process knows, or one the
    server lists (a ruleset installed on the server only, ``ruma.rulesets``: docs/rulesets.md)."""
    from ruma.engine.errors import UnknownRulesetError
    from ruma.engine.rulesets import get_ruleset

    try:
        get_ruleset(args.ruleset)
    except UnknownRulesetError:
        if args.ruleset.strip().lower() not in {info.name for info in client.capabilities().rulesets}:
            raise


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``ruma query`` and ``ruma load``."""
    query = subparsers.add_parser("query", help="value positions on a ruma server", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    query.add_argument("ruleset", metavar="RULESET", help="e.g. sowing, atomic-wari, octal:0.37")
    query.add_argument("positions", nargs="+", metavar="POSITION", help="a position, or - to read one per line")
    query.add_argument("--lookup", action="store_true", help="only what the store already has: never compute")
    add_server_options(query)
    add_notation_option(query)
    add_format_option(query, formats=QUERY_FORMATS)
    query.set_defaults(handler=run_query)

    load = subparsers.add_parser("load", help="bulk-load positions into a ruma server", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    load.add_argument("ruleset", metavar="RULESET")
    load.add_argument("files", nargs="+", metavar="FILE",
                      help="positions, one a line (or .csv with a 'position' column, .jsonl with a 'position' field); "
                           "- reads stdin")
    load.add_argument("--batch-size", type=positive, default=256, metavar="N",
                      help="the most positions a call (default 256; calls are sized to take about 2 s)")
    load.add_argument("--max-seconds", type=seconds, default=0.0, metavar="S",
                      help="seconds each position may compute (default: the server's limit)")
    load.add_argument("--failed", metavar="FILE",
                      help="write the positions that could not be valued, each with its reason (.csv, .jsonl, or text)")
    add_server_options(load)
    add_format_option(load, lists=False)
    add_progress_option(load)
    load.set_defaults(handler=run_load)


def run_query(args: argparse.Namespace) -> int:
    """Handler of ``ruma query``: 0 when every position was answered; per-position errors are one
    line each on stderr (2 for a bad position or a limit, 1 for a position not stored)."""
    from ruma.client.cli.eval import _text, columns, shown

    positions = list(read_positions(args.positions))
    if not positions:
        raise UsageError("no positions given", "pass POSITION arguments, or - and positions on stdin")
    status = Exit.OK
    with connect(args) as client, Output(args.format, columns(args.ruleset)) as out:
        _check_ruleset(args, client)
        if args.lookup:
            for text, found in zip(positions, client.lookup(args.ruleset, positions)):
                if found.evaluation is not None:
                    record = shown(found.evaluation.to_dict(args.notation), text, args.format)
                    out.emit(record, _text(record))
                elif found.ok:
                    status = max(status, report(args.command_prog, WorkFailedError(
                        f"{found.position!r} is not stored", "query without --lookup to compute it")))
                else:
                    status = max(status, report(args.command_prog, CliError(found.message, status=Exit.USAGE)))
            return status
        for text, item in zip(positions, client.evaluate_batch(args.ruleset, positions)):
            if item.evaluation is not None:
                record = shown(item.evaluation.to_dict(args.notation), text, args.format)
                out.emit(record, _text(record))
            else:
                status = max(status, report(args.command_prog, rpc_error(item.code.name, item.message)))
    return status


def run_load(args: argparse.Namespace) -> int:
    """Handler of ``ruma load``: 0 when every position was valued or already stored, 1 otherwise
    (with ``--failed``: the failures written there, and a one-line summary)."""
    from ruma.client.client import RumaRpcError
    from ruma.client.loader import read_positions as read_file
    from ruma.client.loader import write_failures

    positions = [position for name in args.files for position in read_file(name)]
    with connect(args) as client:
        _check_ruleset(args, client)
        try:
            summary = client.load(args.ruleset, positions, batch_size=args.batch_size, max_seconds=args.max_seconds,
                                  progress=None if args.progress else False)
        except RumaRpcError as error:
            known = as_cli_error(error)
            done = getattr(error, "summary", None)
            if known is not None and done is not None:
                known.hint = (known.hint + "; " if known.hint else "") + (
                    f"{done.total} of {len(positions)} positions were done before that ({done.valued} valued, "
                    f"{done.already_stored} already stored, {len(done.failed)} failed): run it again to go on")
            raise known if known is not None else error from None
    with Output(args.format) as out:
        out.emit(summary.to_dict(), str(summary))
    if not summary.failed:
        return Exit.OK
    if args.failed:
        write_failures(args.failed, summary.failed)
    else:
        for position, reason in summary.failed[:MAX_FAILURES_SHOWN]:
            print(f"{args.command_prog}: {position!r}: {reason.splitlines()[0]}", file=sys.stderr)
        if len(summary.failed) > MAX_FAILURES_SHOWN:
            print(f"{args.command_prog}: ... and {len(summary.failed) - MAX_FAILURES_SHOWN} more "
                  f"(--failed FILE lists them all)", file=sys.stderr)
    where = f": written to {args.failed} with their reasons" if args.failed else ""
    print(f"{args.command_prog}: {len(summary.failed)} of {len(positions)} positions could not be valued{where}",
          file=sys.stderr)
    return Exit.FAILED
