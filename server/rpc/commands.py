"""``ruma serve``: run the gRPC service on embedded defaults (LMDB store and catalog in ``--data``).

The data directory is created if missing (said once on stderr). Without ``--token-file`` only
loopback addresses are accepted. Each call is logged as one line on stderr (method, peer, status,
milliseconds; ``--log-level warning`` silences them). SIGTERM or SIGINT shuts down gracefully:
calls in flight get ``--grace`` seconds, then the store is flushed and closed. A damaged store is
refused (exit 3); heavy work runs in evaluation worker processes within ``--max-seconds`` and
``--max-memory`` (docs/service.md, "Limits and guarantees"). The rulesets installed beside ruma
(``ruma.rulesets`` entry points, docs/rulesets.md) are served too — each logged at start-up, one
that cannot serve warned of — and only those: a client names a ruleset, never sends one.
"""

from __future__ import annotations

import argparse
import logging
import re
import signal
import sys
import threading
from types import FrameType

from ruma.client.cli.errors import UnreachableError, UsageError
from ruma.client.cli.options import add_data_option, add_format_option, count, data_directory, port, positive, seconds
from ruma.client.cli.output import Output
from ruma.server.work.limits import Limits, default_eval_workers, default_memory

DEFAULTS = Limits()
LOG_LEVELS = ("debug", "info", "warning", "error")
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
    limits.add_argument("--max-seconds", type=seconds_or_zero, default=DEFAULTS.max_seconds, metavar="S",
                        help=f"time of one request from its arrival (default {DEFAULTS.max_seconds:g})")
    limits.add_argument("--max-memory", type=memory_size, default=None, metavar="SIZE",
                        help=f"memory the evaluation workers may use together, e.g. 2G (default half the machine's "
                             f"memory, at most 4G: here {default_memory() >> 20}M)")
    limits.add_argument("--max-queue", type=count, default=DEFAULTS.max_queue, metavar="N",
                        help=f"heavy requests that may wait for an evaluation worker (default {DEFAULTS.max_queue})")
    parser.add_argument("--eval-workers", type=count, default=None, metavar="N",
                        help=f"worker processes for heavy work (default {default_eval_workers()}; "
                             f"0: evaluate in the server process)")
    parser.add_argument("--read-workers", type=positive, default=None, metavar="N",
                        help="worker processes answering stored lookups (default 2)")
    parser.add_argument("--max-calls-per-client", type=positive, default=None, metavar="N",
                        help="calls one client (the token it gives, else its address) may have open at once; "
                             "more are refused with RESOURCE_EXHAUSTED (default 256)")
    parser.add_argument("--request-seconds", type=seconds, default=None, metavar="S",
                        help="seconds a call's request message may take to arrive after its headers; "
                             "then DEADLINE_EXCEEDED (default 5)")
    parser.add_argument("--verify-fraction", type=float, default=0.01, metavar="F",
                        help="share of every uploaded batch of precomputed values (ruma sweep --server) the server "
                        "re-values before storing it (default 0.01; at least one entry; a mismatch rejects the batch)")
    parser.add_argument("--grace", type=seconds, default=10.0, metavar="S",
                        help="seconds calls in flight get to finish on shutdown (default 10)")
    add_format_option(parser, lists=False)
    parser.set_defaults(handler=serve)


def _start(args: argparse.Namespace, limits: Limits) -> tuple[object, int]:
    from ruma.engine.errors import RumaInputError
    from ruma.server.rpc.app import create_server, is_loopback
    from ruma.server.store.codec import StoreDamagedError, StoreError

    if not args.token_file and not is_loopback(args.host):
        raise UsageError(f"refusing to listen on {args.host!r} without a token file: only loopback addresses are "
                         "open to every caller", "give --token-file, or --host 127.0.0.1")
    data = data_directory(args, create=True)
    try:
        from ruma.server.rpc.admission import MAX_PER_CLIENT, REQUEST_SECONDS

        return create_server(data, args.host, args.port, token_file=args.token_file, tls_cert=args.tls_cert,
                             tls_key=args.tls_key, limits=limits, readers=args.read_workers,
                             max_per_client=args.max_calls_per_client or MAX_PER_CLIENT,
                             request_seconds=args.request_seconds or REQUEST_SECONDS,
                             verify_fraction=args.verify_fraction)
    except StoreError as error:  # a damaged store, a data directory that cannot be used
        hint = "check it with 'ruma store verify --full', mend it with 'ruma store repair'" if isinstance(
            error, StoreDamagedError) else None
        raise UnreachableError(f"cannot open the store in {args.data!r}: {str(error).splitlines()[0]}", hint) from None
    except RumaInputError as error:
        if "cannot listen" in str(error):
            raise UsageError(str(error), "is another server on that port? choose another --port") from None
        raise


def _report_installed(prog: str) -> None:
    """Log each installed ruleset served (its distribution and version); warn of each that cannot
    serve, with the reason."""
    from ruma.engine.errors import BrokenRulesetError
    from ruma.engine.rulesets import installed_rulesets

    log = logging.getLogger(__name__)
    for entry, ruleset in installed_rulesets():
        if isinstance(ruleset, BrokenRulesetError):
            print(f"{prog}: warning: not serving {ruleset}", file=sys.stderr, flush=True)
        else:
            log.info("serving installed ruleset %s version %d (%s)", entry.name, ruleset.version,
                     entry.distribution or entry.target)


def serve(args: argparse.Namespace) -> int:
    """Run until SIGTERM/SIGINT; returns the exit status."""
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s",
                        stream=sys.stderr)
    logging.getLogger("alembic").setLevel(logging.WARNING)  # the catalog's migrations at start-up
    limits = Limits(max_pots=args.max_pots or None, max_seeds=args.max_seeds or None,
                    max_positions=args.max_positions or None, max_batch_size=args.max_batch_size,
                    max_seconds=args.max_seconds or None, max_memory=args.max_memory, eval_workers=args.eval_workers,
                    max_queue=args.max_queue)
    from ruma.server.work.heap import keep_freed_memory

    keep_freed_memory()  # (large requests reuse freed memory rather than fault in fresh pages: ruma.server.work.heap)
    _report_installed(args.command_prog)
    server, bound = _start(args, limits)
    for warning in getattr(server, "warnings", ()):
        print(f"{args.command_prog}: warning: {warning}", file=sys.stderr, flush=True)
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
