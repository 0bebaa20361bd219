"""Conway's Sowing and its impartial version (Erickson 1996, §2).

A position is an unbounded row of pots. Left takes all ``s`` seeds of a pot ``i`` and sows them
one per pot into ``i+1 .. i+s``; the move is legal only if the *last* pot ``i+s`` was nonempty
(the last seed may not go into an empty pot). Right sows leftwards into ``i-1 .. i-s``. In the
impartial version either player may sow in either direction. ``312``: Left → ``303``; Right →
``402``, ``420``; so ``312 = {0 | -2}`` (partizan) and ``∗`` (impartial).

States are tuples of seed counts; a *full* pot is stored as ``notation.FULL`` (10⁹, any value
``>= FULL`` is full), a count so large that the move generator needs no special case: it is
nonempty (seeds may land on it) and can never be sown.

Normalisation rules (each property-tested against a brute-force valuer without any rule):

N1. *Empty end pots are dropped.* A Left sowing ends on a nonempty pot, so no seed ever goes
    beyond the last nonempty pot ``L`` (symmetrically before the first, ``F``): pots outside
    ``[F, L]`` stay empty forever and take part in no move.
N2. *Full pots.* Erickson calls a pot full if its count "is greater than the distance to either
    the first or last (nonempty) pot". The sound reading is **greater than both distances**:
    ``s > i - F`` and ``s > L - i``. Such a pot can be sown neither rightwards (it would pass
    ``L``, and sowing past ``L`` ends on an empty pot) nor leftwards. Moreover it never becomes
    sowable: by N1 the span ``[F, L]`` never grows and a pot's count only grows until it is
    sown. (The other reading, *either* distance, would call every end pot full — the first pot
    has distance 0 to itself — although e.g. ``12`` lets Left sow the first pot.) A full pot's
    exact count is irrelevant (it only receives seeds), so every full pot becomes ``FULL``.
N3. *Full end runs are shortened.* If the row begins with ``k`` full pots and the other pots hold
    ``s`` seeds in all (so no pot ever holds more than ``s``), a Right sowing from a pot at index
    ``>= k`` ends at index ``>= k - s``: the first ``k - min(k, s)`` full pots are never reached
    and are dropped (symmetrically at the right end). A row with no sowable seeds has value 0.
N4. *Mirror.* Reversing the row swaps the players' moves, so ``value(reversed) = -value``
    (impartial: the same value). ``normalise`` picks the lexicographically smaller orientation.

Decomposition (``components``), on a row simplified by N1–N3; ``sA``/``sB`` are the seeds in
non-full pots left/right of the cut (no pot on a side can ever hold more while no seed crosses):

D1. *Empty gap.* A run of ``g`` empty pots with ``g >= sA`` and ``g >= sB`` separates independent
    components. To cross it a Left sowing from a pot of A must end on a nonempty pot of B, at
    distance ``>= g + 1``, which needs ``> sA`` seeds in one pot; a sowing ending inside the gap
    is illegal (empty pot). Symmetrically for Right from B. So no seed ever crosses, every move
    of A is legal in the whole iff it is legal in A alone, and the whole is ``A + B``.
    Example: ``1200021 = 12 + 21``.
D2. *Full gap.* A run of ``k`` full pots with ``k >= sA`` and ``k >= sB`` gives ``A•^k + •^k B``:
    a Left sowing from A ends at most ``sA <= k`` pots past A's last pot, i.e. on A or on the
    run, where the landing is legal in both games and the seeds dropped on full pots vanish
    from play. (N3 then shortens each copy of the run.) Example: ``110••1 = 110•• + ••1``.
Components with no sowable seeds (value 0) are omitted.

Bounds and order of a sweep (``ruma.engine.families.bounds``, ``ruma.engine.families.order``):

F1. *Pots a row of ``B`` seeds fills.* By D1 a run of ``g`` empty pots with ``a`` seeds before it
    and ``b`` after splits the row when ``g >= a`` and ``g >= b``; so one component has gaps of at
    most ``max(a, b) - 1``, and the longest puts its seeds one a pot:
    ``B + sum_{i=1}^{B-1} (max(i, B - i) - 1)`` pots (115 for 13 seeds).
P1. *Potential* (both versions). Seeds are conserved except those dropped on full pots, and the
    span of nonempty pots never grows (N1–N3), so ``(sowable seeds, pots)`` never grows. While it
    is unchanged, no end pot is ever sown (sowing it away empties it and shortens the row) and no
    move drops a seed on a full pot, so the end pots' counts ``(c_first, c_last)`` only grow.
    While those are unchanged too, no move sows into an end pot: every move sows within the
    interior, whose span of nonempty pots therefore never grows — the gaps between the ends and
    the interior's nonempty span only grow — and while the gaps are unchanged, the interior's
    end pots only grow, by the same argument one level in. The potential takes ``cell_depth``
    (ends, gaps) levels: one by default, since finer cells cost the scheduler more than they gain
    once batches follow chains of cells.
"""

