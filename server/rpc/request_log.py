"""Request logging: one line per call — method, peer, status, milliseconds — as a server interceptor.

    INFO ruma.requests /ruma.v1.Ruma/Evaluate ipv4:127.0.0.1:50412 OK 3.1 ms

Lines go to the ``ruma.requests`` logger at INFO (calls that end in ``INTERNAL`` or ``UNKNOWN`` at
WARNING), so ``ruma serve --log-level warning`` silences ordinary calls. Streaming replies are
logged when the stream ends. The interceptor is the outermost one, so calls refused by the token
check are logged too.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Iterator

import grpc

log = logging.getLogger("ruma.requests")

_LOUD = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


def _status(context: grpc.ServicerContext, failed: bool) -> grpc.StatusCode:
    code = context.code() if hasattr(context, "code") else None
    if isinstance(code, grpc.StatusCode):
        return code
    return grpc.StatusCode.UNKNOWN if failed else grpc.StatusCode.OK


def _line(method: str, context: grpc.ServicerContext, started: float, failed: bool) -> None:
    code = _status(context, failed)
    level = logging.WARNING if code in _LOUD else logging.INFO
    if log.isEnabledFor(level):
        milliseconds = (time.perf_counter() - started) * 1000
        log.log(level, "%s %s %s %.1f ms", method, context.peer(), code.name, milliseconds)


def _unary(method: str, behavior: Callable[..., Any]) -> Callable[..., Any]:
    def logged(request: Any, context: grpc.ServicerContext) -> Any:
        started = time.perf_counter()
        failed = True
        try:
            response = behavior(request, context)
            failed = False
            return response
        finally:
            _line(method, context, started, failed)

    return logged


def _streaming(method: str, behavior: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
    def logged(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        started = time.perf_counter()
        failed = True
        try:
            yield from behavior(request, context)
            failed = False
        finally:
            _line(method, context, started, failed)

    return logged


class RequestLogInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    """Logs every call: method, peer, status code, milliseconds."""

    def intercept_service(self, continuation: Callable[[Any], Any], handler_call_details: Any) -> Any:
        handler = continuation(handler_call_details)
        if handler is None:  # an unknown method: gRPC answers UNIMPLEMENTED itself
            log.info("%s (unknown method) UNIMPLEMENTED", handler_call_details.method)
            return None
        method = handler_call_details.method
        if handler.unary_unary is not None:
            return handler._replace(unary_unary=_unary(method, handler.unary_unary))
        if handler.stream_unary is not None:
            return handler._replace(stream_unary=_unary(method, handler.stream_unary))
        if handler.unary_stream is not None:
            return handler._replace(unary_stream=_streaming(method, handler.unary_stream))
        if handler.stream_stream is not None:
            return handler._replace(stream_stream=_streaming(method, handler.stream_stream))
        return handler
