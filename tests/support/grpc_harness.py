"""Shared helpers of the gRPC tests: a real server on 127.0.0.1 (port 0) over a real LMDB store."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

from ruma.client import Client
from ruma.engine.cgt import Game, Value, format_value


@contextlib.contextmanager
def running_server(data_dir: Path, **kwargs: Any) -> Iterator[tuple[Any, str]]:
    """A started server on a free loopback port; yields ``(server, address)`` and stops it.

    The catalog service (whose SQLite migrations take a couple of seconds) is left out unless
    ``catalog=True`` is passed.
    """
    from ruma.server.rpc.app import create_server

    kwargs.setdefault("catalog", False)
    server, port = create_server(data_dir, "127.0.0.1", 0, **kwargs)
    try:
        yield server, f"127.0.0.1:{port}"
    finally:
        server.stop(0)


def switch(left: Game, right: Game) -> Game:
    """``{left | right}``."""
    return Game.from_options([left], [right])


def ascii_of(game: Value) -> str:
    """CGSuite plain text of a game (or ``*k`` of a nim value), as the server formats it."""
    return format_value(game, "ascii")


def connect(address: str, **kwargs: Any) -> Client:
    """A client with a generous default deadline (tests never hang)."""
    kwargs.setdefault("timeout", 60)
    return Client(address, **kwargs)
