"""Admission at the start of every call, before its request is read: tokens, shares, the request's arrival.

``Admission`` is the server's one interceptor. It gives every method a handler that runs as soon
as the call's headers have arrived (a unary request is read by the handler itself: on the wire a
unary call is a stream of one message), so that

* the token is checked first (``ruma.server.rpc.auth.TokenCheck``): UNAUTHENTICATED or
  PERMISSION_DENIED before anything else;
* the call is charged to its *client*: the known token it carries, else the address it comes
  from (the peer's IP: every port and connection of it together; a token a server does not know
  names nobody, so it cannot mint shares). A client may have at most ``max_per_client`` calls
  open: a call beyond waits, as a suspended coroutine, until one of its client's calls ends
  (``share_wait`` seconds at most), then gets RESOURCE_EXHAUSTED naming the client and the limit —
  the client over its share is refused, not the others, and one that keeps opening calls is held
  to the pace at which its own calls end rather than costing the server a refusal each time;
* the server holds at most ``max_calls`` calls, and keeps the last ``reserve`` of them for cheap
  reads: once ``max_calls - reserve`` are open only a call of a method in ``CHEAP_METHODS`` is
  admitted, marked ``RESERVED`` (the servicer then serves it from the store alone: a value it
  would have to compute is RESOURCE_EXHAUSTED), and beyond ``max_calls`` none. Health checks
  (``Health/Check``, answered at once) are never counted nor refused;
* a request message that does not arrive within ``request_seconds`` (or the call's own deadline)
  ends the call with DEADLINE_EXCEEDED — a stream that sends headers and never its request holds
  a suspended coroutine and one of its client's slots, nothing more, and not for long;
* a request larger than its method takes (``max_request``) is RESOURCE_EXHAUSTED before it is
  decoded; a large one of a method in ``UNDECODED_METHODS`` is handed to the servicer undecoded
  (``Undecoded``: a reader worker decodes it), so that no large message is parsed on the event
  loop; one that does not decode is INVALID_ARGUMENT ("malformed request message"), not INTERNAL;
* the call's arrival time is set (``ARRIVED``: ``--max-seconds`` counts from it), and one line is
  logged when it ends (``ruma.server.rpc.request_log``; a client's refused calls are summed up,
  one line a second, so that a flood of them does not flood the log).
"""

from __future__ import annotations

import asyncio
import collections
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Awaitable, Callable
from urllib.parse import unquote

import grpc
from google.protobuf.message import DecodeError

from ruma.server.rpc.auth import TokenCheck
from ruma.server.rpc.request_log import log_call, log_refused
from ruma.server.work.heap import large_message

#: when the current call arrived (``time.monotonic``), set for its handler
ARRIVED: ContextVar[float | None] = ContextVar("ARRIVED", default=None)
#: whether the current call holds a slot of the capacity kept for cheap reads (served from the store only)
RESERVED: ContextVar[bool] = ContextVar("RESERVED", default=False)
#: calls one client (a token, else an address) may have open at once (``ruma serve --max-calls-per-client``)
MAX_PER_CLIENT = 256
#: calls the server takes at once (beyond, RESOURCE_EXHAUSTED)
MAX_CALLS = 4096
#: seconds a call's request message may take to arrive after its headers (``ruma serve --request-seconds``)
REQUEST_SECONDS = 5.0
#: seconds a call of a client over its share waits for one of the client's calls to end before it is refused
SHARE_WAIT = 30.0
#: methods a call may take a slot of the reserve for: those that answer from the store
CHEAP_METHODS = frozenset({
    "/ruma.v1.Ruma/Evaluate", "/ruma.v1.Ruma/EvaluateBatch", "/ruma.v1.Ruma/Lookup", "/ruma.v1.Ruma/GetCapabilities",
    "/ruma.v1.Ruma/GetStats", "/ruma.v1.Sweeps/Contains", "/ruma.v1.Sweeps/Documents"})
#: methods never counted nor refused: answered at once, without reading the store
FREE_METHODS = frozenset({"/grpc.health.v1.Health/Check"})
#: the largest request message of a method (bytes); others take ``MAX_REQUEST_DEFAULT``
MAX_REQUEST = {"/ruma.v1.Ruma/EvaluateBatch": 64 << 20, "/ruma.v1.Ruma/Lookup": 64 << 20,
               "/ruma.v1.Sweeps/Upload": 64 << 20, "/ruma.v1.Sweeps/Contains": 8 << 20}
