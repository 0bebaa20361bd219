"""ruma.plot: pictures of values and games (matplotlib, the optional extra ``ruma[plot]``).

    >>> from ruma.plot import thermograph_figure, save        # doctest: +SKIP
    >>> save(thermograph_figure("{2||1|0}"), "thermograph.svg")

* ``thermograph_figure(game)`` — walls, mast, mean and temperature, exact breakpoints labelled;
* ``octal_figure(code, count)`` — the nim sequence of an octal game, period and preperiod marked;
* ``tree_figure(ruleset, position, depth)`` — the game tree of a small position;
* ``sowing_graph_figure(graph, board)`` and ``tchoukaillon_figure(n)`` — sowing graphs and
  Tchoukaillon boards.

Every function returns a ``matplotlib.figure.Figure`` (no pyplot state, so it is safe in servers
and shows itself in Jupyter); ``save(fig, path)`` writes SVG or PNG by the file's suffix.
matplotlib is imported when a picture is drawn, not when ``ruma.plot`` is imported.

May import: the standard library, matplotlib, ``ruma.engine`` and ``ruma.client.cli`` (the CLI's
shared pieces, for ``ruma plot``) — never ``ruma.server``.
"""

from __future__ import annotations

from ruma.plot._mpl import PlotError, save
from ruma.plot.octal import octal_figure
from ruma.plot.sowing import sowing_graph_figure, tchoukaillon_figure
from ruma.plot.thermograph import thermograph_figure
from ruma.plot.tree import game_tree, tree_figure

__all__ = [
    "PlotError",
    "game_tree",
    "octal_figure",
    "save",
    "sowing_graph_figure",
    "tchoukaillon_figure",
    "thermograph_figure",
    "tree_figure",
]
