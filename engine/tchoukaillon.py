"""Tchoukaillon, the solitaire sowing game of Jones, Taalman and Tongen (seed paper in
``/work/shared/seeds/jones-taalman-tongen-tchoukaillon-crt.md``).

A board is a tuple ``(b_1, b_2, ..., b_L)``: ``b_i`` stones in bin ``i``, bin 1 next to the Ruma,
no trailing zeros (``L`` is the paper's length ``L(n)``). A move sows a bin holding exactly ``i``
stones (a *harvestable* bin) so that its last stone lands in the Ruma; a board is *winning* when
such moves clear it. There is exactly one winning board ``b(n)`` with ``n`` stones (Section 1.1).

Indexing: everything here uses the paper's ``b``-indexing (bin 1 next to the Ruma) except the
partial-reconstruction functions of Section 4 (:func:`complete`, :func:`paper_reconstruction`,
:func:`theorem_4_5_allowable`), which use the paper's ``beta``-indexing ``beta_i = b_{i-1}``
(``i >= 2``), as Section 4 does.

Size: ``b(n)`` has about ``sqrt(pi * n)`` bins (``N(l) ~ l**2 / pi``), so a complete board of a
300-digit ``n`` has ~10**150 bins and cannot be written down; :func:`board` refuses boards longer
than ``max_length`` and :func:`board_prefix` gives the first bins of ``b(n)`` for any ``n`` in
time linear in the number of bins asked for. :func:`board_runs` gives the whole board exactly as
arithmetic runs in ``O(n**(1/3))`` steps (feasible up to ``n`` of ~15 digits).
"""

from __future__ import annotations

import heapq
from functools import lru_cache
from math import gcd, isqrt, lcm
from typing import Iterator, Mapping, NamedTuple, Sequence

from ruma.engine.errors import LimitExceededError, PositionError

Board = tuple[int, ...]

__all__ = [
    "Board", "BoardPrefix", "Run", "Completion", "TchoukaillonInputError", "board", "board_prefix",
    "board_runs", "expand_runs", "board_length", "unplay", "boards_by_unplay", "play",
    "clearing_moves", "is_winning", "theorem_3_2_failure", "boards_of_length", "min_stones",
    "min_stones_by_unplay", "min_stones_by_sieve", "sieve", "parse_board", "parse_constraints",
    "theorem_4_5_allowable", "paper_reconstruction", "complete", "agrees", "LENGTH_READINGS",
    "estimated_length",
]


class TchoukaillonInputError(PositionError):
    """A Tchoukaillon board, stone count or bin specification that is not meaningful."""


class BoardPrefix(NamedTuple):
    """The first bins of ``b(n)`` and the stones still in hand (Theorem 2.1's reverse sowing).

    ``in_hand`` is a multiple of ``len(bins) + 1``; it is 0 exactly when ``bins`` (with trailing
    zeros removed) is the whole board."""

    bins: Board
    in_hand: int


class Run(NamedTuple):
    """Bins ``start .. start + size - 1`` hold ``first, first + step, ...`` stones."""

    start: int
    first: int
    step: int
    size: int


def _check_count(n: object, what: str = "stone count") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise TchoukaillonInputError(f"{what} must be a non-negative integer, got {n!r}")
    return n


def _trim(bins: Sequence[int]) -> Board:
    end = len(bins)
    while end and bins[end - 1] == 0:
        end -= 1
    return tuple(bins[:end])


def board_prefix(n: int, bins: int) -> BoardPrefix:
    """``(b_1(n), ..., b_bins(n))`` by Theorem 2.1, for any ``n`` (hundreds of digits are fine).

    Reverse sowing: with ``r`` stones in hand, bin ``i`` gets ``r mod (i+1)``."""
    _check_count(n)
    _check_count(bins, "number of bins")
    out: list[int] = []
    r = n
    for i in range(1, bins + 1):
        if r == 0:
            out.extend([0] * (bins - i + 1))
            break
        x = r % (i + 1)
        out.append(x)
        r -= x
    return BoardPrefix(tuple(out), r)


def board(n: int, *, max_length: int = 1_000_000) -> Board:
    """The unique winning board ``b(n)`` (Theorem 2.1), trailing zeros removed.

    Raises :class:`LimitExceededError` when ``b(n)`` has more than ``max_length`` bins (about
    ``sqrt(pi * n)``); use :func:`board_prefix` or :func:`board_runs` for such ``n``."""
    _check_count(n)
    out: list[int] = []
    r, i = n, 1
    while r:
        if i > max_length:
            raise LimitExceededError(
                f"b({n}) has more than {max_length} bins (about sqrt(pi*n)); ask for its "
                "first bins instead (board_prefix; --bins on the command line)")
        x = r % (i + 1)
        out.append(x)
        r -= x
        i += 1
    return _trim(out)