from __future__ import annotations

from typing import Callable, ClassVar, Sequence

from ruma.engine.rulesets.base import Cell, Pair, State, prefix_length, strip_ends
from ruma.engine.rulesets.notation import FULL, BothDirections, PotRowRuleset, parse_pots

__all__ = ["SOWING", "IMPARTIAL_SOWING", "SowingRuleset", "ImpartialSowingRuleset", "simplify", "right_unmoves",
           "left_unmoves"]


def sow_right(state: State) -> list[State]:
    """Left's options: sow a pot rightwards, ending on a nonempty pot."""
    out: list[State] = []
    n = len(state)
    for i in range(n - 1):
        s = state[i]
        if s == 0:
            continue
        j = i + s
        if j < n and state[j] != 0:
            out.append(state[:i] + (0,) + tuple([v + 1 for v in state[i + 1 : j + 1]]) + state[j + 1 :])
    return out


def sow_left(state: State) -> list[State]:
    """Right's options: sow a pot leftwards, ending on a nonempty pot."""
    out: list[State] = []
    for i in range(1, len(state)):
        s = state[i]
        if s == 0:
            continue
        j = i - s
        if j >= 0 and state[j] != 0:
            out.append(state[:j] + tuple([v + 1 for v in state[j:i]]) + (0,) + state[i + 1 :])
    return out


_strip = strip_ends


def right_unmoves(row: State) -> list[State]:
    """Every Sowing row ``G`` (empty end pots stripped) with a Right move to ``row``: Right took
    the ``s`` seeds of pot ``j`` and sowed them one a pot leftwards, the last onto a nonempty pot;
    undone, ``s`` seeds go back into pot ``j`` (empty after the move) and each of the ``s`` pots
    to its left gives one back (the last of them held two or more)."""
    after = list(row) + [0]
    found: list[State] = []
    for j, count in enumerate(after):
        if count:
            continue
        for s in range(1, j + 1):
            if after[j - s] < 1:
                break
            if after[j - s] >= 2:  # (the last seed fell onto a nonempty pot)
                before = list(after)
                for i in range(j - s, j):
                    before[i] -= 1
                before[j] = s
                found.append(strip_ends(tuple(before)))
    return found


def left_unmoves(row: State) -> list[State]:
    """Every Sowing row with a Left move to ``row``: the mirror images of ``right_unmoves`` of
    its mirror image (Left's sowings are Right's, reversed)."""
    return [g[::-1] for g in right_unmoves(row[::-1])]


def simplify(state: State) -> State:
    """Rules N1–N3 (no mirror, no split): strip empties, mark full pots, shorten full end runs."""
    t = _strip(state)
    while True:
        n = len(t)
        if n == 0:
            return t
        last = n - 1
        if max(t) <= last >> 1:
            return t  # a full pot needs more than max(i, last - i) >= last // 2 seeds
        marked = tuple([FULL if v > i and v > last - i else v for i, v in enumerate(t)])
        seeds = 0
        for v in marked:
            if v < FULL:
                seeds += v
        if seeds == 0:
            return ()
        lo = 0
        while marked[lo] >= FULL:
            lo += 1
        hi = n
        while marked[hi - 1] >= FULL:
            hi -= 1
        lo = max(0, lo - seeds)
        hi = min(n, hi + seeds)
        if lo == 0 and hi == n:
            return marked
        t = marked[lo:hi]


