"""``ruma web``: the web explorer of a running ruma service (the ``ruma[web]`` extra).

    ruma web --server 127.0.0.1:50051 --port 8080
    ruma web --server ruma.example.org:50051 --token "$RUMA_TOKEN" --host 0.0.0.0 --port 80 --max-positions 200000

It is a gateway: every page and every ``/api/v1`` call is a call of the gRPC service, with
``--token`` (or the visitor's own ``Authorization: Bearer`` token), under the service's limits
and ``--max-positions`` per request. A position whose value is not stored and takes longer than
``--page-seconds`` gets an immediate page offering to compute it in the background. It is
read-only unless ``--allow-writes`` is given (then the API can add named positions and verify
theorems, when the token may write).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruma.client.cli.errors import UnreachableError, UsageError
from ruma.client.cli.options import add_server_options, count, port, positive, seconds
from ruma.web.shedding import MAX_REQUESTS, MAX_SLOW


def run_web(args: argparse.Namespace) -> int:
    """Check the service answers, then serve the explorer with uvicorn until interrupted."""
    try:
        import uvicorn

        from ruma.web.app import create_app
        from ruma.web.gateway import Gateway, GatewayError
    except ModuleNotFoundError as error:
        raise UsageError(f"the web explorer needs {error.name}", "pip install 'ruma[web]'") from None
    gateway = Gateway(args.server, token=args.token, timeout=args.timeout or 30.0,
                      max_positions=args.max_positions or 0, read_only=not args.allow_writes, tls_ca=args.tls_ca)
    try:
        rulesets = gateway.rulesets()
    except GatewayError as error:
        gateway.close()
        if error.status in (503, 504):
            raise UnreachableError(f"cannot reach the ruma service at {args.server}",
                                   "is ruma serve running?") from None
        raise UsageError(f"the ruma service at {args.server} refused: {error.message}") from None
    mode = "read-only" if gateway.read_only else "writes allowed"
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"ruma web: exploring {args.server} ({len(rulesets)} rulesets, {mode}) at http://{host}:{args.port}/",
          file=sys.stderr, flush=True)
    try:
        app = create_app(gateway, max_requests=args.max_requests, max_slow=args.max_slow)
        app.state.page_seconds = args.page_seconds
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    finally:
        gateway.close()
    return 0


def register(subparsers: Any) -> None:
    """Register ``ruma web``."""
    parser = subparsers.add_parser("web", help="a web explorer (pages and a JSON API) of a running ruma service",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_server_options(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to serve HTTP on (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8080, help="HTTP port (default 8080)")
    parser.add_argument("--max-positions", type=count, default=0, metavar="N",
                        help="positions the service may compute per request (default: the service's limit)")
    parser.add_argument("--page-seconds", type=seconds, default=5.0, metavar="S",
                        help="how long a page waits for a value not stored yet before it offers to compute it in "
                             "the background (default 5)")
    parser.add_argument("--allow-writes", action="store_true",
                        help="offer the API's writes (add named positions, verify theorems); off by default. "
                             "With a write --token, anyone who can reach the explorer may then write: see docs/service.md")
    parser.add_argument("--max-requests", type=positive, default=MAX_REQUESTS, metavar="N",
                        help=f"requests served at once; more are answered 503 with Retry-After (default {MAX_REQUESTS})")
    parser.add_argument("--max-slow", type=positive, default=MAX_SLOW, metavar="N",
                        help=f"of those, requests that may make the service compute (default {MAX_SLOW})")
    parser.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"],
                        help="uvicorn's log level (default info)")
    parser.set_defaults(handler=run_web)
