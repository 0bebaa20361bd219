"""How values show themselves in notebooks and web pages, with the standard library only.

* ``format_latex(g)`` — the value typeset for MathJax/LaTeX (``\\uparrow``, ``{\\ast}``, ``\\pm``,
  bars for slash notation: ``\\{2\\mathrel{|\\!|}1\\mathrel{|}0\\}``), translated token by token from
  the Unicode notation, so it always says what ``format_game(g, "unicode")`` says.
* ``thermograph_svg(g)`` — a small inline SVG of the exact thermograph: both walls, the mast, the
  temperature and the mean, every vertex a ``<circle>`` carrying its exact coordinates in
  ``data-x``/``data-t`` (and a ``<title>`` tooltip). Values increase to the *left*, as in Winning
  Ways and CGSuite (Left likes positive numbers); temperature increases upwards, from ``t = -1``.
* ``game_html(g)`` / ``analyses_rows(g)`` — the value in Unicode, the analyses table and the sketch.

Why a hand-written SVG rather than matplotlib here: the engine imports only the standard library
(tests/project/test_architecture.py), a notebook should show a value without the ``ruma[plot]`` extra,
the sketch is a few hundred bytes (a matplotlib SVG is ~20 kB and its import takes a second) and
its coordinates come straight from the exact walls. The publication-quality figure with labelled
breakpoints is ``ruma.plot.thermograph`` (matplotlib).
"""

from __future__ import annotations

import html
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from ruma.engine.cgt.analysis import Thermograph
    from ruma.engine.cgt.game import Game

__all__ = ["analyses_rows", "format_latex", "game_html", "latex_text", "rows_html", "thermograph_svg", "thermograph_window"]

# -- LaTeX ------------------------------------------------------------------------------------
_SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
_TOKEN = re.compile(r"([0-9]+)/([0-9]+)|[0-9]+|\|+|[" + _SUBSCRIPTS + r"]+|, |.", re.S)
_SYMBOLS = {
    "↑": r"\uparrow", "⇑": r"\Uparrow", "↓": r"\downarrow", "⇓": r"\Downarrow", "·": r"\cdot ",
    "∗": r"{\ast}", "±": r"\pm", "⧾": "{+}", "⧿": "{-}", "{": r"\{", "}": r"\}", ", ": r",\,",
    "+": "+", "-": "-", "(": "(", ")": ")",
}


def _latex_token(match: re.Match[str]) -> str:
    text = match.group(0)
    if match.group(1) is not None:
        return rf"\tfrac{{{match.group(1)}}}{{{match.group(2)}}}"
    if text.isascii() and text.isdigit():
        return text
    if text[0] == "|":
        return r"\mathrel{" + r"|\!" * (len(text) - 1) + "|}"
    if text[0] in _SUBSCRIPTS:
        return "_{" + "".join(str(_SUBSCRIPTS.index(c)) for c in text) + "}"
    symbol = _SYMBOLS.get(text)
    if symbol is None:  # not produced by the Unicode notation; keep it visible, escaped
        return r"\text{" + text.replace("\\", r"\backslash ") + "}"
    return symbol


_TEXT_ESCAPES = {c: "\\" + c for c in "#$%&_{}"} | {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}


def latex_text(text: str) -> str:
    """``text`` (a ruleset and position, say) as ``\\text{...}`` with LaTeX's specials escaped."""
    return r"\text{" + "".join(_TEXT_ESCAPES.get(c, c) for c in text) + "}"


def format_latex(g: Game) -> str:
    """``g`` typeset for LaTeX math mode (no surrounding ``$``)."""
    from ruma.engine.cgt.notation import format_game

    return _TOKEN.sub(_latex_token, format_game(g, "unicode"))


# -- the thermograph sketch --------------------------------------------------------------------
def thermograph_window(th: Thermograph) -> tuple[Fraction, Fraction, Fraction]:
    """``(x_low, x_high, t_top)``: the values and the highest temperature a picture should show.

    Every vertex of both walls lies inside; the mast is shown up to ``t_top``, at least one unit
    (a quarter of the height when the game is hot) above the temperature."""
    xs = [x for _, x in th.left_wall.points] + [x for _, x in th.right_wall.points]
    x_low, x_high = min(xs), max(xs)
    if x_low == x_high:
        x_low, x_high = x_low - 1, x_high + 1
    hot = max(th.temperature, Fraction(0))
    t_top = hot + max(Fraction(1), (hot + 1) / 4)
    return x_low, x_high, t_top


def _num(q: Fraction | float) -> str:
    return f"{float(q):.2f}".rstrip("0").rstrip(".")