MAX_REQUEST_DEFAULT = 1 << 20
#: request messages larger than this, of ``UNDECODED_METHODS``, are decoded by a worker
LARGE_REQUEST = 1 << 20
UNDECODED_METHODS = frozenset({"/ruma.v1.Ruma/EvaluateBatch", "/ruma.v1.Ruma/Lookup"})


@dataclass(frozen=True)
class Undecoded:
    """A request message too large to decode on the event loop, as it arrived (see the module doc)."""

    raw: bytes


def client_address(peer: str) -> str:
    """The address part of a gRPC peer (``ipv4:10.0.0.7:50412`` → ``10.0.0.7``, ``ipv6:[::1]:5`` →
    ``::1``; a Unix socket → ``unix``)."""
    kind, _, rest = unquote(peer).partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        host = rest.rpartition(":")[0] or rest
        return host.strip("[]")
    if kind.startswith("unix"):
        return "unix"
    return peer


class Admission(grpc.aio.ServerInterceptor):  # type: ignore[misc]  # grpc ships no type stubs
    """See the module docstring."""

    def __init__(self, tokens: TokenCheck | None = None, *, max_per_client: int = MAX_PER_CLIENT,
                 max_calls: int = MAX_CALLS, reserve: int | None = None, request_seconds: float = REQUEST_SECONDS,
                 share_wait: float = SHARE_WAIT, log_requests: bool = True) -> None:
        self.tokens = tokens
        self.max_per_client, self.max_calls = max_per_client, max_calls
        self.reserve = max_calls // 4 if reserve is None else reserve
        self.request_seconds, self.share_wait = request_seconds, share_wait
        self.log_requests = log_requests
        self.open: collections.Counter[str] = collections.Counter()
        self.calls = 0
        self.refused = 0
        self.waiting = 0  # calls waiting for a slot of their client (``_wait_for_share``)
        self.share_waiters: dict[str, collections.deque[asyncio.Future[None]]] = {}

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], details: Any) -> Any:
        """A handler of the method that admits the call before anything else (see the module doc)."""
        handler = await continuation(details)
        method = details.method
        if handler is None:  # an unknown method: gRPC answers UNIMPLEMENTED itself
            if self.log_requests:
                log_call(method, "(unknown method)", grpc.StatusCode.UNIMPLEMENTED, time.perf_counter())
            return None
        if method in FREE_METHODS:
            return handler
        refusal, token = self.tokens.check(method, details.invocation_metadata) if self.tokens is not None else (None, None)
        if handler.request_streaming:
            return self._streams(handler, method, refusal, token)
        deserialize = handler.request_deserializer or (lambda raw: raw)
        inner = handler.unary_unary or handler.unary_stream

        async def call(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            async def respond(request: Any) -> Any:
                if handler.unary_unary is not None:
                    return await inner(request, context)
                return await _relay(inner(request, context), context)

            return await self._admit(method, context, refusal, token,
                                     lambda: self._first(method, context, deserialize), respond)

        kwargs = {"request_deserializer": None, "response_serializer": handler.response_serializer}
        if handler.unary_unary is not None:
            return grpc.stream_unary_rpc_method_handler(call, **kwargs)
        return grpc.stream_stream_rpc_method_handler(call, **kwargs)

    def _streams(self, handler: Any, method: str, refusal: tuple[grpc.StatusCode, str] | None,
                 token: str | None) -> Any:
        """A request-streaming method (reflection): admitted the same way, its stream passed on."""
        kwargs = {"request_deserializer": handler.request_deserializer,
                  "response_serializer": handler.response_serializer}
        if handler.stream_unary is not None:
            inner_unary = handler.stream_unary

            async def unary(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
                return await self._admit(method, context, refusal, token, _none,
                                         lambda _: inner_unary(request_iterator, context))

            return grpc.stream_unary_rpc_method_handler(unary, **kwargs)
        inner_stream = handler.stream_stream

        async def stream(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            await self._admit(method, context, refusal, token, _none,
                              lambda _: _relay(inner_stream(request_iterator, context), context))

        return grpc.stream_stream_rpc_method_handler(stream, **kwargs)

    def _refusal(self, method: str, client: str) -> str | None:
        """Why a call of ``client`` may not be admitted now (``None``: it may)."""
        held = self.open[client]
        if held >= self.max_per_client:
            return (f"this client ({client}) has {held} calls open, the server's limit per client "
                    f"(--max-calls-per-client {self.max_per_client}), and none of them ended while this call "
                    f"waited; try again when some have ended")
        if self.calls >= self.max_calls or (self.calls >= self.max_calls - self.reserve and method not in CHEAP_METHODS):
            return (f"this server has {self.calls} calls open, its limit (of {self.max_calls}, the last {self.reserve} "
                    f"kept for stored lookups); try again later")
        return None

    async def _admit(self, method: str, context: grpc.aio.ServicerContext,
                     refusal: tuple[grpc.StatusCode, str] | None, token: str | None,
                     first: Callable[[], Awaitable[Any]], respond: Callable[[Any], Awaitable[Any]]) -> Any:
        started, arrived = time.perf_counter(), time.monotonic()
        peer = context.peer()
        client = token or f"address {client_address(peer)}"
        code = grpc.StatusCode.OK
        counted = False
        try:
            if refusal is not None:
                await context.abort(*refusal)
            full = self._refusal(method, client)
            if full is not None and self.open[client] >= self.max_per_client:
                full = await self._wait_for_share(method, client, context.time_remaining())
            if full is not None:
                self.refused += 1
                if self.log_requests:
                    log_refused(method, client, full)
                code = grpc.StatusCode.RESOURCE_EXHAUSTED
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, full)
            RESERVED.set(self.calls >= self.max_calls - self.reserve)
            self.open[client] += 1
            self.calls += 1
            counted = True
            ARRIVED.set(arrived)
            return await respond(await first())
        except grpc.aio.AbortError:
            code = _code(context, grpc.StatusCode.UNKNOWN) if code is grpc.StatusCode.OK else code
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
                self.open[client] -= 1
                if not self.open[client]:
                    del self.open[client]
                self._pass_share(client)
            if self.log_requests and (counted or refusal is not None):
                log_call(method, peer, _code(context, code) if code is grpc.StatusCode.OK else code, started)

    async def _wait_for_share(self, method: str, client: str, remaining: float | None) -> str | None:
        """A call of a client over its share waits (a suspended coroutine, nothing more) until one of
        the client's calls ends, at most ``share_wait`` seconds (or what is left of its deadline,
        ``remaining``); then why it may still not be admitted (``None``: it may). A client that
        keeps opening calls past its share is held to the pace at which its own calls end, at no
        cost to the others (at most ``max_calls`` calls wait so; beyond, a call is refused at once)."""
        if self.waiting >= self.max_calls:
            return self._refusal(method, client)
        self.waiting += 1
        deadline = time.monotonic() + (self.share_wait if remaining is None else min(remaining, self.share_wait))
        waiters = self.share_waiters.setdefault(client, collections.deque())
        try:
            while (full := self._refusal(method, client)) is not None and self.open[client] >= self.max_per_client:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return full
                waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                waiters.append(waiter)
                try:
                    await asyncio.wait((waiter,), timeout=remaining)
                finally:
                    if not waiter.done():
                        waiter.cancel()
                        waiters.remove(waiter)
            return full
        finally:
            self.waiting -= 1
            if not waiters and self.share_waiters.get(client) is waiters:
                del self.share_waiters[client]

    def _pass_share(self, client: str) -> None:
        """One of ``client``'s calls ended: wake the longest waiting of its calls over its share."""
        waiters = self.share_waiters.get(client)
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def _first(self, method: str, context: grpc.aio.ServicerContext, deserialize: Callable[[bytes], Any]) -> Any:
        """The call's one request message, read within the time allowed and decoded (or ``Undecoded``)."""
        remaining = context.time_remaining()
        wait = self.request_seconds if remaining is None else min(remaining, self.request_seconds)
        try:
            raw = await asyncio.wait_for(context.read(), max(0.0, wait))
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                                f"the request message did not arrive within {wait:.3g} s of the call's start "
                                f"(--request-seconds)")
        if raw is grpc.aio.EOF:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"{method}: the call ended before its request message")
        largest = MAX_REQUEST.get(method, MAX_REQUEST_DEFAULT)
        if len(raw) > largest:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"a request message of {len(raw):,} bytes; {method} takes at most {largest:,}")
        if len(raw) > LARGE_REQUEST:
            large_message()
            if method in UNDECODED_METHODS:
                return Undecoded(raw)
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


__all__ = ["ARRIVED", "Admission", "RESERVED", "Undecoded", "client_address"]
