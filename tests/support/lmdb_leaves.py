"""A small reader of LMDB pages for the store's fault tests, written apart from
``ruma.server.store.page_file`` so that it can judge what ``ruma store repair`` keeps.

``tree_pages(clean)`` walks the trees of an undamaged ``data.mdb`` (meta page, main tree, each named
table's tree through its branch pages) and returns each table's pages with their children (none
for a leaf); ``sound_records(damaged, leaves)`` reads the given leaf pages of a damaged copy of the
file — each page's node offsets (as many as its header's ``lower`` says), each node's key and data
— and returns every record whose CRC32C seal passes. Nothing is checked but the bounds of the page
and the seal; a page whose header is damaged is read all the same (its place in the clean tree
says it is a leaf). ``free_list(clean)`` says where the free list's page numbers lie in the file.
The layout is LMDB 0.9's, little-endian, 64-bit, 4096-byte pages. ``swept(store, n)`` makes the
stores the tests damage, and ``tables(store)`` is the reference a damaged store is compared with:
the clean store's records, read by LMDB itself.
"""

from __future__ import annotations

import struct
from pathlib import Path

import google_crc32c
import lmdb

PSIZE = 4096
_P_BRANCH, _P_LEAF = 0x01, 0x02
_F_BIGDATA, _F_SUBDATA = 0x01, 0x02


def swept(path: Path, partizan: int) -> dict[str, dict[bytes, bytes]]:
    """Sweep impartial Sowing of at most 11 seeds and partizan Sowing of at most ``partizan`` (whose
    values are games) into a new store in ``path``; returns its records (``tables``)."""
    from ruma.client.sweep.driver import sweep_store
    from ruma.engine.families.classes import Family

    sweep_store(Family.of("impartial-sowing", (0, 11)), str(path), workers=1)
    sweep_store(Family.of("sowing", (0, partizan)), str(path), workers=1)
    return tables(path)


def tables(path: Path) -> dict[str, dict[bytes, bytes]]:
    """Every record of the games and positions tables of the store in ``path``, read by LMDB."""
    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=8)
    try:
        with env.begin() as txn:
            return {name: dict(txn.cursor(db=env.open_db(name.encode(), txn=txn, create=False)))
                    for name in ("games", "positions")}
    finally:
        env.close()


def nodes(page: bytes) -> list[tuple[bytes, int, int, int]]:
    """``(key, lo | hi << 16, flags, offset of its data)`` of each node of ``page`` that lies in it."""
    (lower,) = struct.unpack_from("<H", page, 12)
    out = []
    for i in range(max(0, min(lower, PSIZE) - 16) // 2):
        (offset,) = struct.unpack_from("<H", page, 16 + 2 * i)
        if offset < 16 or offset + 8 > PSIZE:
            continue
        lo, hi, flags, ksize = struct.unpack_from("<HHHH", page, offset)
        if offset + 8 + ksize <= PSIZE:
            out.append((page[offset + 8:offset + 8 + ksize], lo | hi << 16, flags, offset + 8 + ksize))
    return out


def _page(raw: bytes, pgno: int) -> bytes:
    return raw[pgno * PSIZE:(pgno + 1) * PSIZE]


def _roots(raw: bytes) -> tuple[int, dict[str, int]]:
    """The free list's root and each named table's, from the newer meta page."""
    meta = _page(raw, max((struct.unpack_from("<Q", _page(raw, i), 16 + 128)[0], i) for i in (0, 1))[1])
    free_root, main_root = struct.unpack_from("<Q", meta, 16 + 24 + 40)[0], struct.unpack_from("<Q", meta, 16 + 72 + 40)[0]
    main = _page(raw, main_root)
    return free_root, {key.decode(): struct.unpack_from("<Q", main, at + 40)[0]
                       for key, _, flags, at in nodes(main) if flags & _F_SUBDATA}


def tree_pages(data: Path) -> dict[str, dict[int, list[int]]]:
    """Each named table's pages in the undamaged file ``data``: page -> its children (leaves: [])."""
    raw = data.read_bytes()
    out: dict[str, dict[int, list[int]]] = {}
    for name, root in _roots(raw)[1].items():
        stack, found = [root] if root < len(raw) // PSIZE else [], {}  # (an empty table's root: none)
        while stack:
            page = _page(raw, pgno := stack.pop())
            (kind,) = struct.unpack_from("<H", page, 10)
            found[pgno] = [size | flags << 32 for _, size, flags, _ in nodes(page)] if kind & _P_BRANCH else []
            stack += found[pgno]
        out[name] = found
    return out


def leaves(data: Path) -> dict[str, list[int]]:
    """The leaf pages each named table's tree reaches in the undamaged file ``data``."""
    return {name: sorted(p for p, children in pages.items() if not children) for name, pages in tree_pages(data).items()}


def free_list(data: Path) -> list[tuple[int, int]]:
    """``(byte offset in the file, page number)`` of each page number the free list of the undamaged
    file ``data`` holds (its root a leaf, each record's list on overflow pages or inline)."""
    raw = data.read_bytes()
    root = _roots(raw)[0]
    out = []
    for _, _, flags, at in nodes(_page(raw, root)):
        start = (struct.unpack_from("<Q", _page(raw, root), at)[0] * PSIZE + 16 if flags & _F_BIGDATA
                 else root * PSIZE + at)
        (count,) = struct.unpack_from("<Q", raw, start)
        out += [(start + 8 * (i + 1), struct.unpack_from("<Q", raw, start + 8 * (i + 1))[0]) for i in range(count)]
    return out


def sound_records(data: Path, pages: dict[str, list[int]]) -> dict[str, dict[bytes, bytes]]:
    """Every record of the leaf ``pages`` of ``data`` whose seal passes, per table."""
    raw = data.read_bytes()
    found: dict[str, dict[bytes, bytes]] = {}
    for name, numbers in pages.items():
        table = found.setdefault(name, {})
        for pgno in numbers:
            page = _page(raw, pgno)
            for key, size, flags, at in nodes(page) if len(page) == PSIZE else ():
                if flags & _F_BIGDATA or at + size > PSIZE or size < 4:
                    continue
                record = page[at:at + size]
                if google_crc32c.value(key + record[:-4]).to_bytes(4, "little") == record[-4:]:
                    table[key] = record
    return found
