"""Single-flight: identical requests in flight are computed once.

``SingleFlight.run(key, compute, should_cancel)``: the first caller with a given key (the leader)
runs ``compute``; callers arriving with the same key while it runs (followers) wait for its result
instead of computing it again. A follower still honours its own cancellation while it waits. If
the leader is cancelled (its client's deadline or cancellation, which belong to the leader
alone), a follower retries — becoming the new leader — rather than inherit the failure; other
errors are shared, since they would recur (callers put everything that changes the outcome,
such as the position limit, into the key).
"""

from __future__ import annotations

import threading
from typing import Callable, Generic, Hashable, TypeVar

from ruma.engine.errors import CancelledError

T = TypeVar("T")

#: how often (seconds) a waiting follower checks its own cancellation
POLL_SECONDS = 0.05


class _Call(Generic[T]):
    __slots__ = ("done", "result", "error", "waiters")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: T | None = None
        self.error: BaseException | None = None
        self.waiters = 0


class SingleFlight(Generic[T]):
    """Coalesces concurrent calls with equal keys; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[Hashable, _Call[T]] = {}

    def in_flight(self) -> int:
        """How many distinct computations are running now."""
        with self._lock:
            return len(self._calls)

    def run(
        self,
        key: Hashable,
        compute: Callable[[], T],
        should_cancel: Callable[[], bool] | None = None,
    ) -> tuple[T, bool]:
        """``(result, shared)``: ``shared`` is True when another caller's computation was reused."""
        while True:
            with self._lock:
                call = self._calls.get(key)
                leader = call is None
                if call is None:
                    call = self._calls[key] = _Call()
                else:
                    call.waiters += 1
            if leader:
                try:
                    call.result = compute()
                except BaseException as error:
                    call.error = error
                    raise
                finally:
                    with self._lock:
                        del self._calls[key]
                    call.done.set()
                return call.result, False
            while not call.done.wait(POLL_SECONDS):
                if should_cancel is not None and should_cancel():
                    raise CancelledError("cancelled while waiting for an identical evaluation in flight")
            if call.error is None:
                return call.result, True  # type: ignore[return-value]
            if isinstance(call.error, CancelledError):
                continue  # the leader's own deadline or cancellation: compute it ourselves
            raise call.error
