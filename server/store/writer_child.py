"""The store writer's child process: it writes the batches its parent (``writer.BulkWriter``) sends
— those that queued up together in one transaction — and answers one line a batch, in order.

Run as ``python -c "...writer_child import main..." PATH`` (``python -m
ruma.server.store.writer_child PATH`` does the same); ``docs/store.md``, "Bulk methods", tells the
whole story.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections import ChainMap
from pathlib import Path
from typing import Any, BinaryIO, Callable

from ruma.engine.frame import is_shared, unpack_shared
from ruma.server.store.writer import _HEADER, _IN_FILE, _SPAN, unpack

GROUP = 4
"""Batches the child writes in one transaction when they have queued up (one commit and one
``fsync`` for all: each B-tree page they share is copied and written once). Replaying a cold
evaluation's 16 batches: 1 a transaction 0.91-1.04 s of CPU, 4 0.74-0.83 s; 8 was no better
there and slower on a sweep's batches (1.56 s against 1.17 s: LMDB spills dirty pages)."""


def main(argv: list[str]) -> int:
    """The child: write the batches read from stdin (those that have queued up together, in one
    transaction), answer ``ok`` or ``error ...`` a line each, in order."""
    import gc
    import queue
    import signal

    # A Ctrl-C at a terminal reaches the whole foreground process group, this child too: whether
    # the batches it holds are still wanted is its parent's decision, which ends this child by
    # closing its stdin (the last batch written, answered, and the environment closed).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # No cyclic collector: the child makes short-lived, acyclic objects only (a batch's tuples of
    # bytes, freed by reference counting), and the collector, triggered by their allocations
    # alone, took 7% of its time walking them (py-spy, a cold impartial Atomic Wari evaluation).
    gc.disable()
    out = sys.stdout.buffer
    frames_fd = int(argv[argv.index("--frames-fd") + 1]) if "--frames-fd" in argv else None
    map_size = int(argv[argv.index("--map-size") + 1]) if "--map-size" in argv else 0
    write, close = _open(Path(argv[0]), map_size)
    frames: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    threading.Thread(target=_read_frames, args=(sys.stdin.buffer, frames, frames_fd), daemon=True).start()
    try:
        out.write(b"ready\n")
        out.flush()
        ended = False
        while not ended:
            group = [frames.get()]
            while group[-1] is not None and len(group) < GROUP:
                try:
                    group.append(frames.get_nowait())
                except queue.Empty:
                    break
            batches = [payload for payload in group if payload is not None]
            ended = group[-1] is None
            joined: list[bytes] = []

            def more() -> bytes | None:
                """A frame that came while the group was written (it joins the transaction)."""
                nonlocal ended
                if ended or len(batches) + len(joined) >= GROUP:
                    return None
                try:
                    payload = frames.get_nowait()
                except queue.Empty:
                    return None
                if payload is None:
                    ended = True
                else:
                    joined.append(payload)
                return payload

            if batches:
                answer = _write_group(write, batches, more)
                out.write(answer * (len(batches) + len(joined)))
                out.flush()
        return 0
    finally:
        close()


Write = Callable[[list[bytes], Callable[[], "bytes | None"]], Any]


def _open(path: Path, map_size: int) -> tuple[Write, Callable[[], Any]]:
    """The child's ``write(frames, more)`` (one transaction: the frames, then — with the C writer —
    those that ``more()`` gives after their puts, up to ``GROUP``) and ``close()``: ``store._native.Writer``
    (store/lmdb.c: C on the LMDB py-lmdb bundles) when built, else — or with
    ``RUMA_STORE_WRITER=python`` — the store's own bulk write through py-lmdb. (Never both: LMDB
    allows one environment per file per process.)"""
    native: Any = None
    if os.environ.get("RUMA_STORE_WRITER") != "python":
        try:
            native = importlib.import_module("ruma.server.store._native")
        except ImportError:
            pass
    if native is not None and hasattr(native, "Writer"):
        from ruma.engine import ENGINE_VERSION

        # The names of rulesets new to the store (its first entries of one): imported meanwhile,
        # so the first transaction, which needs them, does not wait ~20 ms for the imports.
        threading.Thread(target=_ruleset_name, args=(0, 0), daemon=True).start()
        writer = native.Writer(str(path), map_size, ENGINE_VERSION.encode(), _ruleset_name)
        return (lambda batches, more: writer.write(batches, more, GROUP)), writer.close
    from ruma.server.store.core import DEFAULT_BATCH_SIZE, DEFAULT_MAP_SIZE, _Core
    from ruma.server.store.games import shared_codes

    core = _Core(path, False, max(map_size, DEFAULT_MAP_SIZE), DEFAULT_BATCH_SIZE, 0)
    # a sweep's shared frames: its session and the store ids of the nodes interned in it (once committed)
    session: dict[str, Any] = {"id": None, "ids": {}}

    def write(batches: list[bytes], more: Callable[[], bytes | None]) -> None:
        interned: dict[int, int] = {}  # (this transaction's)
        current, base = session["id"], session["ids"]

        def work(txn: Any) -> None:  # (run again when the map is grown)
            nonlocal current, base
            interned.clear()
            current, base = session["id"], session["ids"]
            for payload in batches:
                if not is_shared(payload):
                    core.write_codes(txn, *unpack(payload))
                    continue
                number, nodes, frame = unpack_shared(payload)
                if number != current:  # a new sweep (or a new table): the last one's ids are no use
                    current, base = number, {}
                    interned.clear()
                keys, codes, made = shared_codes(txn, core.dbs, core.max_key, core.path, nodes, frame,
                                                 ChainMap(interned, base))
                interned.update(made)
                core.write_codes(txn, keys, codes)

        core._write(work)
        if current != session["id"]:
            session["id"], session["ids"] = current, base
        base.update(interned)

    return write, core.close


def _ruleset_name(code: int, version: int) -> bytes:
    """The name recorded in ``meta`` for the ruleset with ``code`` and ``version`` (``""`` if unknown)."""
    from ruma.server.store.core import _ruleset_name as name

    return name(bytes((code, version))).encode()


def _read_frames(inp: BinaryIO, frames: Any, frames_fd: int | None = None) -> None:
    """Put each whole frame read from ``inp`` (or, where its header says so, from the frames file
    ``frames_fd``) on ``frames``, then ``None`` (end of input; a frame read in part — the parent
    died while sending — is dropped: nothing of it is written)."""
    try:
        while True:
            header = inp.read(_HEADER.size)
            if len(header) < _HEADER.size:
                return
            (size,) = _HEADER.unpack(header)
            if size == _IN_FILE and frames_fd is not None:
                span = inp.read(_SPAN.size)
                if len(span) < _SPAN.size:
                    return
                at, size = _SPAN.unpack(span)
                payload = os.pread(frames_fd, size, at)
            else:
                payload = inp.read(size)
            if len(payload) < size:
                return
            frames.put(payload)
    finally:
        frames.put(None)


def _write_group(write: Write, batches: list[bytes], more: Callable[[], bytes | None]) -> bytes:
    """Write the batches (and those ``more`` gives) in one transaction; the answer line for each."""
    try:
        write(batches, more)
        return b"ok\n"
    except Exception as error:  # noqa: BLE001 - reported to the parent, which raises it
        return f"error {type(error).__name__}: {error}".replace("\n", " ").encode() + b"\n"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
