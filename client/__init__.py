"""ruma.client: the typed gRPC client, the bulk loader and the ruma command line.

Here: the ``Client`` (``client``), its results, addresses, the ``Catalog`` and ``Sweeps`` services'
client sides (``catalog_client``, ``sweeps_client``), the bulk loader and the progress display it
shares with every subcommand (``progress``); the command line (``cli``) and sweeps (``sweep``)
stand on them.

May import: the standard library, grpc, rich, ``ruma.engine`` and ``ruma.v1`` — never
``ruma.server``, nor the packages below this one (``ruma.client.cli``, ``ruma.client.sweep``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Client", "RumaRpcError"]


def __getattr__(name: str) -> Any:
    """``Client`` and ``RumaRpcError``, imported on first use (the CLI starts without grpc)."""
    if name in __all__:
        from ruma.client import client

        return getattr(client, name)
    raise AttributeError(f"module 'ruma.client' has no attribute {name!r}")
