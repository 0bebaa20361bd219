"""Sowing graphs (Jones–Taalman–Tongen, Section 5) and Tchoukaillon boards, drawn.

A sowing graph is laid out by distance to the nearest Ruma: Rumas in the centre, each bin on the
ring of its distance, in the angular sector of the bin it sows into — a path is a line, a star its
spokes, a cycle a line with its closing edge curved back. Rumas are squares, bins circles labelled
with their stones. Ids: ``vertex-V``, ``edge-U-V``.

A Tchoukaillon board ``b(n)`` is a row of pits with the Ruma on the left; bin ``i`` holds ``b_i``
stones and is *harvestable* (outlined) when ``b_i = i``. ``tchoukaillon_table_figure`` shows the
boards ``b(1) .. b(n)`` as rows of a grid.
"""

from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING, Sequence

from ruma.engine.errors import LimitExceededError
from ruma.engine.tchoukaillon.board import board
from ruma.engine.tchoukaillon.graphs import SowingGraph
from ruma.plot._mpl import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MAX_VERTICES = 120
MAX_BINS = 200


def _layout(graph: SowingGraph) -> dict[int, tuple[float, float]]:
    """Positions by distance to a Ruma (breadth first over reversed edges), sectors by parent."""
    into: dict[int, list[int]] = {v: [] for v in range(graph.size)}
    for a, b in sorted(graph.edges):
        into[b].append(a)
    parent: dict[int, int | None] = {r: None for r in sorted(graph.rumas)}
    level = {r: 0 for r in graph.rumas}
    queue = deque(sorted(graph.rumas))
    while queue:
        v = queue.popleft()
        for u in into[v]:
            if u not in level:
                level[u], parent[u] = level[v] + 1, v
                queue.append(u)
    children: dict[int | None, list[int]] = {}
    for v in sorted(level):
        children.setdefault(parent[v], []).append(v)
    angle: dict[int, float] = {}

    def spread(owner: int | None, low: float, high: float) -> None:
        kids = children.get(owner, [])
        step = (high - low) / max(1, len(kids))
        for i, v in enumerate(kids):
            a, b = low + i * step, low + (i + 1) * step
            angle[v] = angle[owner] if len(kids) == 1 and owner is not None else (a + b) / 2  # an only child goes straight on
            spread(v, a, b)

    spread(None, -math.pi, math.pi)
    single = len(graph.rumas) == 1
    places: dict[int, tuple[float, float]] = {}
    for v, d in level.items():
        radius = d + (0.0 if single else 0.8)
        places[v] = (radius * math.cos(angle[v]), radius * math.sin(angle[v]))
    far = max(level.values(), default=0) + 2
    lost = [v for v in range(graph.size) if v not in places]  # bins that can never reach a Ruma
    for i, v in enumerate(lost):
        theta = 2 * math.pi * i / max(1, len(lost))
        places[v] = (far * math.cos(theta), far * math.sin(theta))
    return places


def sowing_graph_figure(graph: SowingGraph, labels: Sequence[int] | None = None, *, title: str | None = None) -> Figure:
    """The sowing graph with a board's stones on its bins (``labels`` in bin order; default none)."""
    from matplotlib.patches import FancyArrowPatch

    if graph.size > MAX_VERTICES:
        raise LimitExceededError(f"a sowing graph of {graph.size} vertices is too large to draw (at most {MAX_VERTICES})")
    stones = dict(zip(graph.bins, graph.check(labels))) if labels is not None else {}
    places = _layout(graph)
    xs, ys = [p[0] for p in places.values()], [p[1] for p in places.values()]
    span_x, span_y = max(xs) - min(xs) + 2, max(ys) - min(ys) + 2
    scale = 6.0 / max(span_x, span_y)
    fig = new_figure(max(3.0, span_x * scale + 1), max(2.5, span_y * scale + 1))
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.set_axis_off()
    for a, b in sorted(graph.edges):
        (x1, y1), (x2, y2) = places[a], places[b]
        straight = abs(math.hypot(x2 - x1, y2 - y1) - 1.0) < 1e-9 and (b, a) not in graph.edges
        arrow = FancyArrowPatch((x1, y1), (x2, y2), arrowstyle="-|>", mutation_scale=12, shrinkA=14, shrinkB=14,
                                connectionstyle="arc3,rad=0.0" if straight else "arc3,rad=0.35",
                                color="#555555", linewidth=1.2, zorder=1, gid=f"edge-{a}-{b}")
        if a == b:
            arrow = FancyArrowPatch((x1, y1 + 0.05), (x1 + 0.05, y1), arrowstyle="-|>", mutation_scale=12,
                                    connectionstyle="arc3,rad=4", color="#555555", zorder=1, gid=f"edge-{a}-{b}")
        ax.add_patch(arrow)
    for v, (x, y) in sorted(places.items()):
        if v in graph.rumas:
            ax.plot([x], [y], marker="s", markersize=22, color="#f4e3c3", markeredgecolor="#8a6d3b", zorder=2,
                    gid=f"vertex-{v}")
            ax.annotate(f"R{v}", (x, y), ha="center", va="center", fontsize=9, zorder=3, gid=f"label-{v}")
        else:
            ax.plot([x], [y], marker="o", markersize=22, color="white", markeredgecolor="#1f5fbf", zorder=2,
                    gid=f"vertex-{v}")
            text = f"{v}" if v not in stones else f"{v}:{stones[v]}"
            ax.annotate(text, (x, y), ha="center", va="center", fontsize=8, zorder=3, gid=f"label-{v}")
    ax.set_xlim(min(xs) - 1, max(xs) + 1)
    ax.set_ylim(min(ys) - 1, max(ys) + 1)
    if title is None:
        title = f"sowing graph: {len(graph.bins)} bins, Rumas {sorted(graph.rumas)}"
        if labels is not None:
            title += f"; board {tuple(stones[v] for v in graph.bins)}"
    ax.set_title(title, fontsize=10)
    return fig


