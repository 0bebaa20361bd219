"""``ruma serve``: run the gRPC service on embedded defaults (LMDB store and catalog in ``--data``)."""

from __future__ import annotations

import argparse
import json
import logging
import re
import signal
import sys
import threading
from types import FrameType

from ruma.client.cli import add_json_flag
from ruma.client.cli_errors import Unreachable
from ruma.server.limits import Limits, default_eval_workers, default_memory

DEFAULTS = Limits()
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def memory_size(text: str) -> int:
    """A size in bytes: ``2G``, ``512M``, ``1048576``; 0 means no budget."""
    match = _SIZE.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"need a size such as 2G, 512M or 0 (no budget), got {text!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def seconds_or_zero(text: str) -> float:
    """Seconds (0: no limit)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"need a number of seconds (0: no limit), got {text!r}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``ruma serve``."""
    parser = subparsers.add_parser(
        "serve",
        help="run the gRPC service",
        description="Serve values over gRPC from the LMDB store in --data (the catalog's SQLite lives there too). "
        "Without --token-file only loopback addresses are accepted. SIGTERM/SIGINT shut down gracefully.",
    )
    parser.add_argument("--data", required=True, metavar="DIR", help="data directory (created if missing)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=50051, help="port (default 50051; 0 picks a free one)")
    parser.add_argument("--token-file", metavar="F", help="lines 'TOKEN read' / 'TOKEN write'; every call then needs a token")
    parser.add_argument("--tls-cert", metavar="C", help="PEM certificate chain")
    parser.add_argument("--tls-key", metavar="K", help="PEM private key")
    parser.add_argument("--max-pots", type=int, default=DEFAULTS.max_pots, help=f"largest position in pots/heaps (default {DEFAULTS.max_pots}; 0: no limit)")
    parser.add_argument("--max-seeds", type=int, default=DEFAULTS.max_seeds, help=f"most seeds/tokens (default {DEFAULTS.max_seeds}; 0: no limit)")
    parser.add_argument("--max-positions", type=int, default=DEFAULTS.max_positions, help=f"positions one evaluation may compute (default {DEFAULTS.max_positions}; 0: no limit)")
    parser.add_argument("--max-batch-size", type=int, default=DEFAULTS.max_batch_size, help=f"positions in one batch (default {DEFAULTS.max_batch_size})")
    parser.add_argument("--max-seconds", type=seconds_or_zero, default=DEFAULTS.max_seconds,
                        help=f"time budget of one request from its arrival (default {DEFAULTS.max_seconds:g}; 0: no limit)")
    parser.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                        help=f"memory the evaluation workers may use together, e.g. 2G (default half the machine's "
                             f"memory, at most 4G: here {default_memory() >> 20}M; 0: no budget)")
    parser.add_argument("--eval-workers", type=int, default=None, metavar="N",
                        help=f"worker processes for heavy work (default {default_eval_workers()}; "
                             f"0: evaluate in the server process)")
    parser.add_argument("--max-queue", type=int, default=DEFAULTS.max_queue, metavar="N",
                        help=f"heavy requests that may wait for a worker (default {DEFAULTS.max_queue})")
    parser.add_argument("--workers", type=int, default=None, help="threads serving calls")
    parser.add_argument("--grace", type=float, default=10.0, help="seconds calls in flight get to finish on shutdown (default 10)")
    add_json_flag(parser)
    parser.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status."""
    from ruma.server.app import create_server
    from ruma.server.store_codec import StoreError

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # the catalog's migrations at start-up
    limits = Limits(
        max_pots=args.max_pots or None,
        max_seeds=args.max_seeds or None,
        max_positions=args.max_positions or None,
        max_batch_size=args.max_batch_size,
        max_seconds=args.max_seconds or None,
        max_memory=args.max_memory,
        eval_workers=args.eval_workers,
        max_queue=args.max_queue,
    )
    try:
        server, port = create_server(
            args.data, args.host, args.port, token_file=args.token_file, tls_cert=args.tls_cert, tls_key=args.tls_key,
            limits=limits, max_workers=args.workers,
        )
    except StoreError as error:  # a damaged store, a data directory that cannot be used: exit status 3
        what = str(error).splitlines()[0]
        hint = "check it with 'ruma store verify DIR --full', mend it with 'ruma store repair DIR'" if (
            "damaged" in what) else "give --data a directory ruma can create and write"
        raise Unreachable(what, hint) from None
    for warning in server.warnings:
        print(f"ruma serve: warning: {warning}", file=sys.stderr, flush=True)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if args.json:
            print(json.dumps({"address": server.address, "port": port, "data": args.data, "tls": bool(args.tls_cert)}), flush=True)
        else:
            print(f"ruma serve: listening on {server.address} (data {args.data})", flush=True)
        while not stop.wait(0.5):
            pass
        print("ruma serve: shutting down", file=sys.stderr, flush=True)
        server.stop(args.grace)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.stop(0)
    print("ruma serve: stopped; store flushed and closed", file=sys.stderr, flush=True)
    return 0
