"""A request's budget: the client's deadline, the server's time limit, and whether to go on.

``Budget.for_call(context, max_seconds)`` is made once per call. Its ``should_cancel`` is the
evaluator's hook (polled every few dozen positions); when it answers True it remembers why, and
``error()`` is then the error the call ends with:

============================  =====================================  ==================
why                           error                                  gRPC status
============================  =====================================  ==================
the client's deadline passed  ``CancelledError``                     DEADLINE_EXCEEDED
the client went away          ``CancelledError``                     CANCELLED
``--max-seconds`` passed      ``LimitExceededError``                 RESOURCE_EXHAUSTED
``--max-memory`` was reached  ``LimitExceededError``                 RESOURCE_EXHAUSTED
the server is shutting down   ``CancelledError``                     CANCELLED
============================  =====================================  ==================

An evaluation worker gets the same budget in another process (``wire()``/``from_wire``; the
monotonic clock is the machine's), plus a shared flag the server sets to stop it early.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from ruma.engine.errors import CancelledError, LimitExceededError, RumaError

#: reasons a budget ends a call
DEADLINE, CANCELLED, TIME, MEMORY, SHUTDOWN = "deadline", "cancelled", "time", "memory", "shutdown"
#: values of a worker's stop flag (0: go on)
FLAG_REASONS = {1: CANCELLED, 2: MEMORY, 3: SHUTDOWN}


class Budget:
    """Deadlines and cancellation of one call (see the module docstring)."""

    __slots__ = ("client_deadline", "server_deadline", "max_seconds", "is_active", "flag", "reason",
                 "memory_budget")

    def __init__(self, *, client_deadline: float | None = None, max_seconds: float | None = None,
                 server_deadline: float | None = None, is_active: Callable[[], bool] | None = None,
                 flag: Any = None, memory_budget: int | None = None) -> None:
        self.client_deadline = client_deadline
        self.max_seconds = max_seconds
        if server_deadline is None and max_seconds:
            server_deadline = time.monotonic() + max_seconds
        self.server_deadline = server_deadline
        self.is_active = is_active
        self.flag = flag
        self.reason: str | None = None
        self.memory_budget = memory_budget

    @classmethod
    def for_call(cls, context: Any, max_seconds: float | None, memory_budget: int | None = None,
                 arrived: float | None = None) -> "Budget":
        """The budget of a gRPC call: its deadline, ``max_seconds`` from its arrival (``arrived``,
        monotonic; default now), its liveness when the context can tell it (a synchronous one)."""
        remaining = context.time_remaining() if context is not None else None
        client = None if remaining is None or remaining > 1e9 else time.monotonic() + remaining
        server = None if not max_seconds else (time.monotonic() if arrived is None else arrived) + max_seconds
        is_active = getattr(context, "is_active", None)
        return cls(client_deadline=client, max_seconds=max_seconds, server_deadline=server,
                   is_active=is_active if callable(is_active) else None, memory_budget=memory_budget)

    @property
    def deadline(self) -> float | None:
        """The earlier of the two deadlines (monotonic seconds), or ``None``."""
        times = [t for t in (self.client_deadline, self.server_deadline) if t is not None]
        return min(times) if times else None

    def remaining(self) -> float | None:
        """Seconds until the deadline (never negative), or ``None``."""
        deadline = self.deadline
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    def should_cancel(self) -> bool:
        """True (and ``reason`` set) once the call must stop."""
        if self.reason is not None:
            return True
        flag = self.flag
        if flag is not None and flag.value:
            self.reason = FLAG_REASONS.get(flag.value, CANCELLED)
            return True
        now = time.monotonic()
        if self.client_deadline is not None and now >= self.client_deadline:
            self.reason = DEADLINE
        elif self.server_deadline is not None and now >= self.server_deadline:
            self.reason = TIME
        elif self.is_active is not None and not self.is_active():
            self.reason = CANCELLED
        return self.reason is not None

    def stop(self, reason: str) -> None:
        """End the call for ``reason`` (the next ``should_cancel`` answers True)."""
        if self.reason is None:
            self.reason = reason

    def error(self, what: str = "the request") -> RumaError:
        """The error a call stopped by this budget ends with."""
        reason = self.reason
        if reason == TIME:
            return LimitExceededError(f"{what} ran longer than this server's limit of {self.max_seconds:g} s "
                                      f"(--max-seconds)")
        if reason == MEMORY:
            budget = f" of {self.memory_budget / 2**20:.0f} MiB" if self.memory_budget else ""
            return LimitExceededError(f"{what} was stopped: the server's evaluation memory budget{budget} "
                                      f"was exhausted (--max-memory)")
        if reason == SHUTDOWN:
            return CancelledError(f"{what} was cancelled: the server is shutting down")
        if reason == DEADLINE:
            return CancelledError(f"{what} was stopped at the client's deadline")
        return CancelledError(f"{what} was cancelled by the client")

    def expired(self, what: str = "the request") -> RumaError:
        """The error of a wait that lasted until the deadline (its reason set if not yet)."""
        if not self.should_cancel():
            self.stop(DEADLINE if self.deadline == self.client_deadline else TIME)
        return self.error(what)

    def wire(self) -> tuple[float | None, float | None, float | None, int | None]:
        """What a worker process needs to rebuild this budget."""
        return self.client_deadline, self.server_deadline, self.max_seconds, self.memory_budget

    @classmethod
    def from_wire(cls, wire: tuple[float | None, float | None, float | None, int | None], flag: Any,
                  margin: float = 0.0) -> "Budget":
        """The budget in a worker, stopped early by ``flag`` (a shared int) as well, and ``margin``
        seconds before the server's time limit (to commit its work and answer within it)."""
        client, server, max_seconds, memory = wire
        return cls(client_deadline=client, server_deadline=None if server is None else server - margin,
                   max_seconds=max_seconds, flag=flag, memory_budget=memory)
