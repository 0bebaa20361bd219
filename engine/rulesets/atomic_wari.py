"""Atomic Wari and its impartial version (Erickson 1996, §3), on an unbounded row of pots.

A move takes all ``s >= 2`` seeds of a pot and sows them one per pot *starting with that pot*
(so one seed stays in it): Left rightwards into ``i .. i+s-1``, Right leftwards into
``i-s+1 .. i``. If the last pot sown then holds 2 or 3 seeds they are captured, and capturing
continues backwards (against the direction of sowing) while pots hold 2 or 3; the chain always
stops at the starting pot, which holds exactly one seed. In the impartial version either player
sows in either direction. ``312``: Left → ``1``, ``3111``; Right → ``301``, ``11112``; so
``312 = ↑`` (partizan) and ``∗2`` (impartial).

Normalisation rules (each property-tested against a brute-force valuer without any rule):

N1. *Empty end pots are dropped*: the board is unbounded, so an empty pot beyond the last
    nonempty pot is indistinguishable from the unbounded row's own empty pots.
N2. *Mirror.* Reversing the row swaps the players' moves: ``value(reversed) = -value``
    (impartial: equal). ``normalise`` picks the lexicographically smaller orientation.

Decomposition (``components``), by a *reach* invariant. For a set of seeds let ``S(j)`` be the
number of them at indices ``>= j`` and ``Q = max_j (j + S(j) - 1)`` over ``j`` with ``S(j) > 0``
(``Q`` is at least the index of the last seed). A rightward sowing from pot ``i`` reaches
``i + s - 1 <= i + S(i) - 1 <= Q``. **``Q`` never increases**: a leftward sowing or a capture
only lowers every ``S(j)``; a rightward sowing from ``i`` with ``s`` seeds raises ``S(j)`` for
``i < j <= i+s-1`` to ``S(j) + i + s - j``, so ``j + S'(j) - 1 = S(j) + i + s - 1 <=
(S(i) - s) + i + s - 1 = i + S(i) - 1 <= Q``. Symmetrically, with ``T(j)`` the seeds at indices
``<= j``, ``P = min_j (j - T(j) + 1)`` never decreases and bounds every leftward sowing.

D1. *Cut.* Split the row between consecutive nonempty pots ``a < b`` when ``Q`` of the pots
    ``<= a`` is less than ``P`` of the pots ``>= b``. By the invariant, every pot ever touched
    (sown into, captured, or holding a seed) by the left part lies at ``<= Q`` and every pot
    touched by the right part at ``>= P``; a move's result depends only on the pots it sows
    into, so the options of the whole are exactly those of ``A + B``. Cutting at every such
    boundary is sound: a middle segment's ``Q``/``P`` are bounded by the prefix's/suffix's.
    The invariant holds for both kinds of move, so the rule serves both versions.
D2. *Dead components.* A component where no pot holds 2 or more seeds has no moves (value 0)
    and is omitted.
D3. *Sparse positions* (every pot <= 2 seeds): ``direct_value`` applies Theorem 3.1 — the value
    is that of the impartial game, the nim sum over maximal runs of ``m`` deuces of the octal
    game ·37 at ``m`` (``ruma.engine.octal.OctalGame("0.37").value(m)``); the theorem's property
    ``sparse-atomic-wari`` checks it on a theorem's instances.

Bounds and order of a sweep (``ruma.engine.families.bounds``, ``ruma.engine.families.order``):

F1. *Pots a row of ``B`` seeds fills.* Between consecutive nonempty pots ``p < q`` with ``a`` seeds
    up to ``p`` and ``b`` from ``q``, the left part never reaches past ``p + a - 1`` and the right
    part never before ``q - b + 1``, so ``q - p >= a + b - 1`` splits the row (D1): a component's
    gaps are at most ``B - 3`` empty pots, at most ``B + (B - 1)(B - 3)`` pots in all (a bound, not
    always reached).
P1. *Potential* (both versions): seeds only decrease (captures), ``Q`` never increases and ``P``
    never decreases, so ``(seeds, Q - P)`` never grows.
"""

from __future__ import annotations

from itertools import accumulate
from operator import add, sub
from typing import Any, Callable, ClassVar, Sequence

