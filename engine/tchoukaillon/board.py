"""Tchoukaillon, the solitaire sowing game of Jones, Taalman and Tongen (*Solitaire Mancala Games
and the Chinese Remainder Theorem*, The American Mathematical Monthly 120, 2013; docs/tchoukaillon.md).

A board is a tuple ``(b_1, b_2, ..., b_L)``: ``b_i`` stones in bin ``i``, bin 1 next to the Ruma,
no trailing zeros (``L`` is the paper's length ``L(n)``). A move sows a bin holding exactly ``i``
stones (a *harvestable* bin) so that its last stone lands in the Ruma; a board is *winning* when
such moves clear it. There is exactly one winning board ``b(n)`` with ``n`` stones (Section 1.1).

Indexing: everything here uses the paper's ``b``-indexing (bin 1 next to the Ruma). The partial
boards of Section 4 (``ruma.engine.tchoukaillon.crt``) use its ``beta``-indexing
``beta_i = b_{i-1}`` (``i >= 2``).

Size: ``b(n)`` has about ``sqrt(pi * n)`` bins (``N(l) ~ l**2 / pi``), so a complete board of a
300-digit ``n`` has ~10**150 bins and cannot be written down; :func:`board` refuses boards longer
than ``max_length`` and :func:`board_prefix` gives the first bins of ``b(n)`` for any ``n`` in
time linear in the number of bins asked for. :func:`board_runs` gives the whole board exactly as
arithmetic runs in ``O(n**(1/3))`` steps (feasible up to ``n`` of ~15 digits).
"""

from __future__ import annotations

from math import isqrt
from typing import Iterator, NamedTuple, Sequence

from ruma.engine.errors import LimitExceededError, PositionError

Board = tuple[int, ...]

__all__ = [
    "Board", "BoardPrefix", "Run", "TchoukaillonInputError", "board", "board_prefix",
    "board_runs", "expand_runs", "board_length", "unplay", "boards_by_unplay", "play",
    "clearing_moves", "is_winning", "theorem_3_2_failure", "boards_of_length", "min_stones",
    "min_stones_by_unplay", "min_stones_by_sieve", "sieve", "parse_board", "estimated_length",
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


def estimated_length(n: int) -> int:
    """``isqrt(pi * n)`` rounded down, the leading term of ``L(n)`` (Betten; Broline-Loeb)."""
    _check_count(n)
    return isqrt(n * 314159265358979 // 100000000000000)
