"""The C heap of the server's processes: freed memory kept while large messages arrive, given back after.

gRPC's Python layer copies a received message a few times while it holds the interpreter (on the
server's event loop); with glibc's defaults each copy of a large message is fresh memory from the
kernel, page-faulted in, which costs more than the copy itself: a 60 MB request held the loop for
about 70 ms. ``keep_freed_memory()`` (``ruma serve`` calls it) has glibc keep freed memory in the
heap instead, so the next large message reuses pages already mapped (about 25 ms for 60 MB), and
``large_message()`` (admission calls it for every request over ``LARGE_REQUEST``) schedules
``malloc_trim`` once no large message has come for ``TRIM_AFTER`` seconds: the memory is given
back when the large requests stop. A worker process calls ``malloc_trim()`` after a task that
left it much larger (a large request decoded). Elsewhere than glibc all three do nothing.
"""

from __future__ import annotations

import asyncio
import ctypes
import time

#: glibc's ``mallopt`` parameters
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
#: allocations below this come from the heap (whose freed pages are reused), not from ``mmap``
MMAP_THRESHOLD = 256 << 20
#: free memory at the heap's top kept rather than given back at once
TRIM_THRESHOLD = 512 << 20
#: seconds without a large message after which the heap's free memory is given back
TRIM_AFTER = 5.0

_state = {"kept": False, "last": 0.0, "scheduled": False}


def _libc() -> ctypes.CDLL | None:
    """The C library when it is glibc (``mallopt``, ``malloc_trim``), else ``None``."""
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def malloc_trim() -> None:
    """Give the C heap's free memory back to the system now."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


def keep_freed_memory() -> bool:
    """Have this process's C heap keep freed memory for reuse (see the module doc); whether it could."""
    libc = _libc()
    if libc is None:
        return False
    done = all(libc.mallopt(param, value) == 1 for param, value in (
        (_M_MMAP_THRESHOLD, MMAP_THRESHOLD), (_M_TRIM_THRESHOLD, TRIM_THRESHOLD), (_M_TOP_PAD, 64 << 20)))
    _state["kept"] = done
    return done


def large_message() -> None:
    """A large message arrived (call on the event loop): give the heap's free memory back once
    none has come for ``TRIM_AFTER`` seconds."""
    if not _state["kept"]:
        return
    _state["last"] = time.monotonic()
    if not _state["scheduled"]:
        _state["scheduled"] = True
        asyncio.get_running_loop().call_later(TRIM_AFTER, _trim_when_quiet)


def _trim_when_quiet() -> None:
    quiet = time.monotonic() - float(_state["last"])
    if quiet < TRIM_AFTER:
        asyncio.get_running_loop().call_later(TRIM_AFTER - quiet, _trim_when_quiet)
        return
    _state["scheduled"] = False
    malloc_trim()
