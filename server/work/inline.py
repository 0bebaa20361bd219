"""Tasks on threads of the server's process: the runner when there are no worker processes.

``InlineRunner`` has ``WorkerPool``'s interface (``run``, ``read``, ``stats``, ``close``) and runs
tasks on threads of the server (``--eval-workers 0``, or a store that is not an ``LmdbStore``):
cooperative time budgets (a cancelled call stops its task at the next check), no memory budget,
no isolation, and the engine's values stay in the server's process.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ruma.engine.memo import Memo, capabilities
from ruma.server.work.budget import CANCELLED, Budget
from ruma.server.work.limits import Limits


class InlineRunner:
    """Runs tasks on threads of the server's process, then commits the store (durability as with workers)."""

    def __init__(self, memo: Memo, store: Memo, limits: Limits, threads: int = 8) -> None:
        self.memo, self.store, self.limits = memo, store, limits
        self._persistent = capabilities(store).store  # (committed after each task)
        self.size = 0
        self.busy = 0
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ruma-inline")

    def _run(self, name: str, args: tuple[Any, ...], budget: Budget) -> Any:
        from ruma.server.work.tasks import TASKS, Context

        self.busy += 1
        try:
            result = TASKS[name](Context(self.memo, self.store, self.limits, budget), *args)
        finally:
            self.busy -= 1
            if self._persistent is not None:
                self._persistent.flush()
        return result

    async def run(self, name: str, args: tuple[Any, ...], budget: Budget) -> Any:
        """Run task ``name`` on a thread; the call's cancellation stops it at its next check."""
        future = asyncio.get_running_loop().run_in_executor(self.executor, self._run, name, args, budget)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            budget.stop(CANCELLED)
            raise

    async def read(self, name: str, args: tuple[Any, ...], budget: Budget, large: bool = False) -> Any:
        """Run a task that only reads the store on a thread (as ``run``)."""
        return await self.run(name, args, budget)

    def stats(self) -> dict[str, int]:
        """Busy, queued, memory, refused, recycled."""
        return {"busy": self.busy, "queued": 0, "memory": 0, "refused": 0, "recycled": 0}

    async def close(self) -> None:
        """Let the threads finish."""
        self.executor.shutdown(wait=False)