def tchoukaillon_figure(n: int) -> Figure:
    """The winning Tchoukaillon board ``b(n)`` as pits, the Ruma on the left (see the module doc)."""
    from matplotlib.patches import FancyBboxPatch

    bins = board(n, max_length=MAX_BINS)
    fig = new_figure(max(3.0, 0.7 * (len(bins) + 2)), 2.2)
    ax = fig.add_subplot()
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.add_patch(FancyBboxPatch((-0.45, -0.9), 0.9, 1.8, boxstyle="round,pad=0.05", facecolor="#f4e3c3",
                                edgecolor="#8a6d3b", gid="ruma"))
    ax.annotate("Ruma", (0, 0), ha="center", va="center", fontsize=8)
    for i, stones in enumerate(bins, start=1):
        harvestable = stones == i
        ax.add_patch(FancyBboxPatch((i - 0.4, -0.4), 0.8, 0.8, boxstyle="round,pad=0.05", facecolor="white",
                                    edgecolor="#c0302b" if harvestable else "#1f5fbf",
                                    linewidth=2.2 if harvestable else 1.0, gid=f"bin-{i}"))
        ax.annotate(str(stones), (i, 0), ha="center", va="center", fontsize=10, gid=f"stones-{i}")
        ax.annotate(str(i), (i, -0.75), ha="center", va="center", fontsize=7, color="#777777")
    ax.set_xlim(-0.8, len(bins) + 0.8)
    ax.set_ylim(-1.1, 1.1)
    harvest = [i for i, s in enumerate(bins, start=1) if s == i]
    ax.set_title(f"Tchoukaillon b({n}): {len(bins)} bins; harvestable (outlined red): "
                 f"{', '.join(map(str, harvest)) or 'none'}", fontsize=9)
    return fig


def tchoukaillon_table_figure(n_max: int) -> Figure:
    """The boards ``b(1) .. b(n_max)`` as the rows of a grid (stones by colour and number)."""
    if n_max < 1 or n_max > 400:
        raise LimitExceededError(f"a table of {n_max} boards: draw 1..400")
    rows = [board(n) for n in range(1, n_max + 1)]
    width = max(len(r) for r in rows)
    grid = [[float(r[i]) if i < len(r) else math.nan for i in range(width)] for r in rows]
    fig = new_figure(max(3.0, 0.3 * width + 1.5), max(2.5, 0.22 * n_max + 1))
    ax = fig.add_subplot()
    ax.imshow(grid, cmap="YlGnBu", aspect="auto", interpolation="nearest", gid="boards",
              extent=(0.5, width + 0.5, n_max + 0.5, 0.5))
    if n_max <= 40 and width <= 30:
        for n, r in enumerate(rows, start=1):
            for i, s in enumerate(r, start=1):
                ax.annotate(str(s), (i, n), ha="center", va="center", fontsize=6)
    ax.set_xlabel("bin i (1 next to the Ruma)")
    ax.set_ylabel("stones n")
    ax.set_title(f"Tchoukaillon boards b(1) .. b({n_max})", fontsize=10)
    return fig
