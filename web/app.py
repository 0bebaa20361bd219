"""The explorer's ASGI app: the JSON API, the pages, static files and offline OpenAPI docs.

``create_app(gateway)`` builds it; ``ruma web`` (``ruma.web.commands``) serves it with uvicorn.
Every response carries a ``Server-Timing`` header (``grpc``: time spent waiting for the service,
``app``: the whole request), which the browser's navigation timing reports too. Requests beyond
the explorer's concurrency limits are answered at once with 503 and ``Retry-After``
(``ruma.web.shedding``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Awaitable, Callable

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException

from ruma.web import api, census, pages, tables
from ruma.web.gateway import GRPC_SECONDS, Gateway, GatewayError
from ruma.web.shedding import MAX_REQUESTS, MAX_SLOW, RETRY_AFTER, Shedding, is_slow

STATIC = Path(__file__).parent / "static"


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _validation_message(error: RequestValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item.get("loc", ()) if p not in ("query", "path", "body"))
        given = item.get("input")
        quoted = f" (got {given!r})" if given is not None and not isinstance(given, dict) else ""
        parts.append(f"{where or 'request'}: {item.get('msg', 'invalid')}{quoted}")
    return "; ".join(parts) or "invalid request"


def create_app(gateway: Gateway, *, max_requests: int = MAX_REQUESTS, max_slow: int = MAX_SLOW) -> FastAPI:
    """The explorer over ``gateway`` (its address, token, limits and read-only flag), serving at
    most ``max_requests`` requests at once, ``max_slow`` of them slow (``ruma.web.shedding``)."""
    app = FastAPIOffline(
        title="ruma explorer",
        version="1",
        description="Exact combinatorial-game values of sowing games from a shared ruma store: positions with "
                    "their options, the catalog of named positions and theorems, stored positions by value.",
        openapi_url="/api/v1/openapi.json",
        docs_url="/docs",
        redoc_url="/redoc",
        static_url="/static/docs",
    )
    app.state.gateway = gateway
    app.state.shedding = shedding = Shedding(max_requests, max_slow)

    @app.middleware("http")
    async def shed(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        slow = is_slow(request.method, request.url.path, request.url.query)
        refused = shedding.admit(slow)
        if refused is not None:
            error = GatewayError(503, "UNAVAILABLE", refused)
            response: Response = JSONResponse(error.to_dict(), status_code=503) if _wants_json(request) else \
                pages.render(request, "error.html", 503, status=503, title="The explorer is busy", message=refused,
                             choices=[])
            response.headers["Retry-After"] = str(RETRY_AFTER)
            return response
        try:
            return await call_next(request)
        finally:
            shedding.done(slow)

    @app.middleware("http")
    async def server_timing(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        started = time.perf_counter()
        spent = [0.0]
        token = GRPC_SECONDS.set(spent)
        try:
            response = await call_next(request)
        finally:
            GRPC_SECONDS.reset(token)
        total = (time.perf_counter() - started) * 1000
        response.headers["Server-Timing"] = f"grpc;dur={spent[0] * 1000:.1f}, app;dur={total:.1f}"
        return response

    @app.exception_handler(GatewayError)
    async def gateway_error(request: Request, error: GatewayError) -> Response:
        if _wants_json(request):
            return JSONResponse(error.to_dict(), status_code=error.status)
        return pages.error_page(request, error)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> Response:
        return await gateway_error(request, GatewayError(400, "INVALID_ARGUMENT", _validation_message(error)))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(error.status_code, "HTTP_ERROR")
        message = str(error.detail) if error.status_code != 404 else f"no page at {request.url.path!r}"
        return await gateway_error(request, GatewayError(error.status_code, code, message))

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(api.router)
    app.include_router(census.router)
    app.include_router(tables.router)
    app.include_router(pages.router)
    return app
