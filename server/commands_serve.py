"""``ruma serve``: run the gRPC service on embedded defaults (LMDB store and catalog in ``--data``)."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from types import FrameType

from ruma.client.cli import add_json_flag
from ruma.server.limits import Limits

DEFAULTS = Limits()


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
    parser.add_argument("--workers", type=int, default=None, help="threads serving calls")
    parser.add_argument("--verify-fraction", type=float, default=0.01, metavar="F",
                        help="share of every uploaded batch of precomputed values the server re-values before storing "
                        "it (default 0.01; at least one entry; any mismatch rejects the whole upload)")
    parser.add_argument("--grace", type=float, default=10.0, help="seconds calls in flight get to finish on shutdown (default 10)")
    add_json_flag(parser)
    parser.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status."""
    from ruma.server.app import create_server

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # the catalog's migrations at start-up
    limits = Limits(
        max_pots=args.max_pots or None,
        max_seeds=args.max_seeds or None,
        max_positions=args.max_positions or None,
        max_batch_size=args.max_batch_size,
    )
    server, port = create_server(
        args.data, args.host, args.port, token_file=args.token_file, tls_cert=args.tls_cert, tls_key=args.tls_key,
        limits=limits, max_workers=args.workers, verify_fraction=args.verify_fraction,
    )
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
