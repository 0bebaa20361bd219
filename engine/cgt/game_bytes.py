"""Canonical forms as bytes between processes and machines: ``pack_games`` and ``unpack_games``.

What a sweep's workers send each other and the driver (``ruma.engine.families.packets``, over
Ray or local processes) when their values are canonical forms. The format, ``RGN1``:

* the magic ``b"RGN1"``;
* a varint: the number of nodes ``n``;
* nodes ``0 .. n-1``, each after its options: a varint count of Left options, one of Right
  options, then one varint per option (Left's, then Right's): ``i - j`` for node ``i`` naming
  node ``j < i``;
* the CRC-32 (``zlib.crc32``) of every byte before it, 4 bytes little-endian.

Varints are unsigned LEB128. Checked on arrival, so that a damaged or forged packet is refused
(``ValueError``) and never becomes a game: the magic, the checksum, every varint and distance, no
byte left over, no option listed twice, and every node in canonical form — its canonical form,
computed on arrival, has exactly its options (so it is the same canonical form on both sides, and
the kernel never holds one twice).

The compiled kernel has the same two operations in C (``_core.kernel.pack_nodes`` and
``unpack_nodes``, engine/native/game_bytes.c), byte for byte; the functions below are the reference,
used with the pure-Python engine and tested against them.
"""

from __future__ import annotations

import zlib
from typing import Callable, Sequence

from ruma.engine.cgt.game import KERNEL, canonical_id, option_ids

__all__ = ["pack_games", "unpack_games", "pack_reference", "unpack_reference"]

MAGIC = b"RGN1"
Options = Callable[[int], tuple[tuple[int, ...], tuple[int, ...]]]


def pack_games(ids: Sequence[int]) -> tuple[bytes, list[int]]:
    """The games ``ids`` and their followers as ``RGN1`` bytes, and the node index of each id."""
    pack = getattr(KERNEL, "pack_nodes", None)
    if pack is not None:
        packed: tuple[bytes, list[int]] = pack(ids)
        return packed
    return pack_reference(ids, option_ids)


def unpack_games(data: bytes) -> list[int]:
    """The game id of each node of ``RGN1`` bytes, checked (``ValueError`` when refused)."""
    unpack = getattr(KERNEL, "unpack_nodes", None)
    if unpack is not None:
        ids: list[int] = unpack(data)
        return ids
    return unpack_reference(data, canonical_id, option_ids)


def _varint(out: bytearray, x: int) -> None:
    while True:
        byte = x & 0x7F
        x >>= 7
        out.append(byte | (0x80 if x else 0))
        if not x:
            return


def pack_reference(ids: Sequence[int], options: Options) -> tuple[bytes, list[int]]:
    """``pack_games`` in Python, on the kernel whose ``option_ids`` is ``options``."""
    index: dict[int, int] = {}
    body = bytearray()
    for root in ids:
        stack = [root]
        while stack:  # depth first: a node once its options are written
            t = stack[-1]
            if t in index:
                stack.pop()
                continue
            lefts, rights = options(t)
            missing = [o for o in lefts + rights if o not in index]
            if missing:
                stack += missing
                continue
            stack.pop()
            _varint(body, len(lefts))
            _varint(body, len(rights))
            for o in lefts + rights:
                _varint(body, len(index) - index[o])
            index[t] = len(index)
    head = bytearray(MAGIC)
    _varint(head, len(index))
    data = bytes(head + body)
    return data + zlib.crc32(data).to_bytes(4, "little"), [index[i] for i in ids]


def _refuse(why: str, node: int) -> ValueError:
    return ValueError(f"a packet of games is refused: {why} (node {node})")


def unpack_reference(data: bytes, canon: Callable[[list[int], list[int]], int], options: Options) -> list[int]:
    """``unpack_games`` in Python, on the kernel whose ``canonical_id`` and ``option_ids`` are
    ``canon`` and ``options``."""
    if len(data) < 9 or data[:4] != MAGIC:
        raise _refuse("not a packet of games", 0)
    body = data[:-4]
    if zlib.crc32(body) != int.from_bytes(data[-4:], "little"):
        raise _refuse("its checksum does not match", 0)
    at = 4

    def varint(node: int, why: str) -> int:
        nonlocal at
        x = shift = 0
        while at < len(body) and shift < 64:
            byte = body[at]
            at += 1
            x |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return x
            shift += 7
        raise _refuse(why, node)

    count = varint(0, "a bad count of nodes")
    if count > len(body):
        raise _refuse("a bad count of nodes", 0)
    ids: list[int] = []
    for i in range(count):
        nl, nr = varint(i, "a bad option count"), varint(i, "a bad option count")
        if nl + nr > len(body) - at:
            raise _refuse("a bad option count", i)
        named = []
        for _ in range(nl + nr):
            back = varint(i, "an option that is not an earlier node")
            if not 1 <= back <= i:
                raise _refuse("an option that is not an earlier node", i)
            named.append(ids[i - back])
        lefts, rights = sorted(set(named[:nl])), sorted(set(named[nl:]))
        if (len(lefts), len(rights)) != (nl, nr):
            raise _refuse("an option listed twice", i)
        game = canon(lefts, rights)
        if options(game) != (tuple(lefts), tuple(rights)):
            raise _refuse("a node not in canonical form", i)
        ids.append(game)
    if at != len(body):
        raise _refuse("bytes after the last node", count)
    return ids
