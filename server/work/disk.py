"""A full disk is the server's condition, not the client's fault or a bug: RESOURCE_EXHAUSTED at once.

``check_room(path)`` refuses work that would write (before anything is computed) when the file
system holding ``path`` has less than ``DISK_RESERVE`` bytes free; ``is_disk_full(error)`` tells
the errors a write on a full disk ends with (``ENOSPC``, ``EDQUOT``, and the ``EIO`` LMDB reports
when a page cannot be written; SQLite's "database or disk is full"), and ``disk_full(error)`` is
the ``DiskFullError`` reported in their place.
"""

from __future__ import annotations

import errno
import os

from ruma.engine.errors import LimitExceededError

#: bytes that must be free on the store's file system before work that writes is admitted
DISK_RESERVE = 16 << 20
_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EIO)
_SIGNS = ("no space left on device", "disk quota exceeded", "database or disk is full", "input/output error",
          "mdb_map_full")


class DiskFullError(LimitExceededError):
    """No room to write on the disk of the store or the catalog (RESOURCE_EXHAUSTED)."""


def free_bytes(path: str | os.PathLike[str]) -> int | None:
    """Bytes free to an unprivileged writer on the file system of ``path`` (``None``: unknown)."""
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    return stat.f_bavail * stat.f_frsize


def check_room(path: str | os.PathLike[str], what: str = "the store") -> None:
    """Raise ``DiskFullError`` when ``path``'s file system has less than ``DISK_RESERVE`` bytes free."""
    free = free_bytes(path)
    if free is not None and free < DISK_RESERVE:
        raise DiskFullError(f"{what}'s disk is full ({free >> 10} KiB free in {str(path)!r}, at least "
                            f"{DISK_RESERVE >> 20} MiB needed to write); nothing was computed; stored values "
                            f"are still served")


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` is how a write on a full disk fails."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in _ERRNOS:
            return True
        text = str(error).lower()
        if any(sign in text for sign in _SIGNS):
            return True
        error = getattr(error, "orig", None) or error.__cause__  # type: ignore[assignment]
    return False


def disk_full(error: BaseException, what: str = "the store") -> DiskFullError:
    """The error a request that met a full disk ends with (the cause named, no SQL quoted)."""
    cause = getattr(error, "orig", None) or error
    detail = str(cause).splitlines()[0] if str(cause) else type(cause).__name__
    return DiskFullError(f"{what}'s disk is full: a write failed ({detail[:200]}); nothing of this request "
                         f"was stored; stored values are still served")
