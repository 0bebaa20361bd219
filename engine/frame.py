"""The batch frame: many ``(key, value code)`` pairs as one byte string, the form in which the
engine hands values to a store (``PackedMemo.insert_packed``, a sweep's drains of its shared
table). The engine owns the format; its C writes it (``native/frame.h``, which documents the same
layout for the C of a store), and a store reads it.

Layout, little-endian, for ``n`` entries: the count ``n`` (u32, never ``NOT_A_COUNT``: a store may
mark payloads of its own with that word); the ``n`` key lengths (u16 each); the ``n`` value codes
(u64 each: ``2v`` for the nim value ``v``; odd codes are a store's own — the LMDB store's ``2s + 1``
names its game with store id ``s``); then the ``n`` whole keys, one after another, and nothing
after. ``pack_frame`` and ``unpack_frame`` are the reference in Python.

A *shared frame* (``pack_shared``) carries a partizan sweep's values as the ids of its table of
canonical forms in shared memory (``SharedGames``): ``NOT_A_COUNT``, a session (one number per
table: an id means a node only within it), the count of u32 words of the nodes the values need
that were not given before in that session (``SharedGames.export``: ``[shared id][nl][nr][the
options' shared ids]`` each, followers first), those words, then a batch frame whose codes ``2s``
name shared ids ``s``. A store interns the nodes into games of its own and stores their ids.

A *run* is a frame (or a shared frame) in a file of its own, written durably (``write_run``:
``RUN_MAGIC``, the CRC-32 of the frame, the frame; a temporary file flushed to disk, renamed, its
folder flushed): how a sweep's processes hand their values to a store that merges them later
(``Store.runs_folder``). The shared frames of one process's runs name, together and in the order
written, every node their values need.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from array import array
from pathlib import Path
from typing import Sequence

__all__ = ["NOT_A_COUNT", "RUN_MAGIC", "SHARED_FRAME", "frame_codes", "frame_count", "frame_lengths", "is_shared",
           "pack_frame", "pack_shared", "payload_count", "read_run", "read_run_view", "unpack_frame", "unpack_shared",
           "write_run"]

_COUNT = struct.Struct("<I")
#: the one first word a frame never has (no batch has that many entries)
NOT_A_COUNT = 0xFFFFFFFF


def pack_frame(keys: Sequence[bytes], codes: Sequence[int]) -> bytes:
    """The frame of ``keys`` (each shorter than 65,536 bytes) and their value codes."""
    lengths, numbers = array("H", map(len, keys)), array("Q", codes)
    if sys.byteorder != "little":
        lengths.byteswap()
        numbers.byteswap()
    return b"".join((_COUNT.pack(len(keys)), lengths.tobytes(), numbers.tobytes(), *keys))


def unpack_frame(frame: bytes) -> tuple[list[bytes], list[int]]:
    """``pack_frame``'s keys and codes again; ``ValueError`` for bytes that are no frame."""
    (n,) = _COUNT.unpack_from(frame)
    lengths = array("H")
    lengths.frombytes(frame_lengths(frame, n))
    values = array("Q")
    values.frombytes(frame_codes(frame, n))
    if sys.byteorder != "little":
        lengths.byteswap()
        values.byteswap()
    at = 4 + 10 * n
    keys: list[bytes] = []
    append = keys.append
    for length in lengths:
        append(frame[at:at + length])
        at += length
    if at != len(frame):
        raise ValueError(f"a batch of {n} keys should be {at} bytes, not {len(frame)}")
    return keys, values.tolist()


def frame_count(frame: bytes | memoryview) -> int:
    """The count word of a frame (its first four bytes)."""
    return int.from_bytes(frame[:4], "little")


def frame_lengths(frame: bytes | memoryview, n: int) -> memoryview:
    """The bytes of a frame's ``n`` key lengths (u16 each, little-endian)."""
    return memoryview(frame)[4:4 + 2 * n]


def frame_codes(frame: bytes | memoryview, n: int) -> memoryview:
    """The bytes of a frame's ``n`` value codes (u64 each, little-endian)."""
    return memoryview(frame)[4 + 2 * n:4 + 10 * n]


#: the first word of a *shared frame* (where a batch frame's count would be: the word no frame has)
SHARED_FRAME = NOT_A_COUNT
_SHARED_HEAD = struct.Struct("<IQI")  # SHARED_FRAME, the session, the words of nodes


def pack_shared(session: int, nodes: bytes, frame: bytes) -> bytes:
    """The shared frame (module docstring) of ``frame``, whose codes ``2s`` name the nodes with
    shared id ``s`` of a sweep's ``SharedGames`` table, after ``nodes`` (``SharedGames.export``'s
    bytes: those its values need that were not given before in ``session``)."""
    return _SHARED_HEAD.pack(SHARED_FRAME, session, len(nodes) // 4) + nodes + frame


def is_shared(payload: bytes | memoryview) -> bool:
    """Whether ``payload`` is a shared frame (``pack_shared``) rather than a batch frame."""
    return len(payload) >= 4 and frame_count(payload) == SHARED_FRAME


def unpack_shared(payload: bytes | memoryview) -> tuple[int, memoryview, bytes | memoryview]:
    """``pack_shared``'s session, nodes and inner frame; ``ValueError`` where it is cut short."""
    if len(payload) < _SHARED_HEAD.size:
        raise ValueError(f"a shared frame of {len(payload)} bytes is cut short")
    _, session, words = _SHARED_HEAD.unpack_from(payload)
    end = _SHARED_HEAD.size + 4 * words
    if end > len(payload):
        raise ValueError(f"a shared frame of {len(payload)} bytes cannot hold {words} words of nodes")
    return session, memoryview(payload)[_SHARED_HEAD.size:end], payload[end:]


def payload_count(payload: bytes | memoryview) -> int:
    """The entries of a batch frame or of a shared frame's inner frame."""
    return frame_count(unpack_shared(payload)[2]) if is_shared(payload) else frame_count(payload)


#: the first bytes of a run's file (``write_run``)
RUN_MAGIC = b"RUMARUN1"
_RUN_HEAD = len(RUN_MAGIC) + 4


def write_run(path: Path, frame: bytes) -> None:
    """Write ``frame`` as the run ``path`` (its name should end in ``.run``), durably: once this
    returns, the file is whole on disk under that name (a kill before leaves at most a ``.tmp``)."""
    temporary = path.with_suffix(".tmp")
    with open(temporary, "wb") as out:
        out.write(RUN_MAGIC + zlib.crc32(frame).to_bytes(4, "little"))
        out.write(frame)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def read_run(path: Path) -> bytes:
    """The frame of the run at ``path``; ``ValueError`` where it is not a whole run."""
    return bytes(read_run_view(path))


def read_run_view(path: Path) -> memoryview:
    """``read_run`` as a view of the file's bytes (no copy of the frame: a merge of many large
    runs reads them so)."""
    data = path.read_bytes()
    frame = memoryview(data)[_RUN_HEAD:]
    if data[:len(RUN_MAGIC)] != RUN_MAGIC or int.from_bytes(data[len(RUN_MAGIC):_RUN_HEAD], "little") != zlib.crc32(frame):
        raise ValueError(f"{str(path)!r} is not a whole run (its head or checksum is wrong)")
    return frame
