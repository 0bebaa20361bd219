"""Text forms of games: CGSuite plain text, Unicode and cgt-py braces, printed and parsed.

Styles of ``format_game(g, style)`` (see ``docs/notation.md``):

* ``"ascii"`` — CGSuite plain text: ``5``, ``-1/2``, ``*3``, ``^``, ``^^``, ``^3``, ``vv*``,
  ``73/16v9*8``, ``+-1``, ``Tiny(2)``, ``Miny(2)``, slashes for nested games (``{2||1|0}``, up to
  four slashes, then braces), options separated by ``,``.
* ``"unicode"`` — the same with ``↑ ⇑ n·↑ ↓ ⇓ n·↓ ∗ ±`` and ``⧾₂`` / ``⧿₂`` for tiny/miny of a
  positive integer (``⧾(x)`` otherwise); options separated by ``, ``.
* ``"braces"`` — exactly what cgt-py prints: braces only, ``", "`` between options, ``^2``,
  ``v3``, ``^3*2``, no slashes and no ``±``.
* ``"cgsuite"`` (``format_cgsuite``; not one of ``STYLES``, the notations of records and
  ``--notation``) — ``"ascii"`` with the operand of ``+-`` in parentheses unless it is one token,
  as CGSuite writes it: ``+-(1*)``, ``+-(Tiny(2))``, but ``+-1``, ``+-^``, ``+-{2|1}``. This is
  the text the explorer's "copy as CGSuite" control copies; CGSuite and ``parse_game`` read it.
  ``cgsuite_text`` makes it from ``"ascii"`` text without building the game.

``parse_game`` reads all three (and mixtures), with ``+``, ``-`` (binary and unary) and
parentheses. Options in every style are listed in cgt-py's order: numbers-ups-stars first (by
number, then ups, then nim value), then other games compared option list by option list.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ruma.engine.cgt.expression import DEFAULT_LIMITS, ExpressionLimits, parse_expression
from ruma.engine.cgt.game import Game
from ruma.engine.errors import RumaInputError

__all__ = ["CGSUITE", "STYLES", "cgsuite_text", "format_cgsuite", "format_game", "parse_game", "sort_key"]

STYLES = ("ascii", "unicode", "braces")
#: CGSuite's own plain text (see the module docstring); ``format_game`` takes it besides ``STYLES``
CGSUITE = "cgsuite"
_MAX_SLASHES = 4
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

# -- printing ---------------------------------------------------------------------------------
_KEYS: dict[int, tuple[object, ...]] = {}
_TEXT: dict[tuple[int, str], str] = {}


def sort_key(g: Game) -> tuple[object, ...]:
    """cgt-py's order of options: NUS values by (number, ups, nim), then other games."""
    key = _KEYS.get(g.id)
    if key is None:
        nus = g.nus
        if nus is not None:
            key = (0, nus[0], nus[1], nus[2])
        else:
            lefts = sorted([sort_key(h) for h in g.left_options])
            rights = sorted([sort_key(h) for h in g.right_options])
            key = (1, lefts, rights)
        _KEYS[g.id] = key
    return key


def _sorted(options: tuple[Game, ...]) -> list[Game]:
    return sorted(options, key=sort_key)


def _number(x: Fraction) -> str:
    return str(x)


def _nus_text(x: Fraction, n: int, k: int, style: str) -> str:
    parts = [_number(x)] if x or (n == 0 and k == 0) else []
    if n:
        if style == "unicode":
            arrow = "↑" if n > 0 else "↓"
            if abs(n) <= 2:
                parts.append({1: "↑", 2: "⇑", -1: "↓", -2: "⇓"}[n])
            else:
                parts.append(("+" if parts else "") + f"{abs(n)}·{arrow}")
        else:
            arrow = "^" if n > 0 else "v"
            if abs(n) == 1 or (abs(n) == 2 and style != "braces"):
                parts.append(arrow * abs(n))
            else:
                parts.append(f"{arrow}{abs(n)}")
    if k:
        star = "∗" if style == "unicode" else "*"
        parts.append(star if k == 1 else f"{star}{k}")
    return "".join(parts)


def format_game(g: Game, style: str = "ascii") -> str:
    """``g`` as text in ``style`` (``"ascii"``, ``"unicode"``, ``"braces"`` or ``"cgsuite"``);
    parses back to ``g``."""
    if style not in STYLES and style != CGSUITE:
        raise RumaInputError(f"unknown notation style {style!r} (expected one of {', '.join(STYLES)})")
    key = (g.id, style)
    text = _TEXT.get(key)
    if text is None:
        text = _format(g, style)
        _TEXT[key] = text
    return text


def _format(g: Game, style: str) -> str:
    nus = g.nus
    if nus is not None:
        return _nus_text(nus[0], nus[1], nus[2], style)
    if style == "braces":
        sides = [", ".join(format_game(h, style) for h in _sorted(o)) for o in (g.left_options, g.right_options)]
        return "{" + sides[0] + "|" + sides[1] + "}"
    special = _special(g, style)
    if special is not None:
        return special
    return "{" + _body(g, style)[0] + "}"


