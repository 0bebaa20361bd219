"""LMDB's file read page by page, without LMDB: what ``ruma store verify`` and ``repair`` read.

LMDB trusts its file: on a damaged page it may stop the process on an assertion (``IS_LEAF(mp)``
in ``mdb_cursor_next``), and a transaction that met one is unusable afterwards. ``PageFile``
reads ``data.mdb`` with plain reads instead (no mapping: a truncated file is no ``SIGBUS``), checks
every page before it uses it, and turns whatever is wrong into a ``Problem`` while it goes on with
the rest. The layout is that of LMDB 0.9 (``third_party/lmdb/mdb.c``), little-endian, 64-bit:

* a **page** starts with a 16-byte header: its own number (8 bytes), a pad (2), flags (2:
  ``P_BRANCH`` 1, ``P_LEAF`` 2, ``P_OVERFLOW`` 4, ``P_META`` 8), then ``lower`` and ``upper`` (2 each;
  an overflow page has its page count there, 4 bytes). ``(lower - 16) / 2`` node offsets follow,
  each pointing into the page.
* a **node** is ``lo hi flags ksize`` (2 bytes each) then its key; on a leaf page its data follows
  (``lo | hi << 16`` bytes), or with ``F_BIGDATA`` the 8-byte number of the overflow page that holds
  it; on a branch page ``lo | hi << 16 | flags << 32`` is the child's page number, and the key of
  node ``i`` is the least key under child ``i`` (node 0's is empty).
* pages 0 and 1 are **meta pages** (``store.check``): each names the root of the free-page tree
  and of the main tree, whose leaf records (``F_SUBDATA``) are the named tables' 48-byte ``MDB_db``
  records (root page at offset 40). The store's tables use no ``MDB_DUPSORT`` or integer keys.
* the **free-page tree** maps a transaction id to the pages it freed (an ``MDB_IDL``: a count, then
  that many 8-byte page numbers in descending order; a number out of that order is mended or left
  out, ``_in_order``).

``PageFile.records(table)`` yields a table's records in tree order; a page that cannot be read is
a ``Problem`` and its subtree is *lost*. Then the leaf pages no tree reaches and no free list
names — the orphans of lost subtrees, found by their header's number or flags, either of which
may be damaged — are read, and each whose sound records (``sound``, given by the caller: those
that pass their checksums) all fit one table's lost key ranges and shape is read as that table's.
A leaf page whose header, node table or node sizes are damaged (its nodes do not tile its node
area) has its nodes found in that area (``store.nodes``). So a damaged branch page loses nothing
but itself, and a damaged leaf page only the records whose own bytes are damaged.
"""

from __future__ import annotations

import os
import struct
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

from ruma.server.store import nodes
from ruma.server.store.check import _PAGE_SIZES, _meta
from ruma.server.store.nodes import F_BIGDATA, HEADER, NODE

P_BRANCH, P_LEAF, P_OVERFLOW, P_META = 0x01, 0x02, 0x04, 0x08
_KINDS = P_BRANCH | P_LEAF | P_OVERFLOW | P_META | 0x20 | 0x40  # (0x20 LEAF2, 0x40 SUBP: never in this store)
F_SUBDATA = 0x02
FREE, MAIN = "(free pages)", "(main)"
_P_INVALID = 0xFFFFFFFFFFFFFFFF
_H = struct.Struct("<QHHHH")  # pgno, pad, flags, lower, upper
_N = struct.Struct("<HHHH")  # lo, hi, flags, ksize
_OVERFLOW = struct.Struct("<QHHI")  # pgno, pad, flags, pages
_CACHE_PAGES = 4096
#: pages ``PageFile.get`` keeps parsed (a branch's keys and children, a leaf's records by key)
LOOKUP_PAGES = 4096
Node = tuple[bytes, int, "bytes | None", str]  # a leaf node: key, flags, data (None: unreadable), why not


