"""Tchoukaillon on sowing graphs (Definition 5.1 of Jones-Taalman-Tongen, Section 5).

A sowing graph is ``(V, E, R)``: directed edges ``E`` and Ruma nodes ``R``. A board labels the
non-Ruma vertices (the *bins*, in increasing vertex order) with stone counts. A sowing move picks
a bin ``v`` holding ``L > 0`` stones and a directed walk ``v = w_0, w_1, ..., w_L`` of ``L`` edges
ending at a Ruma node; it empties ``v`` and adds one stone to each of ``w_1 .. w_L`` (Rumas only
collect). Walks, not simple paths: the sowing may wrap around a cycle and drop stones back into
``v`` or pass through a Ruma (Example 5.4 and the proof of Theorem 5.2 need this). A board is
winning when such moves empty every bin.

Unplaying (proof of Theorem 5.2) inverts one move; the winning boards are the boards reached by
unplaying from the empty board. Every move puts at least one stone into a Ruma, so the stones on
the bins strictly decrease and forward search always terminates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from ruma.engine.errors import LimitExceededError
from ruma.engine.tchoukaillon.board import TchoukaillonInputError

Labels = tuple[int, ...]

__all__ = [
    "SowingGraph", "SowingGraphError", "path_graph", "cycle_graph", "star_graph", "sowing_moves",
    "unplay_moves", "winning_boards", "is_winning", "theorem_5_2_finite", "game_graph_finite",
    "has_ruma_only_cycle", "unplay_path", "parse_sowing_graph",
]


class SowingGraphError(TchoukaillonInputError):
    """A sowing graph or board that is not meaningful (unknown vertices, wrong board size...)."""


@dataclass(frozen=True)
class SowingGraph:
    """Vertices ``0 .. size-1``, directed ``edges`` and the Ruma nodes ``rumas``."""

    size: int
    edges: frozenset[tuple[int, int]]
    rumas: frozenset[int]
    bins: tuple[int, ...] = field(init=False)
    succ: tuple[tuple[int, ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.size < 1 or any(not (0 <= a < self.size and 0 <= b < self.size)
                                for a, b in self.edges) or not self.rumas <= set(range(self.size)):
            raise SowingGraphError(f"bad sowing graph: {self.size} vertices, edges "
                                   f"{sorted(self.edges)!r}, rumas {sorted(self.rumas)!r}")
        object.__setattr__(self, "bins", tuple(v for v in range(self.size) if v not in self.rumas))
        object.__setattr__(self, "succ", tuple(tuple(sorted(b for a, b in self.edges if a == v))
                                               for v in range(self.size)))

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[int, int]], rumas: Iterable[int],
                   size: int | None = None) -> SowingGraph:
        """Build from an edge list; ``size`` defaults to one more than the largest vertex."""
        edge_set = frozenset((int(a), int(b)) for a, b in edges)
        ruma_set = frozenset(int(r) for r in rumas)
        top = max([v for e in edge_set for v in e] + list(ruma_set) + [0])
        return cls(top + 1 if size is None else size, edge_set, ruma_set)

    def zero(self) -> Labels:
        """The empty board."""
        return (0,) * len(self.bins)

    def check(self, board: Iterable[int]) -> Labels:
        """Validate a board (one non-negative label per bin)."""
        labels = tuple(board)
        if len(labels) != len(self.bins) or any(not isinstance(x, int) or x < 0 for x in labels):
            raise SowingGraphError(f"board {labels!r} needs {len(self.bins)} non-negative labels")
        return labels


def parse_sowing_graph(text: str, rumas: str = "0") -> SowingGraph:
    """A graph from text: ``path:L``, ``cycle:N``, ``star:SxL``, or directed edges ``'u>v,...'``
    with the Ruma vertices ``rumas`` (``'r,...'``); ``SowingGraphError`` quotes text that does not read."""
    spec = text.replace(" ", "")
    kind, _, arg = spec.partition(":")
    try:
        if kind == "path":
            return path_graph(int(arg))
        if kind == "cycle":
            return cycle_graph(int(arg))
        if kind == "star":
            spokes, _, length = arg.partition("x")
            return star_graph(int(spokes), int(length))
    except ValueError:
        raise SowingGraphError(f"cannot read the graph {text!r}: expected path:L, cycle:N or star:SxL") from None
    edges = []
    for item in spec.split(","):
        a, sep, b = item.partition(">")
        if not (sep and a.isdigit() and b.isdigit()):
            raise SowingGraphError(f"cannot read the graph {text!r}: expected path:L, cycle:N, star:SxL or "
                                   f"edges 'u>v,...' (bad item {item!r})")
        edges.append((int(a), int(b)))
    ruma_items = rumas.replace(" ", "").split(",")
    if not all(r.isdigit() for r in ruma_items):
        raise SowingGraphError(f"cannot read the Ruma nodes {rumas!r}: expected 'r,...'")
    return SowingGraph.from_edges(edges, [int(r) for r in ruma_items])


def path_graph(length: int) -> SowingGraph:
    """Ordinary Tchoukaillon on ``length`` bins: Ruma 0, bin ``i`` sows into ``i - 1``."""
    return SowingGraph(length + 1, frozenset((i, i - 1) for i in range(1, length + 1)),
                       frozenset({0}))


def cycle_graph(size: int) -> SowingGraph:
    """Example 5.4: a directed ``size``-cycle ``size-1 -> ... -> 1 -> 0 -> size-1``, Ruma 0."""
    edges = {(i, i - 1) for i in range(1, size)} | {(0, size - 1)}
    return SowingGraph(size, frozenset(edges), frozenset({0}))


def star_graph(spokes: int, length: int) -> SowingGraph:
    """Example 5.3: ``spokes`` paths of ``length`` bins sowing into a central Ruma 0."""
    edges = set()
    for s in range(spokes):
        ids = [0] + [1 + s * length + k for k in range(length)]
        edges |= {(ids[k], ids[k - 1]) for k in range(1, length + 1)}
    return SowingGraph(1 + spokes * length, frozenset(edges), frozenset({0}))


def _walk_table(graph: SowingGraph, cap: Labels | None) -> Callable[[int, int], set[Labels]]:
    """``table(u, k)``: visit counts (per bin, of ``w_1 .. w_k``) of the walks of ``k`` edges
    from ``u`` ending at a Ruma; with ``cap``, only counts bounded by it componentwise (counts only
    grow along a walk, so pruning early is exact)."""
    index = {v: k for k, v in enumerate(graph.bins)}
    zero = graph.zero()
    memo: dict[tuple[int, int], set[Labels]] = {}

    def table(u: int, k: int) -> set[Labels]:
        if k == 0:
            return {zero} if u in graph.rumas else set()
        got = memo.get((u, k))
        if got is not None:
            return got
        out: set[Labels] = set()
        for w in graph.succ[u]:
            for c in table(w, k - 1):
                if w in index:
                    j = index[w]
                    if cap is not None and c[j] >= cap[j]:
                        continue
                    c = c[:j] + (c[j] + 1,) + c[j + 1:]
                out.add(c)
        memo[u, k] = out
        return out

    return table


def sowing_moves(graph: SowingGraph, board: Iterable[int]) -> set[Labels]:
    """The boards one sowing move away from ``board``."""
    b = graph.check(board)
    out: set[Labels] = set()
    for j, v in enumerate(graph.bins):
        if b[j]:
            for c in _walk_table(graph, None)(v, b[j]):
                out.add(tuple((0 if k == j else x) + c[k] for k, x in enumerate(b)))
    return out


def has_ruma_only_cycle(graph: SowingGraph) -> bool:
    """Whether a directed cycle through Ruma nodes only is reachable from a bin (a bin sowing into
    it can then hold any number of stones: infinitely many winning boards)."""
    ruma_only = SowingGraph(graph.size, frozenset((a, b) for a, b in graph.edges
                                                  if a in graph.rumas and b in graph.rumas),
                            graph.rumas)
    inner = _reachability(ruma_only)
    reach = _reachability(graph)
    return any(r in inner[r] and any(r in reach[v] for v in graph.bins) for r in graph.rumas)


def unplay_moves(graph: SowingGraph, board: Iterable[int]) -> set[Labels]:
    """The boards from which one sowing move reaches ``board`` (the unplays of Theorem 5.2).

    Walks the sowing backwards from a Ruma: a bin with stones left gives one back (an
    intermediate vertex of the walk); a bin with none left is where the sowing started, and gets
    every stone collected (the walk's length); Rumas are passed freely."""
    b = graph.check(board)
    if has_ruma_only_cycle(graph):
        raise LimitExceededError(f"board {b!r}: a cycle of Ruma nodes gives infinitely many unplays")
    index = {v: k for k, v in enumerate(graph.bins)}
    pred: list[list[int]] = [[] for _ in range(graph.size)]
    for a, c in graph.edges:
        pred[c].append(a)
    reach = _reachability(graph)
    useful = set(graph.bins).union(*(reach[v] for v in graph.bins))  # no Ruma-only loops here
    out: set[Labels] = set()
    stack = [(r, b, 0) for r in graph.rumas]
    seen = set(stack)
    while stack:
        u, rem, steps = stack.pop()
        for w in pred[u]:
            j = index.get(w)
            if j is not None and rem[j] == 0:
                out.add(rem[:j] + (steps + 1,) + rem[j + 1:])
                continue
            if w not in useful:
                continue
            nxt = (w, rem if j is None else rem[:j] + (rem[j] - 1,) + rem[j + 1:], steps + 1)
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return out


def winning_boards(graph: SowingGraph, *, max_stones: int | None = None,
                   max_boards: int = 100_000) -> frozenset[Labels]:
    """Every winning board (with at most ``max_stones`` stones, if given), by unplaying from the
    empty board in all possible ways. An unplay adds at least one stone, so the bound is exact.

    Raises :class:`LimitExceededError` beyond ``max_boards`` boards (an infinite game graph,
    Theorem 5.2, always ends this way unless ``max_stones`` is given)."""
    seen = {graph.zero()}
    frontier = [graph.zero()]
    while frontier:
        nxt = []
        for b in frontier:
            for p in unplay_moves(graph, b):
                if p not in seen and (max_stones is None or sum(p) <= max_stones):
                    seen.add(p)
                    nxt.append(p)
                    if len(seen) > max_boards:
                        raise LimitExceededError(f"more than {max_boards} winning boards")
        frontier = nxt
    return frozenset(seen)


def is_winning(graph: SowingGraph, board: Iterable[int], *, max_states: int = 1_000_000) -> bool:
    """Whether ``board`` can be emptied, by forward search over sowing moves (independent of
    unplaying)."""
    start = graph.check(board)
    zero = graph.zero()
    seen: set[Labels] = set()
    stack = [start]
    while stack:
        b = stack.pop()
        if b == zero:
            return True
        if b in seen:
            continue
        seen.add(b)
        if len(seen) > max_states:
            raise LimitExceededError(f"board {start!r}: more than {max_states} states searched")
        stack.extend(sowing_moves(graph, b))
    return False


def _reachability(graph: SowingGraph) -> list[set[int]]:
    reach: list[set[int]] = []
    for v in range(graph.size):
        seen: set[int] = set()
        stack = list(graph.succ[v])
        while stack:
            u = stack.pop()
            if u not in seen:
                seen.add(u)
                stack.extend(graph.succ[u])
        reach.append(seen)
    return reach


def theorem_5_2_finite(graph: SowingGraph) -> bool:
    """Theorem 5.2's test: finitely many winning boards iff no directed cycle contains both a
    Ruma and a non-Ruma vertex (checked on strongly connected components: a component with both
    kinds always has a simple cycle through both)."""
    reach = _reachability(graph)
    return not any(r in reach[v] and v in reach[r] for r in graph.rumas for v in graph.bins)


def game_graph_finite(graph: SowingGraph) -> bool:
    """Finitely many winning boards iff no directed cycle (of any kind) lies on a walk from a bin
    to a Ruma. Without one, every sowing walk is a simple path, so every label is bounded; with
    one, the sowing walks can go round it. This corrects Theorem 5.2 for walks: a cycle of Ruma
    nodes only, or of bins only, also gives infinitely many boards (docs/discrepancies.md); it
    agrees with the unplay enumeration on every small graph of the tests."""
    reach = _reachability(graph)
    for c in range(graph.size):
        if c in reach[c] and any(r in reach[c] or r == c for r in graph.rumas) \
                and any(c in reach[v] or c == v for v in graph.bins):
            return False
    return True


def unplay_path(graph: SowingGraph, count: int) -> list[Labels]:
    """The first ``count`` boards from the empty board when every board has exactly one unplay
    (Tchoukaillon, and the cycle of Example 5.4 / Figure 6); raises if some board has another."""
    out = [graph.zero()]
    while len(out) < count:
        ups = unplay_moves(graph, out[-1])
        if len(ups) != 1:
            raise SowingGraphError(f"board {out[-1]!r} has {len(ups)} unplays, not one")
        out.append(ups.pop())
    return out
