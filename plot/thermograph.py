"""Thermographs drawn with matplotlib, from the engine's exact walls.

Conventions (Winning Ways ch. 6, Siegel II.5, CGSuite): values increase to the *left* (Left likes
positive numbers), temperature ``t`` upwards, from ``t = -1`` (subzero thermography, shaded).
Every vertex of a wall is marked and labelled ``(x, t)`` exactly, as CGSuite and cgt-py label
them; the mast is drawn above the temperature, the temperature is a dashed line and the mean is
named at the mast's foot.

The SVG is meant to be read by programs too: the artists carry ids (``left-wall``,
``right-wall``, ``mast``, ``temperature``, ``mean``, ``breakpoint-left-0`` ...,
``breakpoint-label-left-0`` ...), the axes' ticks sit at the breakpoints' exact values and their
labels are the exact fractions. A long canonical form makes a title of several lines, broken after
the slashes of its slash notation or between options, and cut short (``…``) after ``TITLE_LINES``:
the title never runs past the figure.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING, Union

from ruma.engine.cgt import Game, parse_game
from ruma.engine.cgt.display import thermograph_window
from ruma.engine.cgt.notation import format_game
from ruma.plot._mpl import fraction_text, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

GameLike = Union[Game, str]

LEFT_COLOUR = "#1f5fbf"
RIGHT_COLOUR = "#c0302b"
#: lines a title may take; a longer one ends in "…"
TITLE_LINES = 3
#: where a title may break: after a run of slashes, or after an option's comma and space
_TITLE_PIECES = re.compile(r"[^|,]*(?:\|+|, ?)|[^|,]+")


def parsed(game: GameLike) -> Game:
    """A ``Game``, parsing a value expression (``"{2||1|0}"``, ``"+-1"``) when given text."""
    return parse_game(game) if isinstance(game, str) else game


def title_lines(text: str, width: float, size: float | str, max_lines: int = TITLE_LINES) -> list[str]:
    """``text`` as lines no wider than ``width`` points in a font of ``size``: broken after a run of
    slashes or an option's comma (inside a piece only when the piece alone is wider), at most
    ``max_lines``, the last then ending in "…"."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    font, measure = FontProperties(size=size), TextToPath()

    def fits(line: str) -> bool:
        return measure.get_text_width_height_descent(line, font, ismath=False)[0] <= width

    lines = [""]
    for piece in _TITLE_PIECES.findall(text):
        for char in piece if not fits(piece) else [piece]:
            if lines[-1] and not fits(lines[-1] + char):
                if len(lines) == max_lines:
                    while lines[-1] and not fits(lines[-1] + " …"):
                        lines[-1] = lines[-1][:-1]
                    lines[-1] = lines[-1].rstrip() + " …"
                    return lines
                lines.append("")
            lines[-1] += char
    return [line.rstrip() for line in lines]


def thermograph_figure(game: GameLike, *, width: float = 6.0, height: float = 4.5, title: str | None = None) -> Figure:
    """The thermograph of ``game`` (a ``Game`` or a value expression) as a matplotlib figure."""
    g = parsed(game)
    th = g.thermograph
    x_low, x_high, t_top = thermograph_window(th)
    margin = (x_high - x_low) / 8
    fig = new_figure(width, height)
    ax = fig.add_subplot()
    ax.set_xlim(float(x_high + margin), float(x_low - margin))  # values grow to the left
    ax.set_ylim(-1.0 - float(t_top + 1) / 30, float(t_top))
    ax.axhspan(-1.0, 0.0, color="#f2f2f2", zorder=0, gid="subzero")
    ax.axhline(0.0, color="#999999", linewidth=0.8, zorder=1, gid="t-zero")

    for name, wall, colour in (("left", th.left_wall, LEFT_COLOUR), ("right", th.right_wall, RIGHT_COLOUR)):
        points = list(wall.points)
        last_t, last_x = points[-1]
        points.append((t_top, last_x + (t_top - last_t) * wall.top_slope))
        ax.plot([float(x) for _, x in points], [float(t) for t, _ in points], color=colour, linewidth=2.0,
                label=f"{name} wall", gid=f"{name}-wall", zorder=3)

    ax.plot([float(th.mast)] * 2, [float(th.temperature), float(t_top)], color="black", linewidth=3.0,
            gid="mast", zorder=4, solid_capstyle="butt")
    if th.temperature > -1:
        ax.axhline(float(th.temperature), color="#cc6600", linestyle="--", linewidth=1.0, gid="temperature", zorder=2)
        ax.annotate(f"temperature {fraction_text(th.temperature)}", (float(x_high + margin), float(th.temperature)),
                    xytext=(4, 3), textcoords="offset points", ha="left", va="bottom", color="#cc6600",
                    fontsize=9, gid="temperature-label")
    ax.annotate(f"mean {fraction_text(th.mast)}", (float(th.mast), float(t_top)), xytext=(6, -6),
                textcoords="offset points", ha="left", va="top", fontsize=9, gid="mean",
                bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none"})

    seen: set[tuple[Fraction, Fraction]] = set()
    for name, wall, colour in (("left", th.left_wall, LEFT_COLOUR), ("right", th.right_wall, RIGHT_COLOUR)):
        for i, (t, x) in enumerate(wall.points):
            if (t, x) in seen:
                continue
            seen.add((t, x))
            ax.plot([float(x)], [float(t)], marker="o", markersize=5, color=colour, linestyle="none",
                    gid=f"breakpoint-{name}-{i}", zorder=5)
            ax.annotate(f"({fraction_text(x)}, {fraction_text(t)})", (float(x), float(t)),
                        xytext=(6 if name == "left" else -6, 4), textcoords="offset points",
                        ha="left" if name == "left" else "right", fontsize=8, gid=f"breakpoint-label-{name}-{i}")

    xs = sorted({x for _, x in seen} | {th.mast})
    ts = sorted({t for t, _ in seen} | {Fraction(0), th.temperature})
    ax.set_xticks([float(x) for x in xs], [fraction_text(x) for x in xs])
    ax.set_yticks([float(t) for t in ts], [fraction_text(t) for t in ts])
    ax.set_xlabel("value (Left ← → Right)")
    ax.set_ylabel("temperature t")
    import matplotlib

    size = matplotlib.rcParams["axes.titlesize"]
    text = title if title is not None else f"thermograph of {format_game(g, 'unicode')}"
    # centred on the figure; measured without hinting, which widens drawn text a little: 10 % spare
    fig.suptitle("\n".join(title_lines(text, width * 72 * 0.9, size)), fontsize=size, gid="title")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return fig
