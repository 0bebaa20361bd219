"""Partial Tchoukaillon boards and the Chinese Remainder Theorem (Section 4 of Jones, Taalman and
Tongen; docs/tchoukaillon.md).

Indexing: Section 4's ``beta``-indexing, ``beta_i = b_{i-1}`` for ``i >= 2`` (``beta_2`` is the bin
next to the Ruma and ``beta_i`` holds at most ``i - 1`` stones). A board tuple
``(b_1, b_2, ...)`` from :mod:`ruma.engine.tchoukaillon.board` is ``(beta_2, beta_3, ...)``.

* :func:`theorem_4_5_allowable`: Theorem 4.5's criterion for a whole prefix ``(m_2 .. m_k)``.
* :func:`paper_reconstruction`: the paper's algorithm after Theorem 4.5 (fill, partial sums, CRT).
* :func:`complete`: whether some ``b(n)`` agrees with given bins, and the smallest such ``n``, under
  an explicit reading of which boards count (:data:`LENGTH_READINGS`, Example 4.4).
"""

from __future__ import annotations

import heapq
from functools import lru_cache
from math import gcd, lcm
from typing import Iterator, Mapping, NamedTuple, Sequence

from ruma.engine.errors import LimitExceededError
from ruma.engine.tchoukaillon.board import Board, TchoukaillonInputError, board, board_prefix, min_stones

__all__ = [
    "LENGTH_READINGS", "Completion", "parse_constraints", "agrees", "theorem_4_5_allowable",
    "paper_reconstruction", "complete",
]

LENGTH_READINGS = ("any", "reach", "beyond")
"""How :func:`complete` counts boards. ``any``: every ``n`` (bins past the end of ``b(n)`` hold
0), the literal "agrees with" of Section 4. ``reach``: the board's length reaches the last given
bin, ``L(n) >= K - 1`` for largest beta-index ``K``. ``beyond``: some non-empty bin lies past the
last given bin, ``L(n) >= K``. Example 4.4's 18 and 214 hold for ``reach`` and ``beyond`` (not for
``any``: (1, 0) then needs 10); only ``beyond`` makes (2, 5) the smallest of the 28 pairs."""


class Completion(NamedTuple):
    """Answer of :func:`complete`: the smallest ``n`` agreeing with the given bins, or ``None``."""

    feasible: bool
    n: int | None
    board: Board | None
    modulus: int
    reading: str


def parse_constraints(text: str) -> dict[int, int]:
    """Parse ``"3=1,7=2"`` (beta-index = stones) into ``{3: 1, 7: 2}``."""
    out: dict[int, int] = {}
    for item in text.replace(";", ",").split(","):
        if not item.strip():
            continue
        left, sep, right = item.partition("=")
        try:
            i, v = int(left), int(right)
        except ValueError:
            i, v = -1, -1
        if not sep or i < 2 or v < 0:
            raise TchoukaillonInputError(
                f"cannot parse {text!r}: expected beta-index=stones items like '3=1,7=2' "
                f"with beta-index >= 2 and stones >= 0 (bad item {item.strip()!r})")
        if out.get(i, v) != v:
            raise TchoukaillonInputError(f"{text!r} gives bin beta_{i} two values")
        out[i] = v
    if not out:
        raise TchoukaillonInputError(f"no bins given in {text!r}")
    return out


def _check_constraints(constraints: Mapping[int, int]) -> dict[int, int]:
    cons = dict(constraints)
    for i, v in cons.items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 2 or not isinstance(v, int) or v < 0:
            raise TchoukaillonInputError(f"bad bin specification {cons!r}: need beta-index >= 2 "
                                         "and a non-negative stone count")
    return cons


def agrees(n: int, constraints: Mapping[int, int]) -> bool:
    """Whether ``beta_i(n) == m_i`` for every given ``i`` (bins past the board hold 0)."""
    cons = _check_constraints(constraints)
    if not cons:
        return True
    bins = board_prefix(n, max(cons) - 1).bins
    return all(bins[i - 2] == v for i, v in cons.items())