def _split(t: State) -> list[State]:
    """Rules D1–D2 on a simplified row (recursively on both halves of the first cut found)."""
    zeros, fulls = t.count(0), t.count(FULL)
    total = sum(t) - fulls * FULL  # every full pot of a simplified row is exactly FULL
    if 2 * max(zeros, fulls) < total:
        return [t]  # a cut needs a run at least max(sA, sB) >= total / 2 long
    n = len(t)
    left = 0  # sowable seeds strictly left of index i
    i = 0
    while i < n:
        v = t[i]
        if v == 0 or v >= FULL:
            full = v >= FULL
            j = i
            while j < n and (t[j] >= FULL if full else t[j] == 0):
                j += 1
            width = j - i
            right = total - left
            if 0 < left <= width and right <= width and j < n:
                if full:
                    a, b = simplify(t[:j]), simplify(t[i:])
                else:
                    a, b = simplify(t[:i]), simplify(t[j:])
                return (_split(a) if a else []) + (_split(b) if b else [])
            i = j
        else:
            left += v
            i += 1
    return [t]


def _pair(a: int, b: int) -> Pair:
    return (a, b) if a <= b else (b, a)


def _row_cell(seeds: int, state: State, depth: int) -> Cell:
    """P1's potential of a canonical ``state`` holding ``seeds`` sowable seeds, ``depth`` levels deep."""
    levels: list[Pair] = [(seeds, len(state))]
    lo, hi = 0, len(state) - 1
    for _ in range(depth):
        if lo > hi:
            break
        levels.append(_pair(state[lo], state[hi]))
        i, j = lo + 1, hi - 1
        while i <= j and state[i] == 0:
            i += 1
        while j >= i and state[j] == 0:
            j -= 1
        if i > j:
            break
        levels.append(_pair(i - lo - 1, hi - 1 - j))
        lo, hi = i, j
    return tuple(levels)


def _depth_one_cell(state: State) -> Cell:
    """``_row_cell`` at depth 1, unrolled: (seeds, pots), the end pots, the gaps inside them."""
    n = len(state)
    top = (sum(state) - state.count(FULL) * FULL, n)
    if n == 0:
        return (top,)
    a, b = state[0], state[-1]
    ends = (a, b) if a <= b else (b, a)
    i, j = 1, n - 2
    while i <= j and state[i] == 0:
        i += 1
    if i > j:
        return (top, ends)
    while state[j] == 0:
        j -= 1
    return (top, ends, _pair(i - 1, n - 2 - j))


