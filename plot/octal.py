"""Nim-sequence plots of octal games (and Grundy's game), period and preperiod marked.

The values ``G(0) .. G(count-1)`` come from ``ruma.engine.octal``; the period is the one the
Guy–Smith test proves on them (``OctalGame.period``). The preperiod ``[0, n0)`` is shaded
(id ``preperiod``), the first periods after it are bracketed by dotted lines (``period-0``,
``period-1`` ...), and the title says what was proved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ruma.engine.errors import LimitExceededError, PositionError
from ruma.engine.octal import GrundyGame, HeapGame, OctalGame
from ruma.plot._mpl import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: the most values a plot takes (the engine computes millions; a picture shows a few hundred thousand)
MAX_COUNT = 2_000_000
#: period boundaries drawn after the preperiod
PERIODS_MARKED = 4


def heap_game(code: str) -> HeapGame:
    """``OctalGame(code)``, or Grundy's game for ``"grundy"``."""
    return GrundyGame() if code.strip().lower() == "grundy" else OctalGame(code)


def octal_figure(code: str, count: int = 200, *, width: float = 8.0, height: float = 4.0) -> Figure:
    """The nim sequence ``G(n)``, ``0 <= n < count``, of the octal game ``code`` (or ``"grundy"``)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise PositionError(f"count {count!r}: need a positive number of values")
    if count > MAX_COUNT:
        raise LimitExceededError(f"count {count}: a plot takes at most {MAX_COUNT} values")
    game = heap_game(code)
    values = game.values(count)
    found = game.period(count) if isinstance(game, OctalGame) else None

    fig = new_figure(width, height)
    ax = fig.add_subplot()
    heaps = list(range(count))
    if count <= 400:
        ax.plot(heaps, values, color="#888888", linewidth=0.6, zorder=2, gid="sequence-line")
        ax.plot(heaps, values, "o", markersize=3, color="#1f5fbf", zorder=3, gid="values")
    else:
        ax.plot(heaps, values, ",", color="#1f5fbf", zorder=3, gid="values", rasterized=count > 20_000)
    top = max(values) if values else 0
    ax.set_xlim(-0.5, count - 0.5)
    ax.set_ylim(-0.5, top + 1.5)
    name = game.name
    if found is None:
        summary = f"no period proved in {count} values (Guy–Smith test)"
    else:
        preperiod, period = found
        summary = f"period {period}, preperiod {preperiod} (Guy–Smith test on {count} values)"
        if preperiod:
            ax.axvspan(-0.5, preperiod - 0.5, color="#f4e3c3", zorder=0, gid="preperiod")
            ax.annotate(f"preperiod {preperiod}", (preperiod - 0.5, top + 1.2), ha="right", va="top", fontsize=8,
                        xytext=(-3, 0), textcoords="offset points", gid="preperiod-label")
        for k in range(PERIODS_MARKED + 1):
            start = preperiod + k * period
            if start >= count:
                break
            ax.axvline(start - 0.5, color="#cc6600", linestyle=":", linewidth=1.0, zorder=1, gid=f"period-{k}")
        if preperiod + period < count:
            ax.annotate("", (preperiod - 0.5, top + 0.9), (preperiod + period - 0.5, top + 0.9),
                        arrowprops={"arrowstyle": "<->", "color": "#cc6600"}, gid="period-bracket")
            ax.annotate(f"period {period}", (preperiod + period / 2 - 0.5, top + 0.9), ha="center", va="bottom",
                        fontsize=8, color="#cc6600", gid="period-label")
    if not isinstance(game, OctalGame):
        summary = "Grundy's game (no periodicity test applies)"
    ax.set_title(f"nim sequence of {name}: {summary}", fontsize=10)
    ax.set_xlabel("heap size n")
    ax.set_ylabel("G(n)")
    return fig