from ruma.engine.rulesets.base import Cell, State, strip_ends
from ruma.engine.rulesets.notation import BothDirections, PotRowRuleset

__all__ = [
    "ATOMIC_WARI",
    "IMPARTIAL_ATOMIC_WARI",
    "AtomicWariRuleset",
    "ImpartialAtomicWariRuleset",
    "sow_right",
    "sow_left",
    "cuts",
    "reach_right",
    "reach_left",
    "sparse_nim_value",
    "octal_37",
    "left_unmoves",
    "right_unmoves",
]


def _sow_right_from(state: State, i: int, s: int) -> State:
    end = i + s  # one past the last pot sown
    pots = list(state)
    if end > len(pots):
        pots.extend([0] * (end - len(pots)))
    pots[i] = 1
    for k in range(i + 1, end):
        pots[k] += 1
    k = end - 1
    while pots[k] == 2 or pots[k] == 3:
        pots[k] = 0
        k -= 1
    return tuple(pots)


def _sow_left_from(state: State, i: int, s: int) -> State:
    shift = s - 1 - i
    if shift > 0:
        pots = [0] * shift + list(state)
        i += shift
    else:
        pots = list(state)
    start = i - s + 1  # the last pot sown
    pots[i] = 1
    for k in range(start, i):
        pots[k] += 1
    k = start
    while pots[k] == 2 or pots[k] == 3:
        pots[k] = 0
        k += 1
    return tuple(pots)


def sow_right(state: State) -> list[State]:
    """Left's options on the unbounded row (the row grows to the right as needed)."""
    return [_sow_right_from(state, i, s) for i, s in enumerate(state) if s >= 2]


def sow_left(state: State) -> list[State]:
    """Right's options on the unbounded row (the row grows to the left as needed)."""
    return [_sow_left_from(state, i, s) for i, s in enumerate(state) if s >= 2]


_strip = strip_ends


def left_unmoves(row: State, extra: int = 0) -> list[State]:
    """Every row ``G`` (empty end pots stripped) with a Left move (a rightward sowing) to ``row``
    that captured at most ``extra`` seeds. Left sowed the ``s`` seeds of pot ``i`` into
    ``i .. i+s-1`` (pot ``i`` keeps one), then captured backwards from ``i+s-1`` the ``k`` pots
    that held 2 or 3: undone, pot ``i`` (holding one) gets its ``s`` seeds back, each sown pot
    before the captured ones gives one back, and each captured pot (empty now) held 1 or 2 — the
    pot where capturing stopped, if it is not pot ``i``, holds neither 2 nor 3 after the move."""
    most = extra // 2  # (a captured pot lost 2 or 3 seeds)
    after = list(_strip(row)) + [0] * (most + 1)
    found: list[State] = []
    for i, count in enumerate(after):
        if count != 1:
            continue
        sown = i + 1  # sown pots i+1 .. sown-1 hold one seed more than before (at least one now)
        while True:
            for k in range(0, most + 1):  # the k pots from sown .. sown+k-1 were captured
                last = sown + k - 1
                if k and (last >= len(after) or after[last] != 0):
                    break
                if k == 0 and sown - 1 == i:
                    continue  # (s >= 2: at least one pot past i is sown)
                if k == 0 and after[sown - 1] in (2, 3):
                    continue  # (it would have been captured)
                if k and sown - 1 > i and after[sown - 1] in (2, 3):
                    continue  # (capturing would not have stopped there)
                before = list(after)
                before[i] = sown + k - i
                for j in range(i + 1, sown):
                    before[j] -= 1
                for held in _captured(k, extra):
                    for offset, c in enumerate(held):
                        before[sown + offset] = c
                    found.append(_strip(tuple(before)))
            if sown >= len(after) or after[sown] < 1:
                break
            sown += 1
    return found


def _captured(k: int, extra: int) -> list[tuple[int, ...]]:
    """The counts (1 or 2 each) ``k`` captured pots held before the sowing, at most ``extra``
    seeds captured in all (each pot lost its count plus the seed sown into it)."""
    out: list[tuple[int, ...]] = [()]
    for _ in range(k):
        out = [held + (c,) for held in out for c in (1, 2)]
    return [held for held in out if sum(held) + k <= extra]


