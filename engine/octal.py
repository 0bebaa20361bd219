"""Nim sequences of octal games (and of Grundy's game), computed fast and exactly.

An *octal code* ``d0.d1d2d3...`` (Winning Ways, ch. 4) describes a heap game: a move takes ``k``
beans from one heap (``k`` is the position of the digit after the point) and may then leave

* no heap at all  if bit 1 of ``d_k`` is set (the heap had exactly ``k`` beans),
* one heap        if bit 2 is set (the rest stays one non-empty heap),
* two heaps       if bit 4 is set (the rest is split into two non-empty heaps).

The digit before the point is the case ``k = 0``: only ``0`` and ``4`` ("split a heap into two
non-empty heaps without taking anything") are meaningful, since leaving one heap of the same size
would be a pass and leaving none is impossible, so ``1``, ``2``, ``3``, ``5``, ``6``, ``7`` are
rejected. ``0.37`` (also written ``.37`` or ``·37``) is the game of Erickson's sparse Atomic Wari,
``0.07`` Dawson's Kayles, ``0.77`` Kayles, ``4.07`` Dawson's Kayles with free splitting.

Values: ``G(n) = mex`` of the options' values, the value of two heaps being the xor of theirs.
``quadratic_values`` is the plain definition (every split of every heap: Θ(n²) work for n
values). ``HeapGame.values`` uses the *rare/common split* (docs/heaps.md): for a
bit mask ``M`` call a value *common* when ``popcount(v & M)`` is odd and *rare* otherwise. The xor
of two commons is rare, so a common value can only be reached through a pair that involves a rare
heap; those heaps are few, and scanning them gives the smallest unreachable common value ``c``.
``G(n) = c`` unless some rare value below ``c`` is unreachable, which is checked by scanning all
pairs in growing vectorised chunks until every such rare value is seen (almost always early).
The argument holds for *every* mask, so the result is exact whichever mask is used; the mask is
only chosen (from the values computed so far) to make the rare heaps few. Two C-speed devices do
the scanning: ``_block`` values 256 heaps at a time, reading the pairs of the older rare heaps from
byte planes with ``bytes.translate`` (see its docstring), and ``_cover`` xors chunks of pairs in
one-byte lanes of big ints and reads the reached values off with ``bytes.translate``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

from ruma.engine.errors import NotationError

__all__ = ["HeapGame", "OctalGame", "GrundyGame", "HeapMove", "quadratic_values", "guy_smith_period"]

_MAX_DIGITS = 64
_FIRST_CHECKPOINT = 1024
_BLOCK = 256  # heaps valued together by the byte-plane batch (see HeapGame._block)
_ALL_BYTES = bytes(range(256))


@dataclass(frozen=True, slots=True)
class HeapMove:
    """Take ``take`` beans from a heap, then leave 0, 1 or 2 heaps as the flags allow."""

    take: int
    leave_none: bool
    leave_one: bool
    leave_two: bool
    unequal: bool = False
    """Grundy's game: the two heaps left must differ in size."""


def _parity(v: int) -> int:
    return v.bit_count() & 1


_SEVEN: dict[int, tuple[int, int]] = {}


def _byte_masks(count: int) -> tuple[int, int]:
    """``0x7f`` and ``0x01`` repeated over ``count`` byte lanes (cached)."""
    masks = _SEVEN.get(count)
    if masks is None:
        masks = _SEVEN[count] = (int.from_bytes(b"\x7f" * count, "little"), int.from_bytes(b"\1" * count, "little"))
    return masks


