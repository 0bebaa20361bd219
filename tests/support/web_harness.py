"""A real gRPC server and the web explorer in front of it, both on loopback ports."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Callable, Iterator

from tests.support.grpc_harness import connect, running_server


@contextlib.contextmanager
def explorer(data_dir: Path, *, seed: bool = True, gateway_options: dict[str, Any] | None = None,
             page_seconds: float | None = None, server_hook: Callable[[Any], None] | None = None,
             **server_options: Any) -> Iterator[tuple[str, str]]:
    """A started server (with its catalog, seeded) and explorer; yields ``(grpc_address, http_url)``.
    ``page_seconds``: how long a page waits for a value (``ruma web --page-seconds``);
    ``server_hook``: called with the server once it has started."""
    from ruma.web import BackgroundServer, Gateway, create_app

    server_options.setdefault("catalog", True)
    with running_server(data_dir, **server_options) as (server, address):
        if server_hook is not None:
            server_hook(server)
        if seed and server_options["catalog"]:
            token = server_options.get("tokens", {})
            writer = next((t for t, right in token.items() if right == "write"), None)
            with connect(address, token=writer) as client:
                client.catalog.seed()
        gateway = Gateway(address, **(gateway_options or {}))
        try:
            app = create_app(gateway)
            app.state.page_seconds = page_seconds
            with BackgroundServer(app) as web:
                yield address, web.url
        finally:
            gateway.close()
