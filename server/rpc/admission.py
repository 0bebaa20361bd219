"""Admission at the start of every call, before its request is read: tokens, per-peer limits, logging.

``Admission`` is the server's one interceptor. It gives every method a handler that runs as soon
as the call's headers have arrived (a unary request is read by the handler itself: on the wire a
unary call is a stream of one message), so that

* the token is checked first (``ruma.server.rpc.auth.TokenCheck``): UNAUTHENTICATED or
  PERMISSION_DENIED before anything else;
* a peer (one client connection) may have at most ``max_per_peer`` calls open, and the server
  ``max_calls``: beyond them RESOURCE_EXHAUSTED at once, naming the limit;
* a request message that does not arrive within ``first_message_seconds`` (or the call's own
  deadline) ends the call with DEADLINE_EXCEEDED — a stream that sends headers and never its
  request holds a suspended coroutine and its peer's slot, nothing more, and not for long;
* a request that does not decode is INVALID_ARGUMENT ("malformed request message"), not INTERNAL;
* the call's arrival time is set (``ARRIVED``: ``--max-seconds`` counts from it), and one line is
  logged when it ends (``ruma.server.rpc.request_log``).
"""

from __future__ import annotations

import asyncio
import collections
import time
from contextvars import ContextVar
from typing import Any, Awaitable, Callable

import grpc
from google.protobuf.message import DecodeError

from ruma.server.rpc.auth import TokenCheck
from ruma.server.rpc.request_log import log_call

#: when the current call arrived (``time.monotonic``), set for its handler
ARRIVED: ContextVar[float | None] = ContextVar("ARRIVED", default=None)
#: calls one peer may have open at once (``ruma serve --max-streams-per-peer``)
MAX_PER_PEER = 100
#: calls the server takes at once (beyond, RESOURCE_EXHAUSTED)
MAX_CALLS = 4096


class Admission(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc ships no type stubs
    """See the module docstring."""

    def __init__(self, tokens: TokenCheck | None = None, *, max_per_peer: int = MAX_PER_PEER,
                 max_calls: int = MAX_CALLS, first_message_seconds: float = 60.0, log_requests: bool = True) -> None:
        self.tokens = tokens
        self.max_per_peer, self.max_calls = max_per_peer, max_calls
        self.first_message_seconds = first_message_seconds
        self.log_requests = log_requests
        self.open: collections.Counter[str] = collections.Counter()
        self.calls = 0
        self.refused = 0

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        """A handler of the method that admits the call before anything else (see the module doc)."""
        handler = await continuation(details)
        method = details.method
        if handler is None:  # an unknown method: gRPC answers UNIMPLEMENTED itself
            if self.log_requests:
                log_call(method, "(unknown method)", grpc.StatusCode.UNIMPLEMENTED, time.perf_counter())
            return None
        refusal = self.tokens.refusal(method, details.invocation_metadata) if self.tokens is not None else None
        if handler.request_streaming:
            return self._streams(handler, method, refusal)
        deserialize = handler.request_deserializer or (lambda raw: raw)
        inner = handler.unary_unary or handler.unary_stream

        async def call(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            async def respond(request: Any) -> Any:
                if handler.unary_unary is not None:
                    return await inner(request, context)
                return await _relay(inner(request, context), context)

            return await self._admit(method, context, refusal, lambda: self._first(method, context, deserialize),
                                     respond)

        kwargs = {"request_deserializer": None, "response_serializer": handler.response_serializer}
        if handler.unary_unary is not None:
            return grpc.stream_unary_rpc_method_handler(call, **kwargs)
        return grpc.stream_stream_rpc_method_handler(call, **kwargs)

    def _streams(self, handler: Any, method: str, refusal: tuple[grpc.StatusCode, str] | None) -> Any:
        """A request-streaming method (reflection): admitted the same way, its stream passed on."""
        kwargs = {"request_deserializer": handler.request_deserializer,
                  "response_serializer": handler.response_serializer}
        if handler.stream_unary is not None:
            inner_unary = handler.stream_unary

            async def unary(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
                return await self._admit(method, context, refusal, _none,
                                         lambda _: inner_unary(request_iterator, context))

            return grpc.stream_unary_rpc_method_handler(unary, **kwargs)
        inner_stream = handler.stream_stream

        async def stream(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            await self._admit(method, context, refusal, _none,
                              lambda _: _relay(inner_stream(request_iterator, context), context))

        return grpc.stream_stream_rpc_method_handler(stream, **kwargs)

    async def _admit(self, method: str, context: grpc.aio.ServicerContext,
                     refusal: tuple[grpc.StatusCode, str] | None, first: Callable[[], Awaitable[Any]],
                     respond: Callable[[Any], Awaitable[Any]]) -> Any:
        started, arrived = time.perf_counter(), time.monotonic()
        peer = context.peer()
        code = grpc.StatusCode.OK
        counted = False
        try:
            if refusal is not None:
                await context.abort(*refusal)
            if self.calls >= self.max_calls:
                self.refused += 1
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    f"this server has {self.calls} calls open, its limit; try again later")
            if self.open[peer] >= self.max_per_peer:
                self.refused += 1
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                    f"this connection has {self.open[peer]} calls open, the server's limit per "
                                    f"client (--max-streams-per-peer); try again when some have ended")
            self.open[peer] += 1
            self.calls += 1
            counted = True
            ARRIVED.set(arrived)
            return await respond(await first())
        except grpc.aio.AbortError:
            code = _code(context, grpc.StatusCode.UNKNOWN)
            raise
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
            raise
        except BaseException:
            code = grpc.StatusCode.UNKNOWN
            raise
        finally:
            if counted:
                self.calls -= 1
                self.open[peer] -= 1
                if not self.open[peer]:
                    del self.open[peer]
            if self.log_requests:
                log_call(method, peer, _code(context, code) if code is grpc.StatusCode.OK else code, started)

    async def _first(self, method: str, context: grpc.aio.ServicerContext, deserialize: Callable[[bytes], Any]) -> Any:
        """The call's one request message, read within the time allowed and decoded."""
        remaining = context.time_remaining()
        wait = self.first_message_seconds if remaining is None else min(remaining, self.first_message_seconds)
        try:
            raw = await asyncio.wait_for(context.read(), max(0.0, wait))
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                                f"the request message did not arrive within {wait:.3g} s of the call's start")
        if raw is grpc.aio.EOF:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"{method}: the call ended before its request message")
        try:
            return deserialize(raw)
        except (DecodeError, ValueError, TypeError) as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"malformed request message for {method} ({len(raw)} bytes): {error}")


async def _none() -> None:
    return None


async def _relay(replies: Any, context: grpc.aio.ServicerContext) -> None:
    """Send a streaming handler's replies: those of an async generator, or those it writes itself."""
    if hasattr(replies, "__aiter__"):
        async for reply in replies:
            await context.write(reply)
    else:
        await replies


def _code(context: grpc.aio.ServicerContext, default: grpc.StatusCode) -> grpc.StatusCode:
    try:
        code = context.code()
    except Exception:  # noqa: BLE001 - logging only
        return default
    return code if isinstance(code, grpc.StatusCode) else default


__all__ = ["ARRIVED", "Admission"]
