"""The game tree of a small position to a chosen depth, every node with its exact value.

``game_tree(ruleset, position, depth)`` lists the nodes (computed with the engine through one
in-memory memo, so transpositions cost nothing); ``tree_figure`` draws them top-down, Left's moves
in blue to the left of Right's in red, a move drawn thick when it wins for the player who makes it
(a Left move to ``G^L >= 0``, a Right move to ``G^R <= 0``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ruma.engine.cgt import ZERO, as_game
from ruma.engine.cgt.notation import format_game
from ruma.engine.errors import LimitExceededError, RumaInputError
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.plot._mpl import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: the most nodes a tree may have (a picture of more is unreadable)
MAX_NODES = 400
MAX_DEPTH = 8


@dataclass
class TreeNode:
    """One position of the tree: the move that reached it (``side`` L or R), its value."""

    position: str
    value: str
    side: str  # "" for the root, else "L" or "R"
    winning: bool  # the move that reached it wins for the player who made it
    depth: int
    children: list[TreeNode] = field(default_factory=list)

    def walk(self) -> list[TreeNode]:
        """This node and its descendants, depth first."""
        out = [self]
        for child in self.children:
            out += child.walk()
        return out


def game_tree(ruleset: str, position: str, depth: int = 2, *, max_nodes: int = MAX_NODES) -> TreeNode:
    """The tree of ``position`` to ``depth`` moves, valued exactly (raises beyond ``max_nodes``)."""
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        raise RumaInputError(f"depth {depth!r}: need 0..{MAX_DEPTH}")
    rules = get_ruleset(ruleset)
    memo = InMemoryMemo()
    count = 0

    def node(state: tuple[int, ...], side: str, level: int) -> TreeNode:
        nonlocal count
        count += 1
        if count > max_nodes:
            raise LimitExceededError(f"the tree of {position!r} to depth {depth} has more than {max_nodes} nodes; "
                                     "ask for a smaller depth")
        g = as_game(evaluate(rules, state, memo).value)
        winning = (side == "L" and g >= ZERO) or (side == "R" and g <= ZERO)
        here = TreeNode(rules.format(state), format_game(g, "unicode"), side, winning, level)
        if level < depth:
            if rules.impartial:
                moves = [("L", s) for s in rules.options(state)]
            else:
                moves = [("L", s) for s in rules.left_options(state)] + [("R", s) for s in rules.right_options(state)]
            here.children = [node(s, who, level + 1) for who, s in moves]
        return here

    return node(rules.parse(position), "", 0)


def _layout(root: TreeNode) -> dict[int, tuple[float, float]]:
    """x (leaves at 0, 1, 2 ... in order; parents centred over their children) and y = -depth."""
    places: dict[int, tuple[float, float]] = {}
    next_leaf = 0.0

    def place(n: TreeNode) -> float:
        nonlocal next_leaf
        if not n.children:
            x = next_leaf
            next_leaf += 1
        else:
            xs = [place(c) for c in n.children]
            x = (xs[0] + xs[-1]) / 2
        places[id(n)] = (x, -float(n.depth))
        return x

    place(root)
    return places


def tree_figure(ruleset: str, position: str, depth: int = 2, *, max_nodes: int = MAX_NODES) -> Figure:
    """The game tree of ``position`` to ``depth`` (see the module doc)."""
    root = game_tree(ruleset, position, depth, max_nodes=max_nodes)
    places = _layout(root)
    nodes = root.walk()
    leaves = sum(1 for n in nodes if not n.children)
    fig = new_figure(max(4.0, min(40.0, 1.3 * leaves)), 1.0 + 1.5 * (depth + 1))
    ax = fig.add_subplot()
    ax.set_axis_off()
    impartial = get_ruleset(ruleset).impartial
    index = {id(n): k for k, n in enumerate(nodes)}
    for k, n in enumerate(nodes):
        x, y = places[id(n)]
        for child in n.children:
            cx, cy = places[id(child)]
            colour = "#555555" if impartial else ("#1f5fbf" if child.side == "L" else "#c0302b")
            ax.plot([x, cx], [y, cy], color=colour, linewidth=2.6 if child.winning else 1.0,
                    zorder=1, gid=f"move-{k}-{index[id(child)]}-{child.side}")
        ax.annotate(f"{n.position}\n{n.value}", (x, y), ha="center", va="center", fontsize=8, zorder=3,
                    gid=f"node-{k}",
                    bbox={"boxstyle": "round,pad=0.3", "facecolor": "white",
                          "edgecolor": "#333333" if n.depth == 0 else "#aaaaaa"})
    xs = [p[0] for p in places.values()]
    ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
    ax.set_ylim(-depth - 0.5, 0.5)
    kind = "thick: a winning move" if impartial else "Left moves blue, Right moves red; thick: a winning move"
    ax.set_title(f"{ruleset} {root.position} = {root.value} to depth {depth}\n{kind}", fontsize=10)
    return fig