class HeapGame:
    """An impartial heap game given by its moves on one heap; values are cached and extended."""

    name: str

    def __init__(self, moves: list[HeapMove], name: str, *, mask: int | None = None) -> None:
        """``mask`` pins the rare/common split (0: scan every pair); ``None`` chooses it adaptively."""
        if mask is not None and mask < 0:
            raise ValueError(f"a rare/common mask is a non-negative int, not {mask!r}")
        self.moves: tuple[HeapMove, ...] = tuple(moves)
        self.name = name
        self._fixed_mask = mask
        self._values: list[int] = []
        self._packed = array("I")  # the same values, for vectorised xor scans
        self._low = bytearray()  # value & 255, and value >> 8, per heap (one byte lanes for _cover)
        self._high = bytearray()
        self._wide = False  # some value >= 65536: _cover uses the 32-bit lanes only
        self._mask = 0  # 0 = no split chosen (yet): every pair is scanned
        self._rare: list[int] = []  # heaps >= 1 with a rare value (kept empty while mask is 0)
        self._rare_values: list[int] = []
        self._parity: list[int] = []  # parity of v & mask for v < len
        self._rare_class: list[int] = []  # the rare values v < len(self._parity), ascending
        self._checkpoint = _FIRST_CHECKPOINT
        self._planes: list[bytearray] | None = None  # byte planes of the common values (_block)
        self._sentinels: list[int] = []
        self._tables: dict[int, bytes] = {}
        self._batchable = False
        if mask:
            self._mask = mask

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # -- public ---------------------------------------------------------------------------------
    def values(self, n: int) -> list[int]:
        """The nim values ``G(0), ..., G(n-1)`` (computed once, cached, extended on demand)."""
        if n < 0:
            raise ValueError(f"cannot compute a negative number of values: {n!r}")
        self._extend(n)
        return self._values[:n]

    def value(self, n: int) -> int:
        """The nim value of one heap of ``n`` beans."""
        if n < 0:
            raise ValueError(f"a heap cannot have {n!r} beans")
        self._extend(n + 1)
        return self._values[n]

    def p_positions(self, n: int) -> list[int]:
        """The heap sizes below ``n`` whose value is 0 (single-heap P-positions)."""
        return [i for i, v in enumerate(self.values(n)) if v == 0]

    def heap_options(self, n: int) -> list[tuple[int, ...]]:
        """Every position one move from a heap of ``n``: tuples of the 0, 1 or 2 heaps left."""
        result: set[tuple[int, ...]] = set()
        for move in self.moves:
            m = n - move.take
            if m < 0:
                continue
            if move.leave_none and m == 0:
                result.add(())
            if move.leave_one and m >= 1 and move.take > 0:
                result.add((m,))
            if move.leave_two:
                for a in range(1, m // 2 + 1):
                    if not (move.unequal and 2 * a == m):
                        result.add((a, m - a))
        return sorted(result)

    @property
    def computed(self) -> int:
        """How many values are cached (``G(0) .. G(computed - 1)``)."""
        return len(self._values)

    @property
    def max_take(self) -> int:
        """The largest number of beans a move removes (``t`` of the Guy–Smith test)."""
        return max((mv.take for mv in self.moves), default=0)

    @property
    def rare_mask(self) -> int:
        """The bit mask of the current rare/common split (0: none chosen yet)."""
        return self._mask

    @property
    def rare_heaps(self) -> list[int]:
        """The heaps computed so far whose value is rare under ``rare_mask``."""
        return list(self._rare)

    # -- the fast sequence ---------------------------------------------------------------------
    def _extend(self, n: int) -> None:
        g = self._values
        while len(g) < n:
            batch = self._mask and len(g) >= 8 * _BLOCK and n - len(g) >= _BLOCK // 4
            if batch and any(mv.leave_two for mv in self.moves) and self._planes_ready():
                self._block(min(_BLOCK, n - len(g)))
            else:
                self._next()
            if len(g) >= self._checkpoint and self._fixed_mask is None:
                self._choose_mask()
                self._checkpoint *= 2

    def _par(self, v: int) -> int:
        """The parity of ``v & mask`` (1: common, 0: rare), growing the tables as needed."""
        par = self._parity
        if v >= len(par):
            mask, start = self._mask, len(par)
            par.extend(_parity(u & mask) for u in range(start, 2 * v + 64))
            self._rare_class.extend(u for u in range(start, len(par)) if not par[u])
        return par[v]

    def _singles(self, n: int, reached: set[int]) -> list[tuple[int, bool]]:
        """Add the values of the options leaving 0 or 1 heap; return the split remainders."""
        g = self._values
        remainders: list[tuple[int, bool]] = []
        for move in self.moves:
            m = n - move.take
            if m < 0:
                continue
            if move.leave_none and m == 0:
                reached.add(0)
            if move.leave_one and m >= 1 and move.take > 0:
                reached.add(g[m])
            if move.leave_two and m >= 2:
                remainders.append((m, move.unequal))
        return remainders

    def _scan_rare(self, reached: set[int], m: int, unequal: bool, lo: int, hi: int) -> None:
        """Add ``G(a) ^ G(m - a)`` for the rare heaps ``a`` with ``lo <= a < min(hi, m)``."""
        g, rare = self._values, self._rare
        i = bisect_left(rare, lo) if lo > 1 else 0
        j = bisect_left(rare, min(hi, m))
        pairs = zip(rare[i:j], self._rare_values[i:j])
        if unequal:
            reached.update([v ^ g[m - a] for a, v in pairs if 2 * a != m])
        else:
            reached.update([v ^ g[m - a] for a, v in pairs])

    def _next(self) -> None:
        g = self._values
        n = len(g)
        reached: set[int] = set()
        remainders = self._singles(n, reached)
        if self._mask == 0:  # no split: every pair, each once; ``reached`` is complete
            for m, unequal in remainders:
                last = (m - 1) // 2 if unequal else m // 2
                reached.update([g[a] ^ g[m - a] for a in range(1, last + 1)])
            value = 0
            while value in reached:
                value += 1
        else:
            for m, unequal in remainders:
                self._scan_rare(reached, m, unequal, 1, m)
            value = self._mex_with_split(reached, remainders)
        self._append(n, value)

    def _append(self, n: int, value: int) -> None:
        self._values.append(value)
        self._packed.append(value)
        if value < 65536:
            self._low.append(value & 255)
            self._high.append(value >> 8)
        else:
            self._wide = True
        common = self._mask != 0 and self._par(value)
        if n > 0 and self._mask != 0 and not common:
            self._rare.append(n)
            self._rare_values.append(value)
        planes = self._planes
        if planes:  # None: not built; []: no batching under this mask
            high = value >> 8
            if high >= len(planes):
                self._planes = None  # a new plane: rebuilt when next needed
                return
            for i, plane in enumerate(planes):
                plane.append(value & 255 if common and i == high else self._sentinels[i])

    def _mex_with_split(self, reached: set[int], remainders: list[tuple[int, bool]]) -> int:
        # The smallest common value not reached lies below this bound (half of every aligned
        # block of 2 * lowbit(mask) values is common).
        self._par(2 * len(reached) + 4 * (self._mask & -self._mask) + 2)
        par = self._parity
        common = 0
        while not par[common] or common in reached:
            common += 1
        return self._cover(common, reached, remainders)

    def _cover(self, common: int, reached: set[int], remainders: list[tuple[int, bool]]) -> int:
        """``common`` unless a rare value below it is reached by no pair (then the least such)."""
        rare_class = self._rare_class
        need = {w for w in rare_class[: bisect_left(rare_class, common)] if w not in reached}
        packed = self._packed
        for m, unequal in remainders:
            if not need:
                break
            last = (m - 1) // 2 if unequal else m // 2
            lo, size = 1, 64
            while lo <= last and need:
                hi = min(last + 1, lo + size)
                if max(need) < 255 and not self._wide:  # one byte per pair: xor's low byte, 255 if >= 256
                    lows, highs = self._low, self._high
                    low = int.from_bytes(lows[lo:hi], "little") ^ int.from_bytes(lows[m - lo : m - hi : -1], "little")
                    high = int.from_bytes(highs[lo:hi], "little") ^ int.from_bytes(highs[m - lo : m - hi : -1], "little")
                    seven, one = _byte_masks(hi - lo)
                    over = ((((high & seven) + seven) | high) >> 7) & one  # 1 where the high byte is not 0
                    present = (low | over * 255).to_bytes(hi - lo, "little")
                    need.intersection_update(_ALL_BYTES.translate(None, present))
                else:
                    width = packed.itemsize * (hi - lo)
                    left = int.from_bytes(packed[lo:hi].tobytes(), "little")
                    right = int.from_bytes(packed[m - lo : m - hi : -1].tobytes(), "little")
                    need.difference_update(array("I", (left ^ right).to_bytes(width, "little")))
                lo, size = hi, size * 2
        return min(need) if need else common

    # -- the byte-plane batch -------------------------------------------------------------------
    def _planes_ready(self) -> bool:
        """Build the byte planes if needed; False when some plane has no free sentinel byte."""
        if self._planes is None:
            g, par = self._values, self._par
            self._sentinels, self._tables, self._batchable = [], {}, True
            for high in range((max(g) >> 8) + 1):
                free = [b for b in range(256) if not par(high << 8 | b)]
                if not free:
                    self._batchable = False
                    break
                self._sentinels.append(free[0])
            planes = []
            if self._batchable:
                for high, sentinel in enumerate(self._sentinels):
                    planes.append(bytearray(v & 255 if v >> 8 == high and par(v) else sentinel for v in g))
            self._planes = planes
        return self._batchable

    def _table(self, r: int) -> bytes:
        """Translation of plane ``r >> 8``: a common low byte b -> b ^ (r & 255); sentinel -> 0."""
        table = self._tables.get(r)
        if table is None:
            low = r & 255
            entries = bytearray(b ^ low for b in range(256))
            entries[self._sentinels[r >> 8]] = 0
            table = self._tables[r] = bytes(entries)
        return table

    def _block(self, count: int) -> None:
        """Value ``count`` heaps, the rare heaps ``count <= a < n0 - k`` batched in byte planes.

        Plane ``h`` holds, per heap, the low byte of its value if the value is common and
        ``value >> 8 == h``, else a sentinel byte. Translating the slice of plane ``r >> 8`` that
        a rare heap ``a`` (value ``r``) meets gives, per column, ``r ^ G(m - a)`` when that is a
        common value below 256 (a common partner with the same high part) and 0 (rare) otherwise:
        exactly the common values below 256 the batched pairs reach. Pairs with a rare partner
        give rare values, which the chunk scan of ``_cover`` finds anyway. If every common value
        below 256 is reached, the column is redone with every rare heap scanned.
        """
        g, planes = self._values, self._planes
        assert planes is not None
        n0 = len(g)
        self._par(511)
        par = self._parity
        batches: list[tuple[int, bool, bytes]] = []
        for move in self.moves:
            if move.leave_two:
                k, rare = move.take, self._rare
                i, j = bisect_left(rare, count), bisect_left(rare, n0 - k)
                rows = [
                    planes[r >> 8][n0 - k - a : n0 - k - a + count].translate(self._table(r))
                    for a, r in zip(rare[i:j], self._rare_values[i:j])
                ]
                batches.append((k, move.unequal, b"".join(rows)))
        for t in range(count):
            n = n0 + t
            reached: set[int] = set()
            remainders = self._singles(n, reached)
            present = []
            for k, unequal, big in batches:
                self._scan_rare(reached, n - k, unequal, 1, count)
                self._scan_rare(reached, n - k, unequal, n0 - k, n - k)
                present.append(big[t::count])
            absent = _ALL_BYTES.translate(None, b"".join(present))
            common = next((u for u in absent if par[u] and u not in reached), -1)
            if common < 0:  # every common value below 256 is reached: scan the batched heaps too
                for k, unequal, _ in batches:
                    self._scan_rare(reached, n - k, unequal, count, n0 - k)
                value = self._mex_with_split(reached, remainders)
            else:
                value = self._cover(common, reached, remainders)
            self._append(n, value)

    def _choose_mask(self) -> None:
        """Pick the mask with the fewest rare heaps among the newer half of the values."""
        g = self._values
        counts = Counter(g[len(g) // 2 :])
        bits = max(g).bit_length()
        best_mask, best_rare = 0, len(g) - len(g) // 2
        for mask in range(1, 1 << bits):
            rare = sum(c for v, c in counts.items() if not _parity(v & mask))
            if rare < best_rare:
                best_mask, best_rare = mask, rare
        if 4 * best_rare > len(g) - len(g) // 2:
            best_mask = 0  # no useful split: keep scanning every heap
        if best_mask != self._mask:
            self._mask = best_mask
            self._parity = []
            self._rare_class = []
            self._planes = None
            keep = [i for i, v in enumerate(g) if i > 0 and best_mask != 0 and not self._par(v)]
            self._rare = keep
            self._rare_values = [g[i] for i in keep]


class OctalGame(HeapGame):
    """The octal game of ``code`` (``0.37``, ``.37``, ``·37``, ``0.07``, ``4.07``, ``0.137``)."""

    def __init__(self, code: str, *, mask: int | None = None) -> None:
        self.source = code
        self.code, digits = _parse_code(code)
        moves = [
            HeapMove(k, bool(d & 1), bool(d & 2), bool(d & 4)) for k, d in enumerate(digits) if d
        ]
        super().__init__(moves, self.code, mask=mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OctalGame) and other.code == self.code

    def __hash__(self) -> int:
        return hash(("octal", self.code))

    def period(self, n: int) -> tuple[int, int] | None:
        """``(preperiod, period)`` proved by the Guy–Smith test on the first ``n`` values, or None."""
        return guy_smith_period(self.values(n), self.max_take)


class GrundyGame(HeapGame):
    """Grundy's game: split one heap into two heaps of different sizes."""

    def __init__(self, *, mask: int | None = None) -> None:
        super().__init__([HeapMove(0, False, False, True, unequal=True)], "grundy", mask=mask)


def _parse_code(text: str) -> tuple[str, list[int]]:
    """The canonical code (``d0.d1...``, trailing zeros dropped) and the digits ``d0, d1, ...``."""
    if not isinstance(text, str):
        raise NotationError(repr(text), 0, "an octal code must be text such as '0.37'")
    code = text.strip().replace("·", ".").replace("\u22c5", ".")
    if code.count(".") != 1:
        raise NotationError(text, 0, "an octal code has one point, as in '0.37' or '.37'")
    head, _, tail = code.partition(".")
    offset = len(text) - len(text.lstrip())
    if head not in ("", "0", "4"):
        reason = "the digit before the point must be 0 or 4 (4: split a heap without taking)"
        raise NotationError(text, offset, reason)
    if not tail:
        raise NotationError(text, offset + len(head) + 1, "digits must follow the point")
    if len(tail) > _MAX_DIGITS:
        raise NotationError(text, offset + len(head) + 1, f"more than {_MAX_DIGITS} digits")
    for i, ch in enumerate(tail):
        if ch not in "01234567":
            raise NotationError(text, offset + len(head) + 1 + i, f"{ch!r} is not an octal digit")
    digits = [int(head or "0")] + [int(ch) for ch in tail]
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
    canonical = f"{digits[0]}." + ("".join(map(str, digits[1:])) or "0")
    return canonical, digits


def quadratic_values(game: HeapGame, n: int) -> list[int]:
    """The first ``n`` values by the plain definition: every option of every heap (the baseline)."""
    g: list[int] = []
    for size in range(n):
        reached: set[int] = set()
        for move in game.moves:
            m = size - move.take
            if m < 0:
                continue
            if move.leave_none and m == 0:
                reached.add(0)
            if move.leave_one and m >= 1 and move.take > 0:
                reached.add(g[m])
            if move.leave_two:
                for a in range(1, m // 2 + 1):
                    if not (move.unequal and 2 * a == m):
                        reached.add(g[a] ^ g[m - a])
        value = 0
        while value in reached:
            value += 1
        g.append(value)
    return g


def guy_smith_period(values: list[int], max_take: int) -> tuple[int, int] | None:
    """The Guy–Smith periodicity test (Winning Ways ch. 4).

    If ``G(i + p) = G(i)`` for all ``n0 <= i < 2*n0 + p + t`` (``t`` = most beans a move takes),
    an octal game's sequence is periodic from ``n0`` with period ``p``. Returns the smallest such
    ``p`` the data proves, with the least ``n0`` for it, or ``None`` when none is proved yet.
    """
    n = len(values)
    for p in range(1, n):
        last_mismatch = -1
        for i in range(n - p - 1, -1, -1):
            if values[i] != values[i + p]:
                last_mismatch = i
                break
        n0 = last_mismatch + 1
        if 2 * n0 + 2 * p + max_take <= n:
            return n0, p
        if 2 * p + max_take > n:
            break
    return None
