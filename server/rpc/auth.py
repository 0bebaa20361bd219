"""Bearer tokens: a token file and the check every call passes.

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

import hashlib
import hmac
from pathlib import Path
from typing import Any, Iterable, Mapping

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


class TokenCheck:
    """Checks ``authorization: Bearer TOKEN`` metadata and the role on write methods
    (``ruma.server.rpc.admission`` asks it at the start of every call, before its request is read)."""

    def __init__(self, tokens: Mapping[str, str], write_methods: Iterable[str] | None = None) -> None:
        self.tokens = dict(tokens)
        self.extra_write_methods = frozenset(write_methods or ())

    def is_write(self, method: str) -> bool:
        """Whether ``method`` needs a ``write`` token."""
        return method in WRITE_METHODS or method in self.extra_write_methods

    def check(self, method: str, metadata: Iterable[tuple[str, Any]] | None
              ) -> tuple[tuple[grpc.StatusCode, str] | None, str | None]:
        """``(refusal, client)``: ``(code, details)`` when the call may not go on (else ``None``), and
        the name of the known token it carries (``token_label``; ``None`` without one)."""
        header = ""
        for key, value in metadata or ():
            if key == "authorization":
                header = value if isinstance(value, str) else value.decode("utf-8", "replace")
                break
        scheme, _, presented = header.partition(" ")
        role = _find_role(self.tokens, presented.strip()) if header and scheme.lower() == "bearer" else None
        client = token_label(presented.strip()) if role is not None else None
        if method.startswith(PUBLIC_PREFIXES):
            return None, client
        if not header:
            return (grpc.StatusCode.UNAUTHENTICATED, "missing 'authorization: Bearer TOKEN' metadata"), None
        if scheme.lower() != "bearer" or not presented.strip():
            return (grpc.StatusCode.UNAUTHENTICATED, "authorization metadata must be 'Bearer TOKEN'"), None
        if role is None:
            return (grpc.StatusCode.UNAUTHENTICATED, "unknown token"), None
        if role != WRITE and self.is_write(method):
            return (grpc.StatusCode.PERMISSION_DENIED, f"{method} needs a write token; this token is read-only"), client
        return None, client


def token_label(token: str) -> str:
    """How logs and messages name a token without showing it: ``token`` and the first 8 hex digits
    of its SHA-256 (``printf %s TOKEN | sha256sum`` finds it)."""
    return f"token {hashlib.sha256(token.encode()).hexdigest()[:8]}"
