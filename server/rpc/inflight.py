"""Single-flight: identical requests in flight are computed once.

``await SingleFlight.run(key, compute, budget)``: the first caller with a given key (the leader)
awaits ``compute()``; callers arriving with the same key while it runs (followers) wait for its
result instead of computing it again — a suspended coroutine each, on the server's event loop. A
follower still honours its own budget while it waits (its deadline ends its wait with its own
error). If the leader is cancelled (its client's deadline or cancellation, which belong to the
leader alone), a follower retries — becoming the new leader — rather than inherit the failure;
other errors are shared, since they would recur (callers put everything that changes the outcome,
such as the position limit, into the key).
"""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable, Generic, Hashable, TypeVar

from ruma.engine.errors import CancelledError
from ruma.server.work.budget import Budget

T = TypeVar("T")


class SingleFlight(Generic[T]):
    """Coalesces concurrent calls with equal keys (use it from one event loop)."""

    def __init__(self) -> None:
        self._calls: dict[Hashable, asyncio.Future[T]] = {}

    def in_flight(self) -> int:
        """How many distinct computations are running now."""
        return len(self._calls)

    async def run(self, key: Hashable, compute: Callable[[], Awaitable[T]], budget: Budget | None = None) -> tuple[T, bool]:
        """``(result, shared)``: ``shared`` is True when another caller's computation was reused."""
        while True:
            call = self._calls.get(key)
            if call is None:
                return await self._lead(key, compute), False
            remaining = budget.remaining() if budget is not None else None
            await asyncio.wait((call,), timeout=remaining)
            if not call.done():
                assert budget is not None
                raise budget.expired("the request (waiting for an identical evaluation in flight)")
            error = call.exception()
            if error is None:
                return call.result(), True
            if isinstance(error, CancelledError):
                continue  # the leader's own deadline or cancellation: compute it ourselves
            raise error

    async def _lead(self, key: Hashable, compute: Callable[[], Awaitable[T]]) -> T:
        call: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        call.add_done_callback(lambda f: f.cancelled() or f.exception())  # (read: no "never retrieved" log)
        self._calls[key] = call
        try:
            result = await compute()
        except asyncio.CancelledError:
            call.set_exception(CancelledError("the leading call was cancelled"))
            raise
        except BaseException as error:
            call.set_exception(error)
            raise
        else:
            call.set_result(result)
            return result
        finally:
            del self._calls[key]
