"""ruma.client: the typed gRPC client, the bulk loader and the ruma command line."""

from __future__ import annotations

from typing import Any

__all__ = ["Client", "RumaRpcError"]


def __getattr__(name: str) -> Any:
    """``Client`` and ``RumaRpcError``, imported on first use (the CLI starts without grpc)."""
    if name in __all__:
        from ruma.client import client

        return getattr(client, name)
    raise AttributeError(f"module 'ruma.client' has no attribute {name!r}")
