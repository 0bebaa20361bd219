"""Clients that misbehave, and a second loopback address, for the admission tests.

* ``LoopbackRelay(target, source="127.0.0.2")`` listens on 127.0.0.1 and opens each connection to
  ``target`` from ``source``: every client of a test is 127.0.0.1, so a server could not tell an
  honest one from an abusive one by address; Linux routes all of 127/8 to loopback, so a client
  through the relay is another address to the server while no byte leaves the machine;
* ``silent_flood(address, connections, streams, seconds)`` (run it in a process of its own, e.g.
  ``spawn_flood``) holds ``connections × streams`` calls that send their headers and never their
  request, each opened again when it ends (at once after a deadline, after ``pause`` seconds
  after a refusal: a client that keeps trying), and reports how the calls ended.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import multiprocessing
import os
import socket
import threading
from typing import Any, Sequence


class LoopbackRelay:
    """A TCP relay from ``127.0.0.1:port`` to ``target``, connecting from ``source`` (see the module doc)."""

    def __init__(self, target: str, source: str = "127.0.0.2") -> None:
        host, _, port = target.rpartition(":")
        self.target, self.source = (host, int(port)), source
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.sockets: list[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, name="relay-accept", daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target, source_address=(self.source, 0))
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sockets += [client, upstream]
            threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()

    def close(self) -> None:
        """Stop relaying and close every connection."""
        self.closed = True
        for sock in [self.listener, *self.sockets]:
            with contextlib.suppress(OSError):
                sock.close()

    def __enter__(self) -> "LoopbackRelay":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pump(src: socket.socket, dst: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := src.recv(1 << 16):
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)


async def _flood(address: str, connections: int, streams: int, seconds: float, pause: float,
                 metadata: Sequence[tuple[str, str]] | None) -> dict[str, int]:
    import grpc

    stop = asyncio.Event()
    ended: collections.Counter[str] = collections.Counter()
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(connections)]

    async def never() -> Any:
        await stop.wait()
        return
        yield b""  # pragma: no cover

    async def slot(channel: Any) -> None:
        method = channel.stream_unary("/ruma.v1.Ruma/Evaluate", request_serializer=None, response_deserializer=None)
        while not stop.is_set():
            try:
                await method(never(), timeout=120, metadata=metadata)
                ended["OK"] += 1
            except grpc.aio.AioRpcError as error:
                ended[error.code().name] += 1
                if error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    ended[f"refused: {error.details()[:48]}"] += 1
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(stop.wait(), pause)

    tasks = [asyncio.ensure_future(slot(channels[i % connections])) for i in range(connections * streams)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.sleep(0.5)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
    return dict(ended)


def silent_flood(address: str, connections: int, streams: int, seconds: float, conn: Any, pause: float = 1.0,
                 metadata: Sequence[tuple[str, str]] | None = None, nice: int = 10) -> None:
    """Hold ``connections × streams`` silent calls on ``address`` for ``seconds`` (see the module
    doc) and send how they ended through ``conn``. ``nice``: the flood's own priority (on a test
    machine of two cores its own work would otherwise be counted as the server's)."""
    with contextlib.suppress(OSError):
        os.nice(nice)
    conn.send(asyncio.run(_flood(address, connections, streams, seconds, pause, metadata)))


class Flood:
    """``processes`` processes each running ``silent_flood``; ``ended()`` sums how their calls ended."""

    def __init__(self, address: str, processes: int, connections: int, streams: int, seconds: float,
                 **kwargs: Any) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes, self.processes = [], []
        for _ in range(processes):
            parent, child = context.Pipe()
            process = context.Process(target=silent_flood, args=(address, connections, streams, seconds, child),
                                      kwargs=kwargs, daemon=True)
            process.start()
            self.pipes.append(parent)
            self.processes.append(process)

    def ended(self, within: float = 120.0) -> dict[str, int]:
        """How every call ended (waits for the processes)."""
        total: collections.Counter[str] = collections.Counter()
        for pipe, process in zip(self.pipes, self.processes):
            if pipe.poll(within):
                total.update(pipe.recv())
            process.join(10)
            if process.is_alive():
                process.kill()
        return dict(total)
