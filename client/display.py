"""Notebook display of the client's results (``_repr_html_``/``_repr_svg_``/``_repr_latex_``).

The analyses shown are the server's (nothing is recomputed); the value is parsed locally with the
engine only to typeset it and to draw the small thermograph (``ruma.engine.cgt.display``), so a
notebook needs neither matplotlib nor a second call to the server.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any, Iterable

from ruma.engine.cgt.display import format_latex, game_html, latex_text, rows_html, thermograph_svg

if TYPE_CHECKING:
    from ruma.client.results import Evaluation, GameValue, OptionsResult, OptionValue


def _game(value: GameValue) -> Any:
    try:
        return value.game()
    except Exception:  # noqa: BLE001 - a notation this engine cannot read: show the text only
        return None


def value_html(value: GameValue) -> str:
    """The value in Unicode with its analyses and thermograph sketch (text only if unreadable)."""
    g = _game(value)
    return game_html(g) if g is not None else f"<code>{html.escape(str(value))}</code>"


def value_svg(value: GameValue) -> str | None:
    """The thermograph sketch, or ``None`` (Jupyter then falls back to another repr)."""
    g = _game(value)
    return thermograph_svg(g) if g is not None else None


def value_latex(value: GameValue) -> str | None:
    """The value typeset in LaTeX math, or ``None``."""
    g = _game(value)
    return f"${format_latex(g)}$" if g is not None else None


def evaluation_rows(e: Evaluation) -> list[tuple[str, str]]:
    """The server's analyses of an evaluation as ``(label, value)`` rows (unset ones left out)."""
    rows = [("canonical", e.canonical + (" (mirror image)" if e.mirrored else "")), ("outcome", e.outcome)]
    if e.nim_value is not None:
        rows.append(("nim value", str(e.nim_value)))
    for label, item in (("left stop", e.left_stop), ("right stop", e.right_stop), ("mean", e.mean),
                        ("temperature", e.temperature), ("birthday", e.birthday)):
        if item is not None:
            rows.append((label, str(item)))
    if e.atomic_weight is not None:
        rows.append(("atomic weight", str(e.atomic_weight)))
    if len(e.components) > 1:
        rows.append(("components", " + ".join(c.position for c in e.components)))
    rows.append(("from store", "yes" if e.from_store else "no (computed now)"))
    if e.unverified:
        rows.append(("provenance", "uploaded, not re-valued by the server yet"))
    return [(k, v) for k, v in rows if v]


def evaluation_html(e: Evaluation) -> str:
    """Position, value, the server's analyses and the thermograph sketch."""
    sketch = value_svg(e.value) or ""
    return (
        "<div class='ruma-value' style='display:flex;gap:1.5em;align-items:flex-start'>"
        f"<div><div style='font-size:1.3em'>{html.escape(e.ruleset)} {html.escape(e.position)} = "
        f"<code>{html.escape(str(e.value))}</code></div>{rows_html(evaluation_rows(e))}</div>"
        f"<div>{sketch}</div></div>"
    )


def evaluation_latex(e: Evaluation) -> str:
    """``ruleset position = value`` typeset."""
    g = _game(e.value)
    value = format_latex(g) if g is not None else latex_text(str(e.value))
    return f"${latex_text(f'{e.ruleset} {e.position}')} = {value}$"


def winning(option: OptionValue, player: str) -> bool:
    """Whether moving to ``option`` wins for ``player`` (``L``: value >= 0, ``R``: value <= 0)."""
    return option.outcome in ("P", player)


def _options_table(title: str, options: Iterable[OptionValue], player: str) -> str:
    rows = "".join(
        f"<tr><td><code>{html.escape(o.position)}</code></td><td><code>{html.escape(str(o.value))}</code></td>"
        f"<td>{'winning' if winning(o, player) else ''}</td></tr>"
        for o in options
    )
    return (f"<table class='ruma-options'><caption>{html.escape(title)}</caption>"
            f"<tr><th>position</th><th>value</th><th></th></tr>{rows or '<tr><td colspan=3>none</td></tr>'}</table>")


def options_html(result: OptionsResult) -> str:
    """The position's evaluation, then Left's and Right's options with values and winning moves."""
    impartial = result.left == result.right and all(o.outcome in ("P", "N") for o in result.left)  # same for both
    tables = (_options_table("moves", result.left, "L") if impartial else
              _options_table("Left's options", result.left, "L") + _options_table("Right's options", result.right, "R"))
    return f"{evaluation_html(result.evaluation)}<div style='display:flex;gap:2em'>{tables}</div>"