def right_unmoves(row: State, extra: int = 0) -> list[State]:
    """Every row with a Right move (a leftward sowing) to ``row``: the mirror images of
    ``left_unmoves`` of its mirror image."""
    return [g[::-1] for g in left_unmoves(row[::-1], extra)]


def reach_right(state: State) -> int:
    """``Q``: no rightward sowing of these seeds, now or later, passes this index (-1 if none)."""
    q = -1
    suffix = 0
    for j in range(len(state) - 1, -1, -1):
        suffix += state[j]
        if suffix and j + suffix - 1 > q:
            q = j + suffix - 1
    return q


def reach_left(state: State) -> int:
    """``P``: no leftward sowing of these seeds, now or later, passes this index (len if none)."""
    p = len(state)
    prefix = 0
    for j, v in enumerate(state):
        prefix += v
        if prefix and j - prefix + 1 < p:
            p = j - prefix + 1
    return p


def cuts(state: State) -> list[tuple[int, int, int, int]]:
    """Every sound cut (D1) as ``(a, b, q, p)``: pots ``<= a`` and ``>= b`` are independent,
    the left part never touches a pot after ``q`` and the right part none before ``p``."""
    n = len(state)
    # qs[a]: Q of the prefix ending at a = max_{j<=a}(j - 1 - pre[j]) + pre[a+1]
    qs = [0] * n
    best = -(1 << 62)
    pre = 0
    for a in range(n):
        if a - 1 - pre > best:
            best = a - 1 - pre
        pre += state[a]
        qs[a] = best + pre
    # ps[b]: P of the suffix starting at b = min_{j>=b}(j + 1 - pre[j+1]) + pre[b]
    ps = [0] * n
    low = 1 << 62
    pre_to = pre  # pre[j+1] for j = n-1
    for b in range(n - 1, -1, -1):
        if b + 1 - pre_to < low:
            low = b + 1 - pre_to
        pre_to -= state[b]
        ps[b] = low + pre_to
    out: list[tuple[int, int, int, int]] = []
    a = -1
    for b in range(n):
        if state[b] == 0:
            continue
        if a >= 0 and qs[a] < ps[b]:
            out.append((a, b, qs[a], ps[b]))
        a = b
    return out


_OCTAL: list[Any] = []


def octal_37() -> Any | None:
    """The octal game ·37 of Theorem 3.1 (``ruma.engine.octal.OctalGame("0.37")``, made once), or
    None if ``ruma.engine.octal`` is unavailable."""
    if not _OCTAL:
        try:
            from ruma.engine.octal import OctalGame  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            return None
        _OCTAL.append(OctalGame("0.37"))
    return _OCTAL[0]


def sparse_nim_value(state: State) -> int | None:
    """Theorem 3.1: the nim value of a sparse row (every pot <= 2), or None if not sparse or
    if ``ruma.engine.octal`` is unavailable."""
    if state and max(state) > 2:
        return None
    runs: list[int] = []
    m = 0
    for v in state:
        if v == 2:
            m += 1
        elif v > 2:
            return None
        elif m:
            runs.append(m)
            m = 0
    if m:
        runs.append(m)
    game = octal_37()
    if game is None:
        return None
    total = 0
    for m in runs:
        total ^= int(game.value(m))
    return total