@lru_cache(maxsize=4096)
def _prime_power_divisors(i: int) -> tuple[int, ...]:
    """The proper divisors ``d > 1`` of ``i`` that are prime powers (Theorem 4.5)."""
    out = []
    for d in range(2, i // 2 + 1):
        if i % d == 0:
            p = next(f for f in range(2, d + 1) if d % f == 0)
            e = d
            while e % p == 0:
                e //= p
            if e == 1:
                out.append(d)
    return tuple(out)


def _local_contradiction(cons: Mapping[int, int]) -> bool:
    """Whether some condition (4.1) whose window lies wholly inside the given bins fails (then no
    board agrees: the conditions are necessary, Theorem 4.5), e.g. Example 4.4's beta_5, beta_6."""
    for i in cons:
        for d in _prime_power_divisors(i):
            window = range(i - d + 1, i + 1)
            if all(j in cons for j in window) and sum(cons[j] for j in window) % d:
                return True
    return False


def theorem_4_5_allowable(ms: Sequence[int]) -> bool:
    """Theorem 4.5: whether ``(m_2, ..., m_k)`` (beta-indexing, ``ms[0] = m_2``) agrees with a
    winning board: ``0 <= m_i < i`` and ``m_i + ... + m_{i-d+1} = 0 mod d`` for every proper
    prime-power divisor ``d > 1`` of ``i``."""
    m = {i: v for i, v in enumerate(ms, 2)}
    for i, v in m.items():
        if not 0 <= v < i:
            return False
        for d in _prime_power_divisors(i):
            if sum(m[j] for j in range(i - d + 1, i + 1)) % d:
                return False
    return True


def _crt(residues: Sequence[tuple[int, int]]) -> int | None:
    """Least ``n >= 0`` with ``n = r mod m`` for each ``(r, m)``, or ``None`` if inconsistent."""
    n, mod = 0, 1
    for r, m in residues:
        g = gcd(mod, m)
        if (r - n) % g:
            return None
        step = ((r - n) // g) * pow(mod // g, -1, m // g) % (m // g)
        n, mod = n + mod * step, lcm(mod, m)
        n %= mod
    return n


def paper_reconstruction(constraints: Mapping[int, int], *, max_nodes: int = 1_000_000) -> int | None:
    """The algorithm after Theorem 4.5: fill the unspecified ``m_i`` (``2 <= i <= K``) with the
    smallest values keeping (4.1) true (depth-first), then solve ``n = c_i mod i`` for the partial
    sums ``c_i`` by the Chinese Remainder Theorem. Returns that ``n`` (least residue modulo
    ``lcm(2..K)``; not always the smallest agreeing ``n``: Example 4.8) or ``None``."""
    cons = _check_constraints(constraints)
    if not cons:
        return 0
    if any(v >= i for i, v in cons.items()) or _local_contradiction(cons):
        return None
    top = max(cons)
    nodes = 0
    ms: list[int] = []

    def ok(i: int) -> bool:
        return all(sum(ms[j - 2] for j in range(i - d + 1, i + 1)) % d == 0
                   for d in _prime_power_divisors(i))

    def candidates(i: int) -> Iterator[int]:
        return iter([cons[i]] if i in cons else range(i))

    stack = [candidates(2)]  # stack[k] chooses m_{k+2}; len(ms) == len(stack) - 1 here
    while stack:
        i = len(stack) + 1
        for v in stack[-1]:
            ms.append(v)
            if ok(i):
                break
            ms.pop()
        else:  # level exhausted: backtrack to the previous level's next value
            stack.pop()
            if ms:
                ms.pop()
            continue
        if i == top:
            break
        nodes += 1
        if nodes > max_nodes:
            raise LimitExceededError(f"reconstruction of {cons!r} explored {max_nodes} nodes")
        stack.append(candidates(i + 1))
    if not stack:
        return None
    partial, c = [], 0
    for i, v in enumerate(ms, 2):
        c += v
        partial.append((c % i, i))
    return _crt(partial)


def complete(constraints: Mapping[int, int], *, length: str = "any",
             max_nodes: int = 2_000_000) -> Completion:
    """Whether a winning board agrees with the given bins (beta-indexing) and the smallest ``n``
    whose board ``b(n)`` does, under the reading ``length`` (see :data:`LENGTH_READINGS`).

    ``beta_i(n)`` depends on ``n mod lcm(2..i)`` only (Corollary 2.3) and, given
    ``n mod lcm(2..i-1)``, is ``(n - beta_2 - ... - beta_{i-1}) mod i`` (Theorem 2.1); the
    search extends residues level by level, smallest residue first (a residue bounds every
    completion from below), so the first complete answer popped is the smallest."""
    cons = _check_constraints(constraints)
    if length not in LENGTH_READINGS:
        raise TchoukaillonInputError(f"unknown reading {length!r}; expected one of {LENGTH_READINGS}")
    top = max(cons, default=1)
    lower = {"any": 0, "reach": min_stones(top - 1), "beyond": min_stones(top)}[length]
    total_mod = lcm(*range(2, top + 1)) if top >= 2 else 1
    if any(v >= i for i, v in cons.items()) or _local_contradiction(cons):
        return Completion(False, None, None, total_mod, length)
    # Heap items (key, i, r, mod, s, t): the t-th extension at level i of a residue r modulo
    # mod = lcm(2..i-1) whose bins beta_2..beta_{i-1} sum to s; key = r + t*mod, its residue,
    # a lower bound on every completion. Siblings are pushed lazily (keys grow with t), so the
    # heap stays as small as the number of residues visited. i > top marks a complete residue.
    heap: list[tuple[int, int, int, int, int, int]] = [(0, 2, 0, 1, 0, 0)]
    nodes = 0
    while heap:
        key, i, r, mod, s, t = heapq.heappop(heap)
        if i > top:  # complete: lift the residue to the smallest n >= lower
            n = r if r >= lower else r + -(-(lower - r) // mod) * mod
            if n == key:
                return Completion(True, n, board(n), total_mod, length)
            heapq.heappush(heap, (n, i, r, mod, s, t))
            continue
        nodes += 1
        if nodes > max_nodes:
            raise LimitExceededError(f"completion of {cons!r} explored {max_nodes} residues")
        new_mod = lcm(mod, i)
        if i in cons and t == 0:  # the one extension (if any) with beta_i = cons[i]
            g = gcd(mod, i)
            rhs = (cons[i] + s - r) % i
            if rhs % g:
                continue
            t = (rhs // g) * pow(mod // g, -1, i // g) % (i // g)
            key = r + t * mod
        elif i not in cons and t + 1 < new_mod // mod:
            heapq.heappush(heap, (key + mod, i, r, mod, s, t + 1))
        v = (key - s) % i
        if cons.get(i, v) == v:
            heapq.heappush(heap, (key, i + 1, key, new_mod, s + v, 0))
    return Completion(False, None, None, total_mod, length)
