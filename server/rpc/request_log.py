"""Request logging: one line per call — method, peer, status, milliseconds.

    INFO ruma.requests /ruma.v1.Ruma/Evaluate ipv4:127.0.0.1:50412 OK 3.1 ms

Lines go to the ``ruma.requests`` logger at INFO (calls that end in ``INTERNAL`` or ``UNKNOWN`` at
WARNING), so ``ruma serve --log-level warning`` silences ordinary calls. Streaming replies are
logged when the stream ends. ``ruma.server.rpc.admission`` writes them, so calls refused before
their request was read (a token) are logged too. Calls refused for want of room (a client over its
share, a full server) are summed up instead: the first of a client's is logged at once, the rest
as one line a second (``log_refused``), so that a client that floods the server with calls does
not flood its log too.

    INFO ruma.requests refused /ruma.v1.Ruma/Evaluate of address 10.0.0.7: this client ... has 256 calls open ...
    INFO ruma.requests refused 5,310 more calls of address 10.0.0.7 in 1.0 s
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

import grpc

log = logging.getLogger("ruma.requests")

_LOUD = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


def log_call(method: str, peer: str, code: grpc.StatusCode, started: float) -> None:
    """Log one call that started at ``started`` (``time.perf_counter``) and ended with ``code``."""
    level = logging.WARNING if code in _LOUD else logging.INFO
    if log.isEnabledFor(level):
        log.log(level, "%s %s %s %.1f ms", method, peer, code.name, (time.perf_counter() - started) * 1000)


#: seconds over which a client's refused calls are summed up in one line
REFUSED_WINDOW = 1.0


@dataclass
class _Refused:
    since: float
    count: int = 0


_refused: dict[str, _Refused] = {}


def log_refused(method: str, client: str, reason: str) -> None:
    """Log a call refused for want of room: the first of ``client``'s in a window at once, the others
    summed up in one line when the window has passed (call on the server's event loop)."""
    if not log.isEnabledFor(logging.INFO):
        return
    window = _refused.get(client)
    if window is not None:
        window.count += 1
        return
    _refused[client] = window = _Refused(time.monotonic())
    asyncio.get_running_loop().call_later(REFUSED_WINDOW, _end, client, window)
    log.info("refused %s of %s: %s", method, client, reason)


def _end(client: str, window: _Refused) -> None:
    """The end of a window of ``client``'s refused calls: one line for those not logged."""
    if _refused.get(client) is window:
        del _refused[client]
    if window.count:
        log.info("refused %s more calls of %s in %.1f s", f"{window.count:,}", client, REFUSED_WINDOW)
