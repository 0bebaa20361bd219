"""Request logging: one line per call — method, peer, status, milliseconds.

    INFO ruma.requests /ruma.v1.Ruma/Evaluate ipv4:127.0.0.1:50412 OK 3.1 ms

Lines go to the ``ruma.requests`` logger at INFO (calls that end in ``INTERNAL`` or ``UNKNOWN`` at
WARNING), so ``ruma serve --log-level warning`` silences ordinary calls. Streaming replies are
logged when the stream ends. ``ruma.server.rpc.admission`` writes them, so calls refused before
their request was read (a token, a peer's limit) are logged too.
"""

from __future__ import annotations

import logging
import time

import grpc

log = logging.getLogger("ruma.requests")

_LOUD = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)


def log_call(method: str, peer: str, code: grpc.StatusCode, started: float) -> None:
    """Log one call that started at ``started`` (``time.perf_counter``) and ended with ``code``."""
    level = logging.WARNING if code in _LOUD else logging.INFO
    if log.isEnabledFor(level):
        log.log(level, "%s %s %s %.1f ms", method, peer, code.name, (time.perf_counter() - started) * 1000)
