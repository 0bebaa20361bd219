"""ruma.web: a web explorer of a ruma service (the optional extra ``ruma[web]``).

A gateway in front of the gRPC service (``ruma web --server ADDR --port P``): an HTTP JSON API
under ``/api/v1`` with OpenAPI docs at ``/docs``, and server-rendered pages with shareable URLs
(``/sowing/(10)^3 03 (01)^2``). See ``ruma.web.gateway`` for how it calls the service,
``ruma.web.api`` and ``ruma.web.pages`` for what it offers.

    >>> from ruma.web import Gateway, create_app                 # doctest: +SKIP
    >>> app = create_app(Gateway("127.0.0.1:50051"))

The names are imported on first use, so ``ruma --help`` works without the extra installed.

May import: the standard library, FastAPI, Jinja2, ``ruma.engine``, ``ruma.client`` (the service
through the typed client) and ``ruma.studies`` (the tables' sections) — never ``ruma.server``.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {"create_app": "ruma.web.app", "Gateway": "ruma.web.gateway", "GatewayError": "ruma.web.gateway",
         "BackgroundServer": "ruma.web.serve"}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ruma.web' has no attribute {name!r}")
    return getattr(import_module(module), name)
