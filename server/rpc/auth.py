"""Bearer tokens: a token file and a server interceptor.

The token file has one token a line, followed by its role, ``read`` or ``write``::

    # comments and blank lines are ignored
    3f9c0a...  read
    b71e44...  write

With a token file, every call must carry ``authorization: Bearer TOKEN`` metadata, except the
standard health service (load balancers probe it without credentials). ``read`` tokens may call
every method except those in ``WRITE_METHODS`` (full gRPC method names such as
``/ruma.v1.Catalog/AddEntry``); the catalog registers its writes with ``register_write_methods``.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import grpc

from ruma.engine.errors import RumaInputError

READ = "read"
WRITE = "write"
ROLES = (READ, WRITE)

#: full method names that need a ``write`` token (extended by other servicers at import time)
WRITE_METHODS: set[str] = set()

#: method-name prefixes callable without a token
PUBLIC_PREFIXES: tuple[str, ...] = ("/grpc.health.v1.Health/",)


def register_write_methods(*methods: str) -> None:
    """Declare full method names (``/package.Service/Method``) that need a ``write`` token."""
    for method in methods:
        if not method.startswith("/") or method.count("/") != 2:
            raise ValueError(f"not a full gRPC method name: {method!r}")
        WRITE_METHODS.add(method)


class TokenFileError(RumaInputError):
    """A token file that cannot be read or has a malformed line."""


def load_tokens(path: str | Path) -> dict[str, str]:
    """Read a token file into ``{token: role}``; raises ``TokenFileError`` quoting the bad line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise TokenFileError(f"cannot read token file {str(path)!r}: {error.strerror}") from error
    tokens: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2 or fields[1].lower() not in ROLES:
            raise TokenFileError(
                f"{str(path)!r} line {number}: expected 'TOKEN read' or 'TOKEN write', got {raw.strip()!r}"
            )
        tokens[fields[0]] = fields[1].lower()
    if not tokens:
        raise TokenFileError(f"token file {str(path)!r} has no tokens")
    return tokens


def _find_role(tokens: Mapping[str, str], presented: str) -> str | None:
    """The role of ``presented``, comparing every token in constant time."""
    role = None
    for token, token_role in tokens.items():
        if hmac.compare_digest(token.encode(), presented.encode()):
            role = token_role
    return role


def _aborting(handler: grpc.RpcMethodHandler, code: grpc.StatusCode, details: str) -> grpc.RpcMethodHandler:
    """A handler of the same shape as ``handler`` that fails the call with ``code``."""

    def unary(request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(code, details)

    def streaming(request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(code, details)
        yield  # pragma: no cover - abort raises

    kwargs = {"request_deserializer": handler.request_deserializer, "response_serializer": handler.response_serializer}
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(streaming, **kwargs)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(unary, **kwargs)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(streaming, **kwargs)
    return grpc.unary_unary_rpc_method_handler(unary, **kwargs)


class TokenInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]  # grpc ships no type stubs
    """Checks ``authorization: Bearer TOKEN`` on every call and the role on write methods."""

    def __init__(self, tokens: Mapping[str, str], write_methods: Iterable[str] | None = None) -> None:
        self.tokens = dict(tokens)
        self.extra_write_methods = frozenset(write_methods or ())

    def is_write(self, method: str) -> bool:
        """Whether ``method`` needs a ``write`` token."""
        return method in WRITE_METHODS or method in self.extra_write_methods

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        """Let the call through, or replace its handler by one that fails it."""
        method = handler_call_details.method
        handler = continuation(handler_call_details)
        if handler is None or method.startswith(PUBLIC_PREFIXES):
            return handler
        header = ""
        for key, value in handler_call_details.invocation_metadata or ():
            if key == "authorization":
                header = value if isinstance(value, str) else value.decode("utf-8", "replace")
                break
        scheme, _, presented = header.partition(" ")
        if not header:
            return _aborting(handler, grpc.StatusCode.UNAUTHENTICATED, "missing 'authorization: Bearer TOKEN' metadata")
        if scheme.lower() != "bearer" or not presented.strip():
            return _aborting(handler, grpc.StatusCode.UNAUTHENTICATED, "authorization metadata must be 'Bearer TOKEN'")
        role = _find_role(self.tokens, presented.strip())
        if role is None:
            return _aborting(handler, grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        if role != WRITE and self.is_write(method):
            return _aborting(handler, grpc.StatusCode.PERMISSION_DENIED, f"{method} needs a write token; this token is read-only")
        return handler