class AtomicWariRuleset(PotRowRuleset):
    """Partizan Atomic Wari on an unbounded row."""

    name: ClassVar[str] = "atomic-wari"
    code: ClassVar[int] = 3
    version: ClassVar[int] = 1
    impartial: ClassVar[bool] = False
    description: ClassVar[str] = "Erickson's Atomic Wari (1996 §3) on an unbounded row"
    examples: ClassVar[tuple[str, ...]] = ("312", "(01300)^2", "1,10,2")
    unbounded: ClassVar[bool] = True
    impartial_twin: ClassVar[str | None] = "impartial-atomic-wari"
    properties: ClassVar[frozenset[str]] = frozenset({"sparse-atomic-wari"})

    def left_options(self, state: State) -> list[State]:
        """Left's options: rightward sowings."""
        return sow_right(state)

    def right_options(self, state: State) -> list[State]:
        """Right's options: leftward sowings."""
        return sow_left(state)

    def normalise(self, state: State) -> tuple[State, bool]:
        """N1 (strip empty end pots), then the lexicographically smaller orientation (N2)."""
        return self.oriented(_strip(state))

    def unmoves(self, state: State, left: bool, extra: int = 0) -> list[State] | None:
        """The rows with a Left (``left``) or Right move to ``state`` capturing at most ``extra``
        seeds (``left_unmoves``, ``right_unmoves``)."""
        return left_unmoves(state, extra) if left else right_unmoves(state, extra)

    def components(self, state: State) -> Sequence[State]:
        """Stripped independent components (D1), value-0 components omitted (D2)."""
        t = _strip(state)
        pieces: list[State] = []
        start = 0
        for a, b, _, _ in cuts(t):
            pieces.append(t[start : a + 1])
            start = b
        pieces.append(t[start:])
        return [p for p in pieces if max(p, default=0) >= 2]

    def decompose(self, state: State) -> list[tuple[State, bool]]:
        """``components`` oriented: they are already stripped, so only the mirror is left.

        Fast path: a cut between pots ``a < b`` needs ``Q < P``, and ``Q >= S - 1`` (``j = 0``
        with the prefix's ``S`` seeds) while ``P <= n - T`` (``j = n - 1`` with the suffix's
        ``T`` seeds); so a stripped row of ``n`` pots holding more than ``n`` seeds has no cut,
        and it has a pot with 2 or more seeds, so it is one live component.
        """
        t = _strip(state)
        if sum(t) > len(t):
            r = t[::-1]
            return [(r, True) if r < t else (t, False)]
        out: list[tuple[State, bool]] = []
        for piece in self.components(state):
            r = piece[::-1]
            out.append((r, True) if r < piece else (piece, False))
        return out

    def direct_value(self, state: State) -> object | None:
        """Theorem 3.1 for sparse rows: ``nimber`` of the ·37 nim sum (D3)."""
        k = sparse_nim_value(state)
        if k is None:
            return None
        from ruma.engine.cgt import nimber

        return nimber(k)

    def fill_pots(self, seeds: int) -> int:
        """F1: at most ``B + (B - 1)(B - 3)`` pots a component."""
        return seeds + (seeds - 1) * (seeds - 3)

    def sweep_cell(self, state: State) -> Cell:
        """P1: ``((seeds, Q - P),)``."""
        pots, seeds = self.size(state)
        width = reach_right(state) - reach_left(state) if state else 0
        return ((seeds, width),)

    def sweep_cell_of(self) -> Callable[[State], Cell]:
        """P1 with ``reach_right``/``reach_left`` as running sums in C loops (``accumulate``,
        ``map``): about 2 us a state instead of 15. For a row with seeds at both ends every prefix
        and suffix sum is positive, so ``P = min(j + 1 - prefix(j))`` and ``Q = max(j - 1 +
        suffix(j))`` over every index; other rows go through ``sweep_cell``."""
        slow = self.sweep_cell

        def wari_cell(state: State) -> Cell:
            n = len(state)
            if not n or not state[0] or not state[-1] or min(state) < 0:
                return slow(state)
            prefix = list(accumulate(state))
            left = min(map(sub, range(1, n + 1), prefix))
            right = max(map(add, range(n - 2, -2, -1), accumulate(reversed(state))))
            return ((prefix[-1], right - left),)

        return wari_cell


class ImpartialAtomicWariRuleset(BothDirections, AtomicWariRuleset):
    """Impartial Atomic Wari: either player sows in either direction."""

    name: ClassVar[str] = "impartial-atomic-wari"
    code: ClassVar[int] = 4
    impartial: ClassVar[bool] = True
    description: ClassVar[str] = "Impartial Atomic Wari (Erickson 1996 §3): either player, either direction"
    examples: ClassVar[tuple[str, ...]] = ("312", "1^5")
    properties: ClassVar[frozenset[str]] = frozenset()

    def direct_value(self, state: State) -> object | None:
        """Theorem 3.1 for sparse rows: the ·37 nim sum (D3)."""
        return sparse_nim_value(state)


ATOMIC_WARI = AtomicWariRuleset()
IMPARTIAL_ATOMIC_WARI = ImpartialAtomicWariRuleset()
