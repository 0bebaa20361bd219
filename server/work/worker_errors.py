"""Errors raised in an evaluation worker process, carried to the server as ``(kind, message)``.

``to_wire(error)`` in the worker, ``from_wire(kind, message)`` in the server: the server raises an
exception of the same kind, so ``ruma.server.rpc.errors.status_of`` gives it the same status code.
This module imports no gRPC, so worker processes stay small.
"""

from __future__ import annotations

import logging
import sys

from ruma.engine.errors import CancelledError, LimitExceededError, RumaError, RumaInputError
from ruma.server.store.codec import CorruptRecordError

log = logging.getLogger(__name__)


class _StatusNamedError(RumaInputError):
    """An error from a worker that names its own status (``status_name``)."""

    status_name = "INVALID_ARGUMENT"


class DataLossError(RumaError):
    """A damaged store record met in another process (``DATA_LOSS``)."""


class WorkerLostError(RumaError):
    """An evaluation worker process died while working on the call (``UNAVAILABLE``: retry)."""


def lmdb_corruption(error: BaseException) -> bool:
    """Whether ``error`` is one of LMDB's reports of a damaged file."""
    lmdb = sys.modules.get("lmdb")
    return lmdb is not None and isinstance(error, (lmdb.CorruptedError, lmdb.PageNotFoundError, lmdb.InvalidError,
                                                   lmdb.BadValsizeError, lmdb.PanicError))


_KINDS: tuple[tuple[str, type[BaseException]], ...] = (
    ("input", RumaInputError), ("limit", LimitExceededError),
    ("cancelled", CancelledError), ("data_loss", CorruptRecordError), ("lost", WorkerLostError), ("failed", RumaError),
)
_REBUILD: dict[str, type[Exception]] = {
    "input": RumaInputError, "limit": LimitExceededError, "cancelled": CancelledError,
    "data_loss": DataLossError, "lost": WorkerLostError, "failed": RumaError,
}


def to_wire(error: BaseException) -> tuple[str, str]:
    """``(kind, message)`` of an error raised in a worker process (bugs are logged there)."""
    from ruma.server.work.disk import DiskFullError, disk_full, is_disk_full

    if not isinstance(error, DiskFullError) and is_disk_full(error):
        return "limit", str(disk_full(error))
    if lmdb_corruption(error):
        return "data_loss", f"damaged store: {error}"
    named = getattr(error, "status_name", None)
    if isinstance(named, str):
        return f"status:{named}", str(error)
    for kind, cls in _KINDS:
        if isinstance(error, cls):
            return kind, str(error)
    if isinstance(error, RecursionError):
        return "limit", "the computation nests deeper than this server allows (a value with a very large birthday)"
    if isinstance(error, MemoryError):
        return "limit", "the computation ran out of memory"
    log.error("internal error: %r", error, exc_info=error)
    return "internal", f"internal error: {type(error).__name__}: {error}"


def from_wire(kind: str, message: str) -> Exception:
    """The exception to raise in the server for a worker's ``(kind, message)``."""
    if kind.startswith("status:"):
        error = _StatusNamedError(message)
        error.status_name = kind[len("status:"):]
        return error
    cls = _REBUILD.get(kind)
    return cls(message) if cls is not None else _WorkerInternalError(message)


class _WorkerInternalError(Exception):
    """A bug in a worker (already logged there with its traceback)."""


