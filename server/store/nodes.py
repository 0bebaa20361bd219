"""Where the nodes of an LMDB leaf page lie, on a sound page and on a damaged one (``store.page_file``).

LMDB keeps a leaf page's nodes packed at its end: the node table (from byte 16 to ``lower``)
holds one 2-byte offset a node, in key order, and the nodes themselves fill the *node area* from
``upper`` to the end of the page exactly, each ``NODE`` bytes of header, its key and its data (or,
with ``F_BIGDATA``, an 8-byte overflow page number), rounded up to an even size. Between table and
area lie stale bytes: LMDB reuses page buffers without clearing them, so they may hold older
nodes of any page, whose records pass their checksums.

``fills`` tells a page whose table and header agree with its area (every sound page); ``salvage``
finds the nodes of one whose header, table or node sizes are damaged without reading the stale
bytes between: the area starts where ``upper`` says when some entry of the table points there (the
lowest node) or stepping from node to node from there lands on the lowest node the table names,
else at that lowest node; the table's entries that point into the area are its nodes, and stepping
from node to node through the area finds those whose entry is damaged (or lies past a damaged
``lower``).
"""

from __future__ import annotations

import struct

HEADER = 16
NODE = 8
F_BIGDATA = 0x01
_N = struct.Struct("<HHHH")  # lo, hi, flags, ksize


def extent(page: bytes, offset: int) -> int:
    """The bytes the leaf node at ``offset`` takes (as LMDB's ``mdb_node_add`` counts them)."""
    lo, hi, flags, ksize = _N.unpack_from(page, offset)
    return int(NODE + ksize + (8 if flags & F_BIGDATA else lo | hi << 16) + 1) & ~1


def fills(page: bytes, n: int) -> bool:
    """Whether the ``n`` nodes the table of leaf ``page`` names tile its node area exactly."""
    (upper,) = struct.unpack_from("<H", page, 14)
    if not n:
        return bool(upper == len(page))
    offsets: list[int] = sorted(struct.unpack_from(f"<{n}H", page, HEADER))
    if offsets[0] != upper or offsets[-1] + NODE > len(page):
        return False
    ends = [offset + extent(page, offset) for offset in offsets]
    return ends[-1] == len(page) and ends[:-1] == offsets[1:]


def _steps(page: bytes, start: int, end: int) -> bool:
    """Whether stepping from node to node from ``start`` lands on ``end``."""
    while start < end and start + NODE <= len(page):
        start += extent(page, start)
    return start == end


def salvage(page: bytes) -> tuple[list[int], list[int]]:
    """The node offsets of a damaged leaf ``page`` (see the module docstring): those its table gives
    that point into its node area, and those found only by stepping through the area."""
    psize = len(page)
    lower, upper = struct.unpack_from("<HH", page, 12)
    count = (lower - HEADER) // 2 if HEADER <= lower <= psize and not lower % 2 else (psize - HEADER) // 2
    listed = [(i, offset) for i, (offset,) in enumerate(struct.iter_unpack("<H", page[HEADER:HEADER + 2 * count]))
              if not offset % 2 and HEADER + 2 * i + 2 <= offset <= psize - NODE]
    if not any(offset == upper and HEADER + 2 * i < upper for i, offset in listed):
        lowest = psize  # (the table ends below the lowest node it names)
        for i, offset in listed:
            if HEADER + 2 * i >= lowest:
                break
            lowest = min(lowest, offset)
        if upper % 2 or not HEADER < upper < lowest or not _steps(page, upper, lowest):
            upper = lowest  # (``upper`` is damaged; else the entries of the nodes below ``lowest`` are)
    table: list[int] = []
    seen: set[int] = set()
    for i, offset in listed:
        if HEADER + 2 * i < upper <= offset and offset not in seen:
            seen.add(offset)
            table.append(offset)
    stepped: list[int] = []
    frontier = [upper, *(offset + extent(page, offset) for offset in table)]
    while frontier:
        offset = frontier.pop()
        if offset in seen or offset % 2 or not upper <= offset <= psize - NODE:
            continue
        seen.add(offset)
        stepped.append(offset)
        frontier.append(offset + extent(page, offset))
    return table, sorted(stepped)
