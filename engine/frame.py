"""The batch frame: many ``(key, value code)`` pairs as one byte string, the form in which the
engine hands values to a store (``PackedMemo.insert_packed``, a sweep's drains of its shared
table). The engine owns the format; its C writes it (``native/frame.h``, which documents the same
layout for the C of a store), and a store reads it.

Layout, little-endian, for ``n`` entries: the count ``n`` (u32, never ``NOT_A_COUNT``: a store may
mark payloads of its own with that word); the ``n`` key lengths (u16 each); the ``n`` value codes
(u64 each: ``2v`` for the nim value ``v``; odd codes are a store's own — the LMDB store's ``2s + 1``
names its game with store id ``s``); then the ``n`` whole keys, one after another, and nothing
after. ``pack_frame`` and ``unpack_frame`` are the reference in Python.

A *run* is a frame in a file of its own, written durably (``write_run``: ``RUN_MAGIC``, the CRC-32
of the frame, the frame; a temporary file flushed to disk, renamed, its folder flushed): how a
sweep's processes hand their values to a store that merges them later (``Store.runs_folder``).
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from array import array
from pathlib import Path
from typing import Sequence

__all__ = ["NOT_A_COUNT", "RUN_MAGIC", "frame_codes", "frame_count", "frame_lengths", "pack_frame", "read_run",
           "read_run_view", "unpack_frame", "write_run"]

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
