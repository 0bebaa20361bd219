"""ruma.web: a web explorer of a ruma service (the optional extra ``ruma[web]``).

A gateway in front of the gRPC service (``ruma web --server ADDR --port P``): an HTTP JSON API
under ``/api/v1`` with OpenAPI docs at ``/docs``, and server-rendered pages with shareable URLs
(``/sowing/(10)^3 03 (01)^2``). See ``ruma.web.gateway`` for how it calls the service,
``ruma.web.api`` and ``ruma.web.pages`` for what it offers.

    >>> from ruma.web import Gateway, create_app                 # doctest: +SKIP
    >>> app = create_app(Gateway("127.0.0.1:50051"))
"""

from __future__ import annotations

from ruma.web.app import create_app
from ruma.web.gateway import Gateway, GatewayError
from ruma.web.serve import BackgroundServer

__all__ = ["BackgroundServer", "Gateway", "GatewayError", "create_app"]
