"""A partizan sweep's shared frames made the store's own: their nodes interned into its games.

A partizan sweep's values are ids of its table of canonical forms in shared memory, meaningful
only within that table (``ruma.engine.frame.pack_shared``). ``SharedInterner`` interns the nodes a
shared frame carries into the store's ``games`` and ``game_index`` — the store's writer code in C
(``_native.Writer``: interning.c, one transaction, committed) — and gives the frame back with the
store's own codes (``2t + 1`` for store id ``t``, ``Writer.translate``), ready to be merged into
the dense rewrite or stored like any batch. It keeps the session's ids from one frame to the next,
so a process's frames, in the order written, need carry each node once.

A sweep's worker interns its own drains so (``LmdbStore.shared_interner``: the interning, which
grows with the family, then runs on every worker at once, under LMDB's write lock), and the dense
rewrite the runs that still carry nodes (``store.runs.intern_runs``). This module imports nothing
of the store but its C module, so a worker that unpickles the factory pays for no more.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ruma.engine.frame import pack_frame, pack_shared, unpack_shared

_EMPTY = pack_frame([], [])
_MAP_SIZE = 64 << 20  # (store.core.DEFAULT_MAP_SIZE: the writer adopts a larger map, and grows a full one)


class SharedInterner:
    """Shared frames of the store in ``directory`` interned and translated (module docstring). No
    other environment of the store may be open in this process (LMDB allows one a process)."""

    def __init__(self, directory: str | os.PathLike[str], native: Any) -> None:
        from ruma.engine import ENGINE_VERSION

        data = Path(directory) / "data.mdb"
        size = data.stat().st_size if data.exists() else 0
        self._writer = native.Writer(str(directory), max(_MAP_SIZE, size), ENGINE_VERSION.encode(), _no_name)

    def __call__(self, payload: bytes | memoryview) -> bytes:
        """The batch frame of shared frame ``payload`` with the store's codes, its nodes interned
        and committed first (``WriteError`` for a value naming a node never given in its session)."""
        session, nodes, frame = unpack_shared(payload)
        self._writer.write([pack_shared(session, bytes(nodes), _EMPTY)])  # (the nodes alone: no position)
        return bytes(self._writer.translate(frame))

    def close(self) -> None:
        """Close the store's environment."""
        self._writer.close()


def shared_interner(directory: str | os.PathLike[str]) -> SharedInterner | None:
    """A ``SharedInterner`` of the store in ``directory``, or ``None`` where the store's C module is
    not built or ``RUMA_STORE_WRITER=python`` asks for the Python writer (shared frames are then
    interned through py-lmdb where they are stored or merged)."""
    if os.environ.get("RUMA_STORE_WRITER") == "python":
        return None
    try:
        from ruma.server.store import _native
    except ImportError:
        return None
    if not hasattr(_native, "Writer"):
        return None
    return SharedInterner(directory, _native)


def _no_name(code: int, version: int) -> bytes:
    """(The writer's ``name_of``, asked only when positions of a ruleset new to the store are
    written: never by an interner, which writes games alone.)"""
    raise RuntimeError(f"an interner wrote positions of ruleset {code}/{version}")