class Leaf(NamedTuple):
    """The nodes of a leaf page (``PageFile._leaf``)."""

    nodes: list[Node]  # those its node table names
    more: list[Node]  # a damaged page's nodes found by stepping through its node area
    salvaged: bool  # read as a damaged page


def _in_order(ids: tuple[int, ...]) -> list[int]:
    """The page numbers of a free list (an ``MDB_IDL``, sorted in descending order) that keep its
    order — each between its neighbours, or between the next ones — and each other one (a flipped
    bit: it may name a live page, which the tree would then lose) mended when one flipped bit puts
    it back between the nearest of those, else left out."""
    n = len(ids)
    top, bottom = _P_INVALID + 1, -1
    trusted = [(ids[i - 1] if i else top) > ids[i] > (ids[i + 1] if i + 1 < n else bottom)
               or (2 <= i < n - 2 and ids[i - 2] > ids[i] > ids[i + 2]) for i in range(n)]
    kept = []
    for i, pgno in enumerate(ids):
        if trusted[i]:
            kept.append(pgno)
            continue
        above = next((ids[j] for j in range(i - 1, -1, -1) if trusted[j]), top)
        below = next((ids[j] for j in range(i + 1, n) if trusted[j]), bottom)
        mended = [pgno ^ 1 << bit for bit in range(64) if above > pgno ^ 1 << bit > below]
        if len(mended) == 1:
            kept.append(mended[0])
    return kept


class PageError(Exception):
    """A page that is not what its place in the tree says it is."""


class OutOfRangeError(PageError):
    """A page whose keys (``low`` .. ``high``, the least and greatest) lie outside the range its
    branch page gives it."""

    def __init__(self, message: str, low: bytes, high: bytes) -> None:
        super().__init__(message)
        self.low, self.high = low, high


@dataclass
class Problem:
    """One thing that could not be read."""

    table: str
    page: int
    what: str
    key: bytes = b""

    def to_dict(self) -> dict[str, str]:
        """The form of ``verify``'s and ``repair``'s reports."""
        return {"table": self.table, "key": self.key.hex(), "problem": f"page {self.page}: {self.what}"}


@dataclass
class _Table:
    root: int
    lost: list[tuple[bytes, bytes | None]] = field(default_factory=list)  # key ranges [low, high) not reached
    orphans: list[int] = field(default_factory=list)  # orphan leaf pages read as this table's


SoundKeys = Callable[[str, list[tuple[bytes, bytes]]], "list[bytes] | None"]