class SowingRuleset(PotRowRuleset):
    """Partizan Sowing: Left sows rightwards, Right leftwards."""

    name: ClassVar[str] = "sowing"
    code: ClassVar[int] = 1
    version: ClassVar[int] = 1
    impartial: ClassVar[bool] = False
    description: ClassVar[str] = "Conway's Sowing (Erickson 1996 §2): last seed must land on a nonempty pot"
    examples: ClassVar[tuple[str, ...]] = ("312", "1^8", "(10)^3 03 (01)^2", "2•1")
    unbounded: ClassVar[bool] = True
    impartial_twin: ClassVar[str | None] = "impartial-sowing"
    cell_depth: ClassVar[int] = 1
    """The (ends, gaps) levels of the sweep's potential (P1); the compiled core's cells are depth 1's."""

    def parse(self, text: str) -> State:
        """Digits, commas, ``•``/``#`` for full pots, ``^`` repetition and ``( )`` groups."""
        return tuple([FULL if v >= FULL else v for v in parse_pots(text, allow_full=True)])

    def left_options(self, state: State) -> list[State]:
        """Left's options: rightward sowings."""
        return sow_right(state)

    def right_options(self, state: State) -> list[State]:
        """Right's options: leftward sowings."""
        return sow_left(state)

    def normalise(self, state: State) -> tuple[State, bool]:
        """N1–N3, then the lexicographically smaller orientation (N4)."""
        return self.oriented(simplify(state))

    def unmoves(self, state: State, left: bool, extra: int = 0) -> list[State] | None:
        """The rows with a Left (``left``) or Right move to the row ``state`` (a row of counts:
        a full pot, never sown, makes none); Sowing captures nothing, so ``extra`` plays no part."""
        if any(v >= FULL for v in state):
            return []
        return left_unmoves(state) if left else right_unmoves(state)

    def components(self, state: State) -> Sequence[State]:
        """Simplified independent components (D1–D2), value-0 components omitted."""
        t = simplify(state)
        return _split(t) if t else []

    def decompose(self, state: State) -> list[tuple[State, bool]]:
        """``components`` oriented: they are already simplified, so only the mirror is left."""
        out: list[tuple[State, bool]] = []
        for piece in self.components(state):
            r = piece[::-1]
            out.append((r, True) if r < piece else (piece, False))
        return out

    def key(self, state: State) -> bytes:
        """Bytes of the counts (a full pot as 255), or their decimal text if a count exceeds 254."""
        prefix = self.key_prefix
        try:
            body = bytes(state)  # fast path: every count in 0..255 (255 itself is not a count here)
        except ValueError:
            pass
        else:
            if 255 not in body:
                return prefix + b"\x00" + body
        if all(v < 255 or v >= FULL for v in state):
            return prefix + b"\x00" + bytes([255 if v >= FULL else v for v in state])
        return prefix + b"\x01" + ",".join(["F" if v >= FULL else str(v) for v in state]).encode()

    def size(self, state: State) -> tuple[int, int]:
        """``(pots, seeds in non-full pots)``."""
        return len(state), sum(v for v in state if 0 < v < FULL)

    def seeds(self, state: State) -> int:
        """Sowable seeds of a canonical state, which writes every full pot as exactly ``FULL``."""
        return sum(state) - state.count(FULL) * FULL

    def state_from_key(self, key: bytes) -> State:
        """The inverse of ``key``: a full pot is 255 (or ``F`` in the decimal text)."""
        at = prefix_length(key)
        if key[at] == 0:
            return tuple(FULL if v == 255 else v for v in key[at + 1:])
        if key[at] == 1:
            text = bytes(key[at + 1:]).decode("ascii")
            return tuple(FULL if part == "F" else int(part) for part in text.split(",")) if text else ()
        raise ValueError(f"sowing key {bytes(key)!r} has an unknown tag {key[at]}")

    def fill_pots(self, seeds: int) -> int:
        """F1: the longest component of ``seeds`` seeds, one a pot with the widest gaps D1 allows."""
        return seeds + sum(max(i, seeds - i) - 1 for i in range(1, seeds))

    def sweep_cell(self, state: State) -> Cell:
        """P1's potential, ``cell_depth`` levels deep."""
        return _row_cell(self.seeds(state), state, self.cell_depth)

    def sweep_cell_of(self) -> Callable[[State], Cell]:
        """P1's potential; at depth 1 unrolled (a sweep's grouping calls it once a class)."""
        return _depth_one_cell if self.cell_depth == 1 else self.sweep_cell

    def native_cells(self) -> bool:
        """The compiled cells are P1's at depth 1."""
        return self.cell_depth == 1


class ImpartialSowingRuleset(BothDirections, SowingRuleset):
    """Impartial Sowing: either player sows in either direction."""

    name: ClassVar[str] = "impartial-sowing"
    code: ClassVar[int] = 2
    impartial: ClassVar[bool] = True
    description: ClassVar[str] = "Impartial Sowing (Erickson 1996 §2): either player, either direction"
    examples: ClassVar[tuple[str, ...]] = ("312", "110111")


SOWING = SowingRuleset()
IMPARTIAL_SOWING = ImpartialSowingRuleset()