def thermograph_svg(g: Game, width: int = 220, height: int = 150) -> str:
    """A small SVG of ``g``'s exact thermograph (see the module doc); self-contained, no ids."""
    th = g.thermograph
    x_low, x_high, t_top = thermograph_window(th)
    pad_x, pad_top, pad_bottom = 14.0, 10.0, 30.0
    plot_w, plot_h = width - 2 * pad_x, height - pad_top - pad_bottom
    span_x, span_t = x_high - x_low, t_top + 1

    def px(x: Fraction) -> float:  # values grow to the left
        return pad_x + float((x_high - x) / span_x) * plot_w

    def py(t: Fraction) -> float:
        return pad_top + float((t_top - t) / span_t) * plot_h

    def poly(points: Iterable[tuple[Fraction, Fraction]], top: Fraction) -> str:
        pts = list(points)
        last_t, last_x = pts[-1]
        pts.append((t_top, last_x + (t_top - last_t) * top))
        return " ".join(f"{_num(px(x))},{_num(py(t))}" for t, x in pts)

    zero = Fraction(0)
    text = html.escape
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ruma-thermograph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" data-temperature="{th.temperature}" data-mean="{th.mast}">',
        f"<title>thermograph: mean {th.mast}, temperature {th.temperature}</title>",
        f'<rect class="subzero" x="{_num(pad_x)}" y="{_num(py(zero))}" width="{_num(plot_w)}" '
        f'height="{_num(py(Fraction(-1)) - py(zero))}" fill="#f2f2f2"/>',
        f'<line class="axis" x1="{_num(pad_x)}" y1="{_num(py(zero))}" x2="{_num(pad_x + plot_w)}" '
        f'y2="{_num(py(zero))}" stroke="#999" stroke-width="0.8"/>',
    ]
    if th.temperature > -1:
        parts.append(
            f'<line class="temperature" x1="{_num(pad_x)}" y1="{_num(py(th.temperature))}" x2="{_num(pad_x + plot_w)}" '
            f'y2="{_num(py(th.temperature))}" stroke="#c60" stroke-width="0.8" stroke-dasharray="3 2"/>'
        )
    for name, wall, colour in (("left-wall", th.left_wall, "#1f5fbf"), ("right-wall", th.right_wall, "#c0302b")):
        parts.append(
            f'<polyline class="{name}" points="{poly(wall.points, wall.top_slope)}" fill="none" '
            f'stroke="{colour}" stroke-width="1.6"/>'
        )
    parts.append(
        f'<line class="mast" x1="{_num(px(th.mast))}" y1="{_num(py(max(th.temperature, Fraction(-1))))}" '
        f'x2="{_num(px(th.mast))}" y2="{_num(py(t_top))}" stroke="#333" stroke-width="2"/>'
    )
    seen: set[tuple[Fraction, Fraction]] = set()
    for name, wall in (("left", th.left_wall), ("right", th.right_wall)):
        for t, x in wall.points:
            if (t, x) in seen:
                continue
            seen.add((t, x))
            parts.append(
                f'<circle class="breakpoint" data-wall="{name}" data-x="{x}" data-t="{t}" cx="{_num(px(x))}" '
                f'cy="{_num(py(t))}" r="2.4" fill="#333"><title>({x}, {t})</title></circle>'
            )
    label_y = height - 16
    parts.append(
        f'<text x="{_num(pad_x)}" y="{label_y}" font-size="10" font-family="sans-serif">{text(str(x_high))}</text>'
        f'<text x="{_num(pad_x + plot_w)}" y="{label_y}" font-size="10" font-family="sans-serif" '
        f'text-anchor="end">{text(str(x_low))}</text>'
        f'<text x="{width / 2:.0f}" y="{height - 4}" font-size="10" font-family="sans-serif" text-anchor="middle">'
        f"mean {text(str(th.mast))}, temperature {text(str(th.temperature))}</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


# -- HTML ---------------------------------------------------------------------------------------
def analyses_rows(g: Game) -> list[tuple[str, str]]:
    """``(label, value)`` rows: outcome, nim value, stops, mean, temperature, birthday, atomic weight."""
    from ruma.engine.cgt.game import ZERO
    from ruma.engine.cgt.notation import format_game
    from ruma.engine.errors import NotAtomicError

    rows = [("outcome", g.outcome.value)]
    if g.nim_value is not None:
        rows.append(("nim value", str(g.nim_value)))
    rows += [("left stop", str(g.left_stop)), ("right stop", str(g.right_stop)), ("mean", str(g.mean)),
             ("temperature", str(g.temperature)), ("birthday", str(g.birthday))]
    if g.is_infinitesimal or g is ZERO:
        try:
            rows.append(("atomic weight", format_game(g.atomic_weight, "unicode")))
        except NotAtomicError:
            rows.append(("atomic weight", "not atomic"))
    return rows


def rows_html(rows: Iterable[tuple[str, str]]) -> str:
    """A two-column table of ``(label, value)`` rows, escaped."""
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


def game_html(g: Game, caption: str = "", extra_rows: Iterable[tuple[str, str]] = ()) -> str:
    """The value in Unicode, its analyses and the thermograph sketch, side by side."""
    from ruma.engine.cgt.notation import format_game

    head = f"{html.escape(caption)} = " if caption else ""
    return (
        "<div class='ruma-value' style='display:flex;gap:1.5em;align-items:flex-start'>"
        f"<div><div style='font-size:1.3em'>{head}<code>{html.escape(format_game(g, 'unicode'))}</code></div>"
        f"{rows_html([*extra_rows, *analyses_rows(g)])}</div>"
        f"<div>{thermograph_svg(g)}</div></div>"
    )