class PageFile:
    """One snapshot of ``data.mdb``, read page by page (see the module docstring).

    ``txnid``: read the snapshot of that transaction (the meta page that names it; a reader that
    holds it open keeps its pages from reuse), else the newest sound one. ``sound(table,
    records)``: the keys of an orphan leaf's records that pass their checksums when all of those
    are of ``table``'s shape (at least one), else ``None``.
    """

    def __init__(self, path: str | os.PathLike[str], txnid: int | None = None, sound: SoundKeys | None = None) -> None:
        self.path = Path(path)
        self.fd = os.open(self.path, os.O_RDONLY)
        self.problems: list[Problem] = []
        self.sound = sound
        self.cache: dict[int, bytes] = {}
        # ``get``'s pages, parsed: a branch's (least keys, children), a leaf's records by key (the
        # snapshot read does not change under it; cleared when ``LOOKUP_PAGES`` are held)
        self.lookups: dict[int, tuple[list[bytes], list[int]] | dict[bytes, bytes | None]] = {}
        try:
            self._open(txnid)
        except BaseException:
            os.close(self.fd)
            raise

    def close(self) -> None:
        """Close the file."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> "PageFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- meta pages and tables -------------------------------------------------------------------
    def _open(self, txnid: int | None) -> None:
        size = os.fstat(self.fd).st_size
        head = os.pread(self.fd, 2 * max(_PAGE_SIZES), 0)
        first = _meta(head)
        psize = first[0] if first is not None else next(
            (p for p in _PAGE_SIZES if _meta(head[p:2 * p]) is not None), 0)
        if psize not in _PAGE_SIZES:
            raise PageError(f"{str(self.path)!r} has no sound meta page")
        self.psize = psize
        self.file_pages = size // psize
        metas = [(m[2], i, m[1]) for i, m in ((i, _meta(head[i * psize:(i + 1) * psize])) for i in (0, 1))
                 if m is not None]
        for i in (0, 1):
            if _meta(head[i * psize:(i + 1) * psize]) is None:
                self.problems.append(Problem("(meta)", i, "not a valid meta page: the other one is read"))
        if txnid is not None:
            metas = [m for m in metas if m[0] == txnid] or metas
        self.tables: dict[str, _Table] = {}
        self.txnid, self.last_page = max(metas)[0], max(metas)[2]
        for tid, index, last in sorted(metas, reverse=True):
            page = head[index * psize:(index + 1) * psize]
            free_root, main_root = (struct.unpack_from("<Q", page, HEADER + 24 + 48 * d + 40)[0] for d in (0, 1))
            self.txnid, self.last_page = tid, last
            tables = self._named(main_root)
            if tables is not None:
                self.tables = {FREE: _Table(free_root), MAIN: _Table(main_root), **tables}
                break
            self.problems.append(Problem(MAIN, main_root, f"the main tree of transaction {tid} cannot be read"))
        else:  # no table can be found from its root: every leaf is an orphan, told apart by its shape
            self.problems.append(Problem("(free pages)", 0, "the free-page list cannot be read: pages freed by "
                                                            "earlier commits may be read as records"))
        self.blind = not self.tables
        if self.file_pages <= self.last_page:
            self.problems.append(Problem("(file)", self.file_pages, f"the file ends at page {self.file_pages}; "
                                                                   f"its pages go up to {self.last_page}"))
        self._survey()

    def _named(self, root: int) -> dict[str, _Table] | None:
        """The named tables of the main tree at ``root``, or ``None`` when it cannot be read."""
        if root == _P_INVALID:
            return {}
        try:
            leaf = self._leaf(root)
        except PageError:
            return None
        tables = {}
        for key, flags, value, _ in leaf.nodes:
            if flags & F_SUBDATA and isinstance(value, bytes) and len(value) == 48:
                tables[key.decode(errors="replace")] = _Table(struct.unpack_from("<Q", value, 40)[0])
        return tables

    # -- pages -----------------------------------------------------------------------------------
    def page(self, pgno: int) -> bytes:
        """Page ``pgno`` as read from the file (``PageError`` past its end)."""
        hit = self.cache.get(pgno)
        if hit is not None:
            return hit
        if not 2 <= pgno < self.file_pages:
            raise PageError("past the end of the file" if pgno >= self.file_pages else "a meta page's number")
        data = os.pread(self.fd, self.psize, pgno * self.psize)
        if len(data) < self.psize:
            raise PageError("past the end of the file")
        if len(self.cache) >= _CACHE_PAGES:
            self.cache.clear()
        self.cache[pgno] = data
        return data

    def _head(self, pgno: int) -> bytes:
        """The 16-byte header of page ``pgno`` (a read of the header alone when it is not cached)."""
        hit = self.cache.get(pgno)
        if hit is not None:
            return hit
        if not 2 <= pgno < self.file_pages:
            raise PageError("past the end of the file" if pgno >= self.file_pages else "a meta page's number")
        data = os.pread(self.fd, HEADER, pgno * self.psize)
        if len(data) < HEADER:
            raise PageError("past the end of the file")
        return data

    def _check(self, pgno: int, head: bytes, kind: int) -> int:
        """The count of nodes of the page whose header is ``head``, checked to be a page of
        ``kind`` numbered ``pgno``."""
        number, _, flags, lower, upper = _H.unpack_from(head)
        if number != pgno:
            raise PageError(f"its header names page {number}" if number else "it is zeroed or not a page")
        if flags & _KINDS != kind:
            raise PageError(f"flags {flags:#x}, not a {'leaf' if kind == P_LEAF else 'branch'} page")
        if not HEADER <= lower <= upper <= self.psize or (lower - HEADER) % 2:
            raise PageError(f"bounds {lower}..{upper} do not fit a page")
        return int(lower - HEADER) // 2

    def _header(self, pgno: int, kind: int) -> tuple[bytes, int]:
        """The page and its count of nodes, checked to be a page of ``kind`` numbered ``pgno``."""
        page = self.page(pgno)
        return page, self._check(pgno, page, kind)

    def _node(self, page: bytes, i: int, offset: int | None = None) -> tuple[int, int, int, int, int]:
        """Node ``i``'s ``(offset of its key, ksize, lo | hi << 16, flags, hi)``, bounds-checked
        (``offset``: where it is, when not read from the node table; ``i`` is then -1)."""
        if offset is None:
            (offset,) = struct.unpack_from("<H", page, HEADER + 2 * i)
        if offset < HEADER or offset + NODE > self.psize:
            raise PageError(f"node {i} at {offset} lies outside the page")
        lo, hi, flags, ksize = _N.unpack_from(page, offset)
        start = offset + NODE
        if start + ksize > self.psize:
            raise PageError(f"the key of the node at {offset} ({ksize} bytes) runs past the page")
        return start, ksize, lo | hi << 16, flags, hi

    def _leaf(self, pgno: int, salvage: bool = False) -> Leaf:
        """The nodes of leaf page ``pgno``: ``(key, flags, data, problem)`` each — ``data`` is
        ``None`` when the node cannot be read (then ``problem`` says why). ``PageError`` if the
        header is not a leaf's, unless ``salvage`` (an orphan): then, as for a page whose nodes do
        not fill its node area exactly, they are found by ``store.nodes.salvage`` (``Leaf.more``:
        those found only by stepping through the area, which only their checksums can vouch for)."""
        page = self.page(pgno)
        try:
            n = self._check(pgno, page, P_LEAF)
        except PageError:
            if not salvage:
                raise
            n = -1
        if n >= 0 and nodes.fills(page, n):
            return Leaf([self._leaf_node(page, i) for i in range(n)], [], False)
        table, stepped = nodes.salvage(page)
        return Leaf([self._leaf_node(page, -1, offset) for offset in table],
                    [self._leaf_node(page, -1, offset) for offset in stepped], True)

    def _leaf_node(self, page: bytes, i: int, offset: int | None = None) -> Node:
        """Leaf node ``i`` (at ``offset`` when given, else where the node table says): its data
        inline, or on overflow pages with ``F_BIGDATA`` — either is tried when the other cannot be
        read (a flipped flag: the record's checksum tells)."""
        try:
            start, ksize, size, flags, _ = self._node(page, i, offset)
        except PageError as error:
            return b"", 0, None, str(error)
        key = page[start:start + ksize]
        begin = start + ksize
        inline = page[begin:begin + size] if begin + size <= self.psize else None
        if inline is not None and not flags & F_BIGDATA:
            return key, flags, inline, ""
        problem = (f"its data ({size} bytes) runs past the page" if not flags & F_BIGDATA
                   else "its overflow page number runs past the page")
        if begin + 8 <= self.psize:
            try:
                return key, flags, self._overflow(struct.unpack_from("<Q", page, begin)[0], size), ""
            except PageError as error:
                problem = problem if not flags & F_BIGDATA else f"overflow page: {error}"
        return key, flags, inline, "" if inline is not None else problem

    def _overflow(self, pgno: int, size: int) -> bytes:
        """``size`` bytes of data held on the overflow pages from ``pgno``."""
        page = self.page(pgno)
        number, _, flags, pages = _OVERFLOW.unpack_from(page)
        if number != pgno or flags & _KINDS != P_OVERFLOW:
            raise PageError(f"page {pgno} is not an overflow page")
        if HEADER + size > pages * self.psize or pgno + pages > self.file_pages:
            raise PageError(f"{size} bytes do not fit its {pages} pages")
        self.overflow_pages.update(range(pgno, pgno + pages))
        data = page[HEADER:] + os.pread(self.fd, (pages - 1) * self.psize, (pgno + 1) * self.psize)
        return data[:size]

    def _branch(self, pgno: int) -> list[tuple[bytes, int]]:
        """``(least key, child page)`` of each node of branch page ``pgno``."""
        page, n = self._header(pgno, P_BRANCH)
        out = []
        for i in range(n):
            start, ksize, lohi, _, _ = self._node(page, i)
            (flags,) = struct.unpack_from("<H", page, start - 4)
            out.append((page[start:start + ksize] if i else b"", lohi | flags << 32))
        return out

    # -- walking ---------------------------------------------------------------------------------
    def _survey(self) -> None:
        """Walk every tree's branch pages: the leaf pages they reach, the key ranges they lose; then
        the free pages, and the orphan leaves of the tables that lost a subtree."""
        self.overflow_pages: set[int] = set()
        self.leaves: dict[str, list[int]] = {}
        self.branches: dict[str, list[int]] = {}  # the branch pages read, per table
        self.ranges: dict[int, tuple[str, bytes, bytes | None]] = {}  # tree page -> (table, key range)
        reached: set[int] = set()
        for name, table in self.tables.items():
            self.leaves[name] = self._reach(name, table, reached)
        free: set[int] = set()
        if FREE in self.tables:
            for _, value in self.records(FREE):
                if len(value) >= 8:
                    (count,) = struct.unpack_from("<Q", value)
                    count = min(count, len(value) // 8 - 1)
                    free.update(_in_order(struct.unpack_from(f"<{count}Q", value, 8)))
        self._disown_freed(free)
        if any(t.lost for t in self.tables.values()) or not self.tables:
            self._adopt_orphans(reached | free | self.overflow_pages)

    def _reach(self, name: str, table: _Table, reached: set[int]) -> list[int]:
        leaves: list[int] = []
        if table.root == _P_INVALID:
            return leaves
        # (page, its key range, depth, the range of it and its two neighbours)
        stack: list[tuple[int, bytes, bytes | None, int, bytes, bytes | None]] = [(table.root, b"", None, 0, b"", None)]
        while stack:
            pgno, low, high, depth, wide_low, wide_high = stack.pop()
            if pgno in reached:
                table.lost.append((low, high))
                self.problems.append(Problem(name, pgno, "reached a second time (a damaged branch page); its "
                                                         f"keys from {low.hex() or 'the first'} are read from "
                                                         "orphan pages", low))
                continue
            reached.add(pgno)
            try:
                head = self._head(pgno)
                if _H.unpack_from(head)[2] & _KINDS == P_LEAF:
                    self._check(pgno, head, P_LEAF)
                    if name != FREE:  # (its keys are integers, not ordered as bytes)
                        self._within(pgno, P_LEAF, low, high)
                    leaves.append(pgno)
                    self.ranges[pgno] = (name, low, high)
                    continue
                if depth > 32:
                    raise PageError("the tree is deeper than any LMDB tree")
                children = self._branch(pgno)
                if name != FREE:
                    self._within(pgno, P_BRANCH, low, high, [key for key, _ in children[1:]])
                self.branches.setdefault(name, []).append(pgno)
                self.ranges[pgno] = (name, low, high)
            except PageError as error:
                reached.discard(pgno)  # (a page the pointer should not have named: another tree may own it)
                if isinstance(error, OutOfRangeError):
                    # either the pointer is wrong (the page is another range's, and reached there) or
                    # the branch's keys are (a flipped separator: the page is this range's, and only
                    # an orphan now, its true range within its neighbours'): the page's own keys and
                    # its neighbours' ranges are lost too, so its leaves can be adopted
                    low = min(wide_low, error.low)
                    high = None if wide_high is None else max(wide_high, error.high + b"\x00")
                table.lost.append((low, high))
                self.problems.append(Problem(name, pgno, f"cannot be read ({error}); its keys from "
                                                         f"{low.hex() or 'the first'} are read from orphan pages",
                                             low))
                continue
            # child i's range: lows[i + 1] .. highs[i]; with its neighbours': lows[i] .. highs[i + 1]
            separators = [key for key, _ in children[1:]]
            lows, highs = [wide_low, low, *separators], [*separators, high, wide_high]
            for i in range(len(children) - 1, -1, -1):
                stack.append((children[i][1], lows[i + 1], highs[i], depth + 1, lows[i], highs[i + 1]))
        return leaves

    def _within(self, pgno: int, kind: int, low: bytes, high: bytes | None, keys: list[bytes] | None = None) -> None:
        """``PageError`` unless the keys of page ``pgno`` lie in ``[low, high)``, the range its branch
        page gives it: a flipped child pointer names a page of some other range (or a freed copy)."""
        if keys is None:
            page, n = self._header(pgno, kind)
            keys = []
            for i in {0, n - 1} if n else ():
                start, ksize, _, _, _ = self._node(page, i)
                keys.append(page[start:start + ksize])
        if keys and (min(keys) < low or (high is not None and max(keys) >= high)):
            raise OutOfRangeError(f"its keys lie outside the range {low.hex() or 'the first'}.."
                                  f"{high.hex() if high is not None else 'the last'} its branch page gives it",
                                  min(keys), max(keys))

    def _disown_freed(self, free: set[int]) -> None:
        """Tree pages the free list names were reached through a damaged pointer (LMDB never frees a
        live page): their ranges are lost, read from orphan pages."""
        for pgno in sorted(free & self.ranges.keys()):
            name, low, high = self.ranges.pop(pgno)
            table = self.tables[name]
            table.lost.append((low, high))
            for pages in (self.leaves.get(name, []), self.branches.get(name, [])):
                if pgno in pages:
                    pages.remove(pgno)
            self.problems.append(Problem(name, pgno, f"a page the free list names, reached from the tree; its "
                                                     f"keys from {low.hex() or 'the first'} are read from orphan "
                                                     f"pages", low))

    def _adopt_orphans(self, known: set[int]) -> None:
        """Read the leaf pages neither tree nor free list names, and give each to the one table
        whose lost key ranges and shape its records fit (else it is a problem)."""
        end = min(self.file_pages, self.last_page + 1)
        pgno = 2
        while pgno < end:
            if pgno in known:
                pgno += 1
                continue
            try:
                head = self._head(pgno)
            except PageError:
                break
            number, _, flags, _, _ = _H.unpack_from(head)
            kind = flags & _KINDS
            # a leaf's header with one field damaged still has the other: its number or its flags
            if kind == P_LEAF or (number == pgno and kind not in (P_BRANCH, P_OVERFLOW, P_META)):
                self._adopt(pgno)
            pgno += 1

    def _adopt(self, pgno: int) -> None:
        """Give orphan leaf ``pgno`` to the one table whose lost key ranges hold the keys of its
        sound records and whose shape they have (``sound``; blind, by shape alone): a damaged
        header or record costs only what it damaged."""
        try:
            leaf = self._leaf(pgno, salvage=True)
        except PageError:
            return
        records = [(key, value) for key, _, value, _ in leaf.nodes + leaf.more if value is not None]
        if not records:
            return
        names = [name for name, table in self.tables.items() if table.lost and name not in (FREE, MAIN)]
        if self.blind:
            names = ["meta", "games", "game_index", "positions", "unverified"]
        fits = []
        for name in names:
            keys = [key for key, _ in records] if self.sound is None else self.sound(name, records)
            if keys and (self.blind or any(min(keys) >= a and (b is None or max(keys) < b)
                                           for a, b in self.tables[name].lost)):
                fits.append(name)
        if len(fits) == 1:
            self.tables.setdefault(fits[0], _Table(_P_INVALID)).orphans.append(pgno)
        else:
            self.problems.append(Problem("(orphan)", pgno, f"a leaf page no tree reaches, of "
                                                           f"{'no table' if not fits else 'tables ' + ', '.join(fits)}"))

    def records(self, table: str) -> Iterator[tuple[bytes, bytes]]:
        """Every readable record of ``table``: its tree's leaves in order, then its orphan pages'
        records (problems are added to ``problems``)."""
        if table not in self.tables:
            return
        info = self.tables[table]
        for pgno in [*self.leaves.get(table, ()), *info.orphans]:
            try:
                leaf = self._leaf(pgno, salvage=True)  # (a tree's leaves passed their header checks)
            except PageError as error:
                self.problems.append(Problem(table, pgno, f"cannot be read ({error})"))
                continue
            if leaf.salvaged:
                self.problems.append(Problem(table, pgno, "its header, node table or node sizes are damaged: its "
                                                          "nodes are found in its node area"))
            for key, _, value, problem in leaf.nodes:
                if value is None:
                    self.problems.append(Problem(table, pgno, f"a record cannot be read: {problem}", key))
                else:
                    yield key, value  # (node flags other than F_BIGDATA are no part of a record: its seal tells)
            for key, _, value, _ in leaf.more:
                if value is not None and self.sound is not None and self.sound(table, [(key, value)]):
                    yield key, value

    def get(self, table: str, key: bytes) -> bytes | None:
        """The value of ``key`` in ``table`` by the tree's own search (``None`` where its page is lost
        or it is not held)."""
        info = self.tables.get(table)
        if info is None or info.root == _P_INVALID:
            return None
        pgno = info.root
        try:
            for _ in range(33):
                parsed = self.lookups.get(pgno)
                if parsed is None:
                    if len(self.lookups) >= LOOKUP_PAGES:
                        self.lookups.clear()
                    if _H.unpack_from(self._head(pgno))[2] & _KINDS == P_LEAF:
                        records: dict[bytes, bytes | None] = {}
                        for k, _, value, _ in self._leaf(pgno).nodes:
                            records.setdefault(k, value)
                        parsed = records
                    else:
                        children = self._branch(pgno)
                        parsed = ([k for k, _ in children], [child for _, child in children])
                    self.lookups[pgno] = parsed
                if isinstance(parsed, dict):
                    return parsed.get(key)
                keys, pages = parsed
                pgno = pages[max(0, bisect_right(keys, key, 1) - 1)]
        except PageError:
            return None
        return None

    def sample_leaves(self, table: str, n: int, pick: Callable[[int], int]) -> list[int]:
        """About ``n`` leaf pages of ``table`` (``pick(k)``: a random index below ``k``)."""
        leaves = self.leaves.get(table, [])
        return [leaves[pick(len(leaves))] for _ in range(n)] if leaves else []

    def page_records(self, table: str, pgno: int) -> list[tuple[bytes, bytes]]:
        """The readable records of one leaf page of ``table``."""
        try:
            return [(k, v) for k, _, v, _ in self._leaf(pgno, salvage=True).nodes if v is not None]
        except PageError as error:
            self.problems.append(Problem(table, pgno, f"cannot be read ({error})"))
            return []

    def leaf_fill(self) -> float:
        """How full the leaf pages the trees reach are, together (1.0: every byte used; from their
        headers alone)."""
        used = room = 0
        for leaves in self.leaves.values():
            for pgno in leaves:
                _, _, _, lower, upper = _H.unpack_from(self._head(pgno))
                used += self.psize - HEADER - max(0, upper - lower)
                room += self.psize - HEADER
        return used / room if room else 1.0

    def tree_pages(self) -> int:
        """Leaf pages reached from the trees."""
        return sum(len(v) for v in self.leaves.values())

