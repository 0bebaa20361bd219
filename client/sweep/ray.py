"""The Ray backend of ``ruma sweep --ray [ADDRESS]``: worker slots are Ray actors.

``RayActors(slots, address=None)``: without an address a local Ray cluster is started for the
sweep (and stopped after it); with one, the sweep joins that cluster (``ray://host:10001`` for
Ray Client, ``host:6379`` or ``auto`` from a cluster node) and places one actor per slot wherever
Ray finds a CPU. Each actor runs ``ruma.client.sweep.worker.work`` and keeps its memo between
tasks, exactly like a local worker process. Only the driver writes to the store; actors read the
driver's store, and share the table of values of ``ruma.client.sweep.shared`` as local processes
do, only when the cluster was started here (same machine).

Ray is an optional dependency: ``pip install 'ruma[ray]'``. The cluster's machines need the same
ruma (and Python) installed; see docs/sweeps.md.
"""

from __future__ import annotations

import os
from concurrent import futures
from typing import Any

from ruma.client.sweep.worker import Result, Task, forget, work
from ruma.engine.errors import RumaError


class RayUnavailableError(RumaError):
    """``--ray`` without Ray installed, or a cluster that cannot be reached."""


class _Actor:
    """One worker slot (the class Ray makes an actor of)."""

    def work(self, task: Task) -> Result:
        return work(task)

    def call(self, function: Any, *args: Any) -> Any:
        return function(*args)

    def forget(self) -> None:
        forget()

    def node(self) -> str:
        import ray

        return str(ray.get_runtime_context().get_node_id())


class RayActors:
    """``slots`` Ray actors (see the module docstring)."""

    name = "ray"

    def __init__(self, slots: int | None = None, address: str | None = None) -> None:
        try:
            import ray as ray_module
        except ImportError as error:
            raise RayUnavailableError("--ray needs Ray: pip install 'ruma[ray]'") from error
        ray: Any = ray_module  # Ray's own annotations are partial: use it untyped
        self.ray = ray
        self.started = False
        if not ray.is_initialized():
            if address:
                self._init(lambda: ray.init(address=address, log_to_driver=False), address, tries=1)
            else:
                # a local cluster on loopback only (Ray then binds 127.0.0.1); on a busy machine its
                # daemons may need longer than Ray's default wait to register, and a second try
                self._init(lambda: ray.init(num_cpus=slots, include_dashboard=False, log_to_driver=False,
                                            _node_ip_address="127.0.0.1"), None, tries=2)
                self.started = True
        self.local = self.started
        # a cluster started here runs its actors on this machine: they can map the sweep's shared
        # table of values (ruma.client.sweep.shared) as local worker processes do
        self.shares_memory = self.started
        if slots is None:
            slots = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.slots = slots
        actor: Any = ray.remote(num_cpus=1)(_Actor)
        self.actors: list[Any] = [actor.remote() for _ in range(slots)]

    def _init(self, start: Any, address: str | None, tries: int) -> None:
        if address is None:
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
            os.environ.setdefault("RAY_raylet_start_wait_time_s", "60")
        for attempt in range(tries):
            try:
                start()
                return
            except Exception as error:  # noqa: BLE001 - Ray raises many kinds; report one line
                self.ray.shutdown()
                if attempt + 1 == tries:
                    where = f" at {address!r}" if address else ""
                    raise RayUnavailableError(f"cannot start or join a Ray cluster{where}: {error}") from error

    def submit(self, slot: int, task: Task) -> "futures.Future[Result]":
        """Run ``task`` on the slot's actor."""
        return self.actors[slot].work.remote(task).future()  # type: ignore[no-any-return]

    def call(self, slot: int, function: Any, *args: Any) -> "futures.Future[Any]":
        """Run ``function(*args)`` (importable by name) on the slot's actor."""
        return self.actors[slot].call.remote(function, *args).future()  # type: ignore[no-any-return]

    def nodes(self) -> list[str]:
        """The Ray node each slot's actor runs on (its node id), in slot order."""
        return [str(node) for node in self.ray.get([actor.node.remote() for actor in self.actors])]

    def close(self) -> None:
        """Stop the actors (and the cluster, if this sweep started it)."""
        for actor in self.actors:
            try:
                self.ray.kill(actor)
            except Exception:  # noqa: BLE001 - best effort on shutdown
                pass
        self.actors = []
        if self.started:
            self.ray.shutdown()

    def __enter__(self) -> "RayActors":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