def format_cgsuite(g: Game) -> str:
    """``g`` as CGSuite writes it in plain text (``format_game(g, "cgsuite")``)."""
    return format_game(g, CGSUITE)


#: a number-up-star literal of the ascii style: its number, ups and star parts
_NUS_TOKEN = re.compile(r"(-?\d+(?:/\d+)?)?((?:\^+|v+)\d*)?(\*\d*)?")


def cgsuite_text(ascii_text: str) -> str:
    """The ``"cgsuite"`` text of a value from its ``"ascii"`` text (``format_game(g, "ascii")``),
    with no game built: each ``+-`` operand that is not one token is put in parentheses, as
    ``format_cgsuite`` writes it (``ascii`` writes no other ``+`` and no parentheses but those of
    ``Tiny(x)`` and ``Miny(x)``)."""
    out: list[str] = []
    i = 0
    while True:
        j = ascii_text.find("+-", i)
        if j < 0:
            out.append(ascii_text[i:])
            return "".join(out)
        k = j + 2
        out.append(ascii_text[i:k])
        if ascii_text.startswith(("Tiny(", "Miny("), k):
            depth, end = 0, k + 4
            while end < len(ascii_text):
                depth += {"(": 1, ")": -1}.get(ascii_text[end], 0)
                if depth == 0:
                    break
                end += 1
            out.append(f"({ascii_text[k:k + 5]}{cgsuite_text(ascii_text[k + 5:end])}))")
            i = end + 1
            continue
        match = _NUS_TOKEN.match(ascii_text, k)
        token = match.group(0) if match else ""
        parts = sum(1 for part in match.groups() if part) if match else 0
        out.append(f"({token})" if parts > 1 else token)
        i = k + len(token)


def _atom(g: Game, style: str) -> str:
    """``g``'s text, parenthesised when it would not bind as one operand of a prefix operator
    (in CGSuite's style: unless it is a number, ``∗k``, ``n·↑`` or a game in braces)."""
    text = format_game(g, style)
    if style == CGSUITE:
        nus = g.nus
        single = text.startswith("{") or (nus is not None and sum(1 for part in nus if part) <= 1)
        return text if single else f"({text})"
    return f"({text})" if "+" in text.lstrip("+-±") and not text.startswith("{") else text


def _special(g: Game, style: str) -> str | None:
    """``±A``, ``Tiny(x)`` or ``Miny(x)`` when ``g`` has that exact canonical shape."""
    lo, ro = g.left_options, g.right_options
    if len(lo) != 1 or len(ro) != 1:
        return None
    a, b = lo[0], ro[0]
    if b is -a:
        return ("±" if style == "unicode" else "+-") + _atom(a, style)
    zero = _zero()
    for inner, outer, name, sign in ((b, a, "Tiny", -1), (a, b, "Miny", 1)):
        if outer is zero and len(inner.left_options) == 1 and len(inner.right_options) == 1:
            near, far = (inner.left_options[0], inner.right_options[0])
            if sign < 0 and near is zero:
                x = -far
            elif sign > 0 and far is zero:
                x = near
            else:
                continue
            if x > zero:
                return _tiny_text(name, x, style)
    return None


def _tiny_text(name: str, x: Game, style: str) -> str:
    if style != "unicode":
        return f"{name}({format_game(x, style)})"
    sign = "⧾" if name == "Tiny" else "⧿"
    if x.is_integer:
        return sign + str(x.number_value).translate(_SUB)
    return f"{sign}({format_game(x, style)})"


def _body(g: Game, style: str) -> tuple[str, int]:
    """The inside of ``g``'s braces and the number of slashes separating its sides."""
    sep = ", " if style == "unicode" else ","
    sides: list[list[tuple[str, int]]] = []
    for options in (g.left_options, g.right_options):
        if len(options) == 1 and options[0].nus is None and _special(options[0], style) is None:
            text, bars = _body(options[0], style)
            sides.append([(text, bars) if bars < _MAX_SLASHES else ("{" + text + "}", 0)])
        else:
            sides.append([(format_game(h, style), 0) for h in _sorted(options)])
    bars = 1 + max([b for side in sides for _, b in side], default=0)
    left, right = (sep.join(t for t, _ in side) for side in sides)
    return left + "|" * bars + right, bars


def _zero() -> Game:
    from ruma.engine.cgt import ZERO

    return ZERO


# -- parsing ----------------------------------------------------------------------------------
def parse_game(text: str, limits: ExpressionLimits = DEFAULT_LIMITS) -> Game:
    """Parse CGSuite plain text, Unicode or cgt-py braces (with ``+ - ( )``) into a ``Game``.

    Raises ``NotationError`` quoting ``text`` and pointing at the offending column, and
    ``LimitExceededError`` for a value beyond ``limits`` (checked before anything is built; see
    ``ruma.engine.cgt.expression``).
    """
    return parse_expression(text, limits)
