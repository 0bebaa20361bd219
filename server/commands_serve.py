"""``ruma serve``: run the gRPC service on embedded defaults (LMDB store and catalog in ``--data``).

The data directory is created if missing (said once on stderr). Without ``--token-file`` only
loopback addresses are accepted. Each call is logged as one line on stderr (method, peer, status,
milliseconds; ``--log-level warning`` silences them). SIGTERM or SIGINT shuts down gracefully:
calls in flight get ``--grace`` seconds, then the store is flushed and closed.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from types import FrameType

from ruma.client.cli_errors import Unreachable, UsageError
from ruma.client.cli_options import add_data_option, add_format_option, count, data_directory, port, positive, seconds
from ruma.client.cli_output import Output
from ruma.server.limits import Limits

DEFAULTS = Limits()
LOG_LEVELS = ("debug", "info", "warning", "error")


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``ruma serve``."""
    parser = subparsers.add_parser("serve", help="run the gRPC service", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_option(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=50051, help="port (default 50051; 0 picks a free one)")
    parser.add_argument("--token-file", metavar="F", help="lines 'TOKEN read' / 'TOKEN write'; every call then needs a token")
    parser.add_argument("--tls-cert", metavar="C", help="PEM certificate chain")
    parser.add_argument("--tls-key", metavar="K", help="PEM private key")
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="info",
                        help="info logs one line per call; warning only problems (default info)")
    limits = parser.add_argument_group("limits of one request (0: no limit)")
    limits.add_argument("--max-pots", type=count, default=DEFAULTS.max_pots, metavar="N",
                        help=f"largest position in pots/heaps (default {DEFAULTS.max_pots})")
    limits.add_argument("--max-seeds", type=count, default=DEFAULTS.max_seeds, metavar="N",
                        help=f"most seeds/tokens (default {DEFAULTS.max_seeds})")
    limits.add_argument("--max-positions", type=count, default=DEFAULTS.max_positions, metavar="N",
                        help=f"positions one evaluation may compute (default {DEFAULTS.max_positions})")
    limits.add_argument("--max-batch-size", type=positive, default=DEFAULTS.max_batch_size, metavar="N",
                        help=f"positions in one batch (default {DEFAULTS.max_batch_size})")
    parser.add_argument("--workers", type=positive, default=None, metavar="N", help="threads serving calls")
    parser.add_argument("--verify-fraction", type=float, default=0.01, metavar="F",
                        help="share of every uploaded batch of precomputed values (ruma sweep --server) the server "
                        "re-values before storing it (default 0.01; at least one entry; a mismatch rejects the batch)")
    parser.add_argument("--grace", type=seconds, default=10.0, metavar="S",
                        help="seconds calls in flight get to finish on shutdown (default 10)")
    add_format_option(parser, lists=False)
    parser.set_defaults(handler=serve)


def _start(args: argparse.Namespace, limits: Limits) -> tuple[object, int]:
    from ruma.engine.errors import RumaInputError
    from ruma.server.app import create_server, is_loopback
    from ruma.server.store_codec import StoreError

    if not args.token_file and not is_loopback(args.host):
        raise UsageError(f"refusing to listen on {args.host!r} without a token file: only loopback addresses are "
                         "open to every caller", "give --token-file, or --host 127.0.0.1")
    data = data_directory(args, create=True)
    try:
        return create_server(data, args.host, args.port, token_file=args.token_file, tls_cert=args.tls_cert,
                             tls_key=args.tls_key, limits=limits, max_workers=args.workers,
                             verify_fraction=args.verify_fraction)
    except StoreError as error:
        raise Unreachable(f"cannot open the store in {args.data!r}: {error}") from None
    except RumaInputError as error:
        if "cannot listen" in str(error):
            raise UsageError(str(error), "is another server on that port? choose another --port") from None
        raise


def serve(args: argparse.Namespace) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status."""
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s",
                        stream=sys.stderr)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # the catalog's migrations at start-up
    limits = Limits(max_pots=args.max_pots or None, max_seeds=args.max_seeds or None,
                    max_positions=args.max_positions or None, max_batch_size=args.max_batch_size)
    server, bound = _start(args, limits)
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set():
            print(f"{args.command_prog}: already shutting down", file=sys.stderr, flush=True)
            return
        stopping.set()
        print(f"{args.command_prog}: shutting down", file=sys.stderr, flush=True)
        threading.Thread(target=server.stop, args=(args.grace,), name="ruma-stop").start()  # type: ignore[attr-defined]

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        record = {"address": server.address, "port": bound, "data": str(args.data),  # type: ignore[attr-defined]
                  "tls": bool(args.tls_cert), "auth": bool(args.token_file)}
        with Output(args.format) as out:
            out.emit(record, f"{args.command_prog}: listening on {record['address']} (data {args.data})")
        sys.stdout.flush()
        server.wait_for_termination()  # type: ignore[attr-defined]
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.stop(0)  # type: ignore[attr-defined]
    print(f"{args.command_prog}: stopped; store flushed and closed", file=sys.stderr, flush=True)
    return 0
