"""Errors → gRPC status codes, in one place.

Every servicer method is wrapped by ``rpc_method``; batch items use ``status_of`` directly, so a
given exception always gets the same code and message:

=============================================  ==================================================
``RumaInputError`` (bad position, expression,   ``INVALID_ARGUMENT``, the message quoting the input
ruleset name, loopy game)
``LimitExceededError`` (pots, seeds, positions  ``RESOURCE_EXHAUSTED``
to explore, batch size)
``CancelledError`` (the evaluation stopped)     ``DEADLINE_EXCEEDED`` when the client's deadline
                                                passed, otherwise ``CANCELLED``
``UnauthenticatedError`` /                      ``UNAUTHENTICATED`` / ``PERMISSION_DENIED``
``PermissionDeniedError``
an error with a ``status_name`` (the catalog's  that status: ``ALREADY_EXISTS`` (a name taken,
``NameTakenError``, ``UnknownNameError``)       also by a concurrent call), ``NOT_FOUND``
``CorruptRecordError``, LMDB's corruption        ``DATA_LOSS``, logged; the damaged value is never
errors (a damaged store)                        served
``WorkerLostError`` (an evaluation worker       ``UNAVAILABLE`` (retry)
died)
a write on a full disk (``work.disk``: ENOSPC,   ``RESOURCE_EXHAUSTED`` "the store's disk is full"
LMDB's EIO, SQLite's "disk is full")            (the catalog's: never its SQL statement)
any other ``RumaError``                         ``FAILED_PRECONDITION``
anything else (a bug)                           ``INTERNAL``, logged with its traceback
=============================================  ==================================================

Errors raised in an evaluation worker process travel as ``(kind, message)`` (``to_wire``) and are
raised again in the server as an exception of the same kind (``from_wire``), so they get the same
status; the worker logs bugs with their traceback.
"""

from __future__ import annotations

import functools
import logging
import sys
from typing import Any, AsyncIterator, Callable, TypeVar

import grpc

from ruma.engine.errors import CancelledError, LimitExceededError, RumaError, RumaInputError
from ruma.server.store.codec import CorruptRecordError
from ruma.server.work.disk import disk_full, is_disk_full
from ruma.server.work.worker_errors import (
    DataLossError,
    WorkerLostError,
    _WorkerInternalError,
    from_wire,
    lmdb_corruption,
    to_wire,
)

__all__ = ["DataLossError", "PermissionDeniedError", "UnauthenticatedError", "WorkerLostError", "from_wire",
           "rpc_method", "rpc_stream", "status_of", "to_wire"]

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

#: the longest message sent back (error messages quote the input, which may be long)
MAX_MESSAGE = 2000


class UnauthenticatedError(Exception):
    """No token, or a token the server does not know."""


class PermissionDeniedError(Exception):
    """A known token without the right to call the method."""


def _deadline_passed(context: grpc.ServicerContext | None) -> bool:
    if context is None:
        return False
    remaining = context.time_remaining()
    return remaining is not None and remaining <= 0.0


def _clip(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 3] + "..."


def status_of(error: BaseException, context: grpc.ServicerContext | None = None) -> tuple[grpc.StatusCode, str]:
    """The gRPC status code and message that ``error`` is reported with."""
    named = getattr(error, "status_name", None)
    if isinstance(named, str) and named in grpc.StatusCode.__members__:
        return grpc.StatusCode[named], _clip(str(error))
    if isinstance(error, (CorruptRecordError, DataLossError)) or lmdb_corruption(error):
        log.error("damaged store: %s", error)
        return grpc.StatusCode.DATA_LOSS, _clip(f"damaged store: {error}" if not isinstance(error, RumaError) else str(error))
    if isinstance(error, WorkerLostError):
        return grpc.StatusCode.UNAVAILABLE, _clip(str(error))
    if not isinstance(error, LimitExceededError) and is_disk_full(error):
        full = disk_full(error, "the catalog" if _sql_error(error) else "the store")
        log.error("%s", full)
        return grpc.StatusCode.RESOURCE_EXHAUSTED, _clip(str(full))
    if isinstance(error, RumaInputError):
        return grpc.StatusCode.INVALID_ARGUMENT, _clip(str(error))
    if isinstance(error, LimitExceededError):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, _clip(str(error))
    if isinstance(error, CancelledError):
        if _deadline_passed(context):
            return grpc.StatusCode.DEADLINE_EXCEEDED, _clip(f"deadline exceeded: {error}")
        return grpc.StatusCode.CANCELLED, _clip(str(error))
    if isinstance(error, UnauthenticatedError):
        return grpc.StatusCode.UNAUTHENTICATED, _clip(str(error))
    if isinstance(error, PermissionDeniedError):
        return grpc.StatusCode.PERMISSION_DENIED, _clip(str(error))
    if isinstance(error, RumaError):
        return grpc.StatusCode.FAILED_PRECONDITION, _clip(str(error))
    if isinstance(error, _WorkerInternalError):
        return grpc.StatusCode.INTERNAL, _clip(str(error))
    log.error("internal error: %r", error, exc_info=error)
    if _sql_error(error):  # the message would quote the SQL statement and its parameters
        cause = getattr(error, "orig", None)
        return grpc.StatusCode.INTERNAL, _clip(f"internal error: the catalog's database failed: "
                                               f"{type(cause).__name__}: {str(cause).splitlines()[0] if cause else ''}")
    return grpc.StatusCode.INTERNAL, _clip(f"internal error: {type(error).__name__}: {error}")


def _sql_error(error: BaseException) -> bool:
    sqlalchemy_exc = sys.modules.get("sqlalchemy.exc")
    return sqlalchemy_exc is not None and isinstance(error, sqlalchemy_exc.SQLAlchemyError)


def rpc_method(method: F) -> F:
    """Wrap a servicer coroutine ``(self, request, context)`` so that errors abort with their status."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except Exception as error:  # noqa: BLE001 - this is the one place errors are mapped
            await _abort(error, context)

    return wrapper  # type: ignore[return-value]


async def _abort(error: Exception, context: grpc.aio.ServicerContext) -> None:
    """End the call with ``error``'s status (an abort already under way goes on)."""
    if isinstance(error, grpc.aio.AbortError):
        raise error
    code, message = status_of(error, context)
    await context.abort(code, message)


def rpc_stream(method: F) -> F:
    """``rpc_method`` for a servicer method answering with a stream (an async generator)."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        try:
            async for reply in method(self, request, context):
                yield reply
        except Exception as error:  # noqa: BLE001 - this is the one place errors are mapped
            await _abort(error, context)

    return wrapper  # type: ignore[return-value]
