"""``ruma query`` and ``ruma load``: use a ruma server from the command line."""

from __future__ import annotations

import argparse
import json
import os
import sys

from ruma.client.cli import add_json_flag


def _connection_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--token", default=os.environ.get("RUMA_TOKEN"), help="bearer token (default: $RUMA_TOKEN)")
    parser.add_argument("--tls-ca", metavar="PEM", help="CA certificate of a TLS server")
    parser.add_argument("--timeout", type=float, default=None, help="deadline of each call in seconds")


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``ruma query`` and ``ruma load``."""
    query = subparsers.add_parser("query", help="value positions on a ruma server",
                                  description="Ask a ruma server for the values of positions.")
    query.add_argument("address", help="host:port of the server")
    query.add_argument("ruleset", help="e.g. sowing, atomic-wari, octal:0.37")
    query.add_argument("positions", nargs="+", metavar="POSITION")
    query.add_argument("--format", choices=("unicode", "ascii", "braces"), default="unicode", help="notation of values")
    query.add_argument("--lookup", action="store_true", help="store only: never compute")
    _connection_flags(query)
    add_json_flag(query)
    query.set_defaults(handler=run_query)

    load = subparsers.add_parser("load", help="bulk-load positions into a ruma server",
                                 description="Value every position of FILE on the server (one a line; "
                                 ".csv/.jsonl with a 'position' column/field also accepted).")
    load.add_argument("address", help="host:port of the server")
    load.add_argument("ruleset")
    load.add_argument("file", help="positions, one a line (or .csv / .jsonl)")
    load.add_argument("--batch-size", type=int, default=256, help="positions per call (default 256)")
    load.add_argument("--no-progress", action="store_true", help="no progress bar")
    _connection_flags(load)
    add_json_flag(load)
    load.set_defaults(handler=run_load)


def run_query(args: argparse.Namespace) -> int:
    """Handler of ``ruma query``: 0 when every position was answered, 1 otherwise."""
    from ruma.client.client import Client

    failed = 0
    with Client(args.address, token=args.token, tls_ca=args.tls_ca, timeout=args.timeout) as client:
        if args.lookup:
            for found in client.lookup(args.ruleset, args.positions):
                if found.evaluation is None:
                    failed += 1
                    record = {"position": found.position, "found": False, "code": found.code, "message": found.message}
                    print(json.dumps(record) if args.json else str(found), file=sys.stdout if found.code == "OK" else sys.stderr)
                else:
                    _print(found.evaluation, args)
            return 1 if failed else 0
        for item in client.evaluate_batch(args.ruleset, args.positions):
            if item.evaluation is None:
                failed += 1
                if args.json:
                    print(json.dumps({"position": item.position, "code": item.code, "message": item.message}))
                else:
                    print(f"ruma query: {item.position}: {item.code}: {item.message}", file=sys.stderr)
            else:
                _print(item.evaluation, args)
    return 1 if failed else 0


def _print(evaluation: object, args: argparse.Namespace) -> None:
    from ruma.client.results import Evaluation

    assert isinstance(evaluation, Evaluation)
    if args.json:
        print(json.dumps(evaluation.to_dict(args.format), ensure_ascii=False))
        return
    value = getattr(evaluation.value, args.format)
    extra = [f"outcome {evaluation.outcome}"] if evaluation.outcome else []
    if evaluation.temperature is not None:
        extra.append(f"temperature {evaluation.temperature}")
    if evaluation.atomic_weight is not None:
        extra.append(f"atomic weight {getattr(evaluation.atomic_weight, args.format)}")
    extra.append("stored" if evaluation.from_store else f"computed {evaluation.stats.positions_valued} positions")
    print(f"{evaluation.position} = {value}  ({', '.join(extra)})")


def run_load(args: argparse.Namespace) -> int:
    """Handler of ``ruma load``: 0 when every position was valued or already stored, 1 otherwise."""
    from ruma.client.client import Client
    from ruma.client.loader import read_positions

    positions = read_positions(args.file)
    with Client(args.address, token=args.token, tls_ca=args.tls_ca, timeout=args.timeout) as client:
        summary = client.load(positions, args.ruleset, batch_size=args.batch_size,
                              progress=False if args.no_progress else None)
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(summary)
        for position, reason in summary.failed[:20]:
            print(f"  failed: {position}: {reason}", file=sys.stderr)
        if len(summary.failed) > 20:
            print(f"  ... and {len(summary.failed) - 20} more", file=sys.stderr)
    return 1 if summary.failed else 0