def board_runs(n: int, *, max_runs: int = 2_000_000) -> tuple[Run, ...]:
    """``b(n)`` as maximal arithmetic runs, exactly, in ``O(n**(1/3))`` steps.

    With ``q = r / (i+1)`` (stones in hand after bin ``i``, divided by ``i+1``) and
    ``a = ceil(q / (i+2))``, bin ``i+1`` gets ``a*(i+2) - q`` and ``q`` drops by ``a``; while ``a``
    stays the same the bins grow by ``2a`` per bin, so each value of ``a`` is one run."""
    _check_count(n)
    runs: list[Run] = []
    q, i = n, 0  # q = r / (i + 1); r_0 = n
    while q:
        if len(runs) >= max_runs:
            raise LimitExceededError(f"b({n}) has more than {max_runs} arithmetic runs")
        m = i + 2
        a = -(-q // m)
        t = a * m - q
        count = -(-(m - t) // (2 * a - 1))
        runs.append(Run(i + 1, t, 2 * a, count))
        q -= a * count
        i += count
    return tuple(runs)


def expand_runs(runs: Sequence[Run]) -> Board:
    """The board written out from :func:`board_runs` (trailing zeros removed)."""
    out: list[int] = []
    for run in runs:
        out.extend(run.first + k * run.step for k in range(run.size))
    return _trim(out)


def board_length(n: int) -> int:
    """``L(n)``, the length of ``b(n)``, from :func:`board_runs` (the last bin is never empty)."""
    runs = board_runs(n)
    return runs[-1].start + runs[-1].size - 1 if runs else 0


def parse_board(text: str) -> Board:
    """Parse ``"1,2,0,2,4,6"``, ``"(1 2 0 2 4 6)"`` or ``"[1, 2]"`` into a board (b-indexing)."""
    body = text.strip().strip("()[]").replace(",", " ").split()
    try:
        values = tuple(int(tok) for tok in body)
    except ValueError:
        raise TchoukaillonInputError(f"cannot parse board {text!r}: expected integers") from None
    if any(v < 0 for v in values):
        raise TchoukaillonInputError(f"board {text!r} has a negative bin")
    return _trim(values)


def _check_board(bins: Sequence[int]) -> Board:
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in bins):
        raise TchoukaillonInputError(f"board {tuple(bins)!r} must hold non-negative integers")
    return _trim(tuple(bins))


def unplay(bins: Sequence[int]) -> Board:
    """One unmove, Equation (1.1): ``b(n) -> b(n+1)`` (input assumed winning, not checked)."""
    b = list(_check_board(bins)) + [0]
    p = b.index(0)
    for j in range(p):
        b[j] -= 1
    b[p] = p + 1
    return _trim(b)


def boards_by_unplay(count: int) -> Iterator[Board]:
    """``b(0), b(1), ..., b(count - 1)`` by repeated unplaying from the empty board."""
    _check_count(count, "count")
    b: list[int] = [0]
    for _ in range(count):
        yield _trim(b)
        p = b.index(0)
        for j in range(p):
            b[j] -= 1
        b[p] = p + 1
        if b[-1]:
            b.append(0)


def play(bins: Sequence[int], i: int) -> Board:
    """Sow bin ``i`` (1-based) toward the Ruma; it must be harvestable (``b_i == i``)."""
    b = list(_check_board(bins))
    if not 1 <= i <= len(b) or b[i - 1] != i:
        raise TchoukaillonInputError(f"bin {i} of {tuple(b)!r} is not harvestable")
    b[i - 1] = 0
    for j in range(i - 1):
        b[j] += 1
    return _trim(b)


def clearing_moves(bins: Sequence[int], *, max_moves: int = 10_000_000) -> tuple[int, ...] | None:
    """The bins sown to clear the board, by actual play (always the harvestable bin closest to
    the Ruma, the only strategy that can win, Section 1.1); ``None`` if the board is not winning."""
    b = list(_check_board(bins))
    if sum(b) > max_moves:
        raise LimitExceededError(f"board {tuple(b)!r} needs more than {max_moves} moves")
    moves: list[int] = []
    while any(b):
        i = next((k for k, v in enumerate(b, 1) if v == k), 0)
        if i == 0:
            return None
        b[i - 1] = 0
        for j in range(i - 1):
            b[j] += 1
        moves.append(i)
    return tuple(moves)


def theorem_3_2_failure(bins: Sequence[int]) -> int | None:
    """The first bin ``i`` violating Theorem 3.2 (``b_i <= i`` and ``b_i + ... + b_k = 0 mod i``),
    or ``None`` when the board is winning."""
    b = _check_board(bins)
    suffix = sum(b)
    for i, v in enumerate(b, 1):
        if v > i or suffix % i:
            return i
        suffix -= v
    return None


def is_winning(bins: Sequence[int]) -> bool:
    """Theorem 3.2: whether the board can be cleared."""
    return theorem_3_2_failure(bins) is None


def boards_of_length(length: int, *, max_length: int = 5_000) -> Iterator[Board]:
    """Every winning board of length ``length`` (Theorem 3.2 from the last bin leftwards: ``b_l =
    l``, then each ``b_i`` is the one or two values in ``0..i`` making the suffix sum ``0 mod i``),
    in increasing order of stones. There are ``N(l+1) - N(l)`` of them (``2l/pi`` on average);
    lengths above ``max_length`` are refused (the boards take ``l**2`` memory)."""
    _check_count(length, "length")
    if length > max_length:
        raise LimitExceededError(f"boards of length {length}: more than {max_length} bins")
    if length == 0:
        yield ()
        return
    Node = tuple[int, object]  # (b_i, node of b_{i+1}) -- a shared linked list
    found: list[Board] = []
    stack: list[tuple[int, int, Node]] = [(length - 1, length, (length, None))]
    while stack:
        i, suffix, node = stack.pop()
        if i == 0:
            values: list[int] = []
            link: object = node
            while isinstance(link, tuple):
                values.append(link[0])
                link = link[1]
            found.append(tuple(values))
            continue
        for v in range((-suffix) % i, i + 1, i):
            stack.append((i - 1, suffix + v, (v, node)))
    found.sort(key=sum)
    yield from found


def min_stones(length: int) -> int:
    """``N(l)`` by Theorem 3.5: start at ``l``, round up to a multiple of ``l-1``, ..., ``1``."""
    _check_count(length, "length")
    x = length
    for i in range(length - 1, 0, -1):
        x = -(-x // i) * i
    return x


def min_stones_by_unplay(max_length: int) -> list[int]:
    """``[N(1), ..., N(max_length)]`` by unplaying from the empty board and noting each length
    increase (``N(l) = min{n : L(n) = l}``)."""
    _check_count(max_length, "length")
    out: list[int] = []
    b: list[int] = [0]
    n = 0
    while len(out) < max_length:
        p = b.index(0)
        for j in range(p):
            b[j] -= 1
        b[p] = p + 1
        n += 1
        if p == len(b) - 1:
            out.append(n)
            b.append(0)
    return out


def sieve(k: int, limit: int) -> list[int]:
    """``S^(k)`` of Theorem 3.7 restricted to ``1..limit``: start from ``1, 2, 3, ...`` and, for
    ``j = 1 .. k-1``, delete the elements in positions ``1, j+2, 2(j+1)+1, ...`` (every
    ``(j+1)``-th starting with the first). Truncation is exact: deletions go by position."""
    _check_count(k, "sieve step")
    values = list(range(1, limit + 1))
    for j in range(1, k):
        del values[:: j + 1]
    return values


def min_stones_by_sieve(max_length: int) -> list[int]:
    """``[N(1), ..., N(max_length)]`` as ``S_1^(l)`` of the sieve of Theorem 3.7."""
    _check_count(max_length, "length")
    limit = max(2, max_length) ** 2
    while True:
        values = list(range(1, limit + 1))
        out: list[int] = []
        for j in range(1, max_length + 1):
            if not values:
                break
            out.append(values[0])
            del values[:: j + 1]
        if len(out) == max_length:
            return out
        limit *= 2


# ----------------------------------------------------------------------------------------------
# Section 4: partial boards, beta-indexing (beta_i = b_{i-1}, i >= 2)

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


def estimated_length(n: int) -> int:
    """``isqrt(pi * n)`` rounded down, the leading term of ``L(n)`` (Betten; Broline-Loeb)."""
    _check_count(n)
    return isqrt(n * 314159265358979 // 100000000000000)

