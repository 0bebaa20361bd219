"""The order of a parallel sweep: cells of positions that can be valued independently.

Valuing two positions on two workers duplicates work when they share followers that neither has
yet. A sweep therefore groups the classes of a family into **cells** by a *potential* that no
move increases, and schedules a cell only once every cell that may hold one of its followers is
done. Values are exact whatever the order; the order only decides how much work is duplicated.

A potential is a tuple of *levels*, each a pair of ints. Level 0 is ``(seeds, pots)`` (or
``(seeds, reach width)``) and never grows; on the deeper levels the pairs never shrink. For a
follower ``Y`` of ``X`` (every component of every option) ``cell(Y) == cell(X)`` or
``precedes(cell(Y), cell(X))``: at the first level where they differ, ``Y``'s pair is ``<=`` (level
0) or ``>=`` (deeper levels) ``X``'s in both coordinates. Pairs are sorted, so a position and its
mirror image have one cell. ``tests/engine/test_sweep_order.py`` checks the property on random positions.

The potential is the ruleset's (``Ruleset.sweep_cell``; ``sweep_cell_of`` for a whole family):
``((seeds, pots),)`` from ``Ruleset.size`` by default, sound for every game whose moves never add
seeds or pots; Sowing's looks into the end pots and the gaps inside them (rule P1 of
``ruma.engine.rulesets.sowing``), Atomic Wari's measures the reach of its seeds (P1 of
``ruma.engine.rulesets.atomic_wari``).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from typing import Any, Iterable, Sequence

from ruma.engine.rulesets.base import Cell, Pair, Ruleset, State

__all__ = ["Cell", "cell", "precedes", "order_key", "CellScheduler"]


def cell(rules: Ruleset, state: State) -> Cell:
    """The potential of a canonical ``state`` (``Ruleset.sweep_cell``)."""
    return rules.sweep_cell(state)


def _pair_precedes(level: int, y: Pair, x: Pair) -> bool:
    if level == 0:
        return y[0] <= x[0] and y[1] <= x[1]
    return y[0] >= x[0] and y[1] >= x[1]


def precedes(y: Cell, x: Cell) -> bool:
    """Whether cell ``y`` must be valued before cell ``x`` (it may hold followers of ``x``)."""
    for level, (p, q) in enumerate(zip(y, x)):
        if p != q:
            return _pair_precedes(level, p, q)
    return False  # equal, or one a prefix of the other: no move relates them


def order_key(c: Cell) -> tuple[int, ...]:
    """A sort key that lists every cell after all the cells that precede it."""
    out: list[int] = [c[0][0], c[0][1]]
    for p in c[1:]:
        out += (-p[0], -p[1])
    return tuple(out)


class CellScheduler:
    """Hands out batches of cells whose preceding cells are all done.

    The cells form a tree by their prefixes of levels; a node (a prefix) is *released* when its
    parent is released and every sibling subtree that precedes it is finished; a cell is ready
    when its own node is released. ``take(target)`` returns ready cells, earliest in
    ``order_key`` order first, holding about ``target`` states; ``finish(cells)`` marks them done
    and releases what they were blocking. Each call costs time in proportion to what changes,
    not to the number of cells.
    """

    def __init__(self, cells: dict[Cell, list[State]]) -> None:
        self.cells = cells
        self.order = sorted(cells, key=order_key)  # every cell, each after the cells preceding it
        self._next = 0  # order[:_next] are all taken
        self.rank = {c: i for i, c in enumerate(self.order)}
        self.unfinished: dict[Cell, int] = defaultdict(int)  # node -> unfinished cells below it
        children: dict[Cell, set[Pair]] = defaultdict(set)
        for c in cells:
            for k in range(len(c)):
                self.unfinished[c[: k + 1]] += 1
                children[c[:k]].add(c[k])
        self.children = children
        self.blocks: dict[Cell, list[Cell]] = defaultdict(list)  # node -> later siblings it blocks
        self.waiting: dict[Cell, int] = {}  # node -> unfinished sibling subtrees that precede it
        for parent, pairs in children.items():
            level = len(parent)
            for mine in pairs:
                node = parent + (mine,)
                count = 0
                for other in pairs:
                    if other != mine and _pair_precedes(level, other, mine):
                        self.blocks[parent + (other,)].append(node)
                        count += 1
                self.waiting[node] = count
        self.released: set[Cell] = {()}
        self.taken: set[Cell] = set()  # cells handed out in a batch
        self._journal: list[tuple[str, Cell]] | None = None  # tentative changes while a batch is built
        self.ready: list[tuple[int, Cell]] = []
        self.handed = 0
        self._release_children(())

    def _release_children(self, node: Cell) -> None:
        stack = [node]
        while stack:
            parent = stack.pop()
            for pair in self.children.get(parent, ()):
                child = parent + (pair,)
                if child not in self.released and self.waiting[child] == 0:
                    self._release(child)
                    stack.append(child)

    def take(self, target: int) -> list[Cell]:
        """A batch of cells holding about ``target`` states (empty: nothing is ready now).

        One worker values a batch in order, so a cell may join the batch once its preceding
        cells are done *or earlier in the batch*: the batch is built by finishing each cell taken
        tentatively, and every tentative change is undone afterwards (the cells are released to
        other batches only when ``finish`` reports them done).
        """
        journal: list[tuple[str, Cell]] = []
        self._journal = journal
        batch: list[Cell] = []
        size = 0
        try:
            while self.ready and size < target:
                _, c = heapq.heappop(self.ready)
                batch.append(c)
                self.taken.add(c)
                size += len(self.cells[c])
                self.finish([c])
        finally:
            self._journal = None
        pushed: set[Cell] = set()
        for kind, node in reversed(journal):
            if kind == "u":
                self.unfinished[node] += 1
            elif kind == "w":
                self.waiting[node] += 1
            elif kind == "r":
                self.released.discard(node)
            else:
                pushed.add(node)
        if pushed:
            self.ready = [item for item in self.ready if item[1] not in pushed]
            heapq.heapify(self.ready)
        self.handed += len(batch)
        return batch

    def take_blocked(self, target: int) -> list[Cell]:
        """A batch of the earliest cells not yet handed out, ready or not, holding about ``target``
        states: for a worker that would otherwise idle. Its worker values the followers that
        the unfinished preceding cells would have given it (duplicated work, but on a core that
        had nothing to do); values are exact in any order. The cells still count as blocking
        their successors until ``finish``."""
        order, taken, cells = self.order, self.taken, self.cells
        batch: list[Cell] = []
        size = 0
        while self._next < len(order) and size < target:
            c = order[self._next]
            self._next += 1
            if c in taken:
                continue
            taken.add(c)
            batch.append(c)
            size += len(cells[c])
        if batch:
            chosen = set(batch)
            if any(c in chosen for _, c in self.ready):
                self.ready = [item for item in self.ready if item[1] not in chosen]
                heapq.heapify(self.ready)
        self.handed += len(batch)
        return batch

    def finish(self, batch: Iterable[Cell]) -> None:
        """Mark the cells of a batch done and release the cells they were blocking."""
        journal = self._journal
        for c in batch:
            for k in range(len(c), 0, -1):
                node = c[:k]
                self.unfinished[node] -= 1
                if journal is not None:
                    journal.append(("u", node))
                if self.unfinished[node]:
                    continue
                for blocked in self.blocks.get(node, ()):
                    self.waiting[blocked] -= 1
                    if journal is not None:
                        journal.append(("w", blocked))
                    if self.waiting[blocked] == 0 and blocked[:-1] in self.released and blocked not in self.released:
                        self._release(blocked)
                        self._release_children(blocked)

    def _release(self, node: Cell) -> None:
        self.released.add(node)
        if self._journal is not None:
            self._journal.append(("r", node))
        if node in self.cells and node not in self.taken:
            heapq.heappush(self.ready, (self.rank[node], node))
            if self._journal is not None:
                self._journal.append(("h", node))

    def __bool__(self) -> bool:
        """Whether cells remain to be handed out (ready now or later)."""
        return self.handed < len(self.cells)


def group(rules: Ruleset, states: Sequence[State]) -> dict[Cell, list[State]]:
    """The states by cell (each cell's states in the given order)."""
    native: Any = getattr(type(rules), "native", None)
    if hasattr(native, "cells") and rules.native_cells():
        grouped = native.cells(states)  # (the same cells, in C: engine/native/classes.c)
        if grouped is not None:
            return grouped  # type: ignore[no-any-return]
    cells: dict[Cell, list[State]] = defaultdict(list)
    cell_of = rules.sweep_cell_of()
    for state in states:
        cells[cell_of(state)].append(state)
    return dict(cells)
