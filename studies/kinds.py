"""The values Erickson's open questions ask about, recognised in canonical form.

*Sowing Games* (1996), §2: "For what values of n do Sowing positions exist with values 2^-n, and
if they all exist, can we systematically construct them? What about n·↑? +_n? ∗n?"; §3 asks
the same of ∗n in Impartial Atomic Wari. ``kind_of(value)`` names the family a value belongs to:

=========  ==========================================  ==============================
kind        value                                       parameter
=========  ==========================================  ==============================
``2^-n``    the number ``2^-n``, ``n >= 1``             ``n`` (an ``int``)
``n.^``     ``n·↑``, ``n >= 1``                         ``n``
``n.^*``    ``n·↑ + ∗``, ``n >= 1``                     ``n``
``+_x``     the tiny ``+_x = {0 || 0 | -x}``, ``x > 0``  ``x`` (a ``Fraction``)
``*n``      the nimber ``∗n``, ``n >= 1``               ``n``
=========  ==========================================  ==============================

Negatives (``-2^-n``, ``n·↓``, the minies ``-_x``) are the mirror images of these in Sowing and
Atomic Wari, so they are not listed apart. A nim value (an impartial ruleset's value) ``n >= 1``
is of kind ``*n``. ``value_of(kind, parameter)`` builds the value back (the claim a table row
makes), and ``KINDS`` lists the kinds in table order.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Union

from ruma.engine.cgt import ZERO, Game, Value, nimber, number, nus_game
from ruma.engine.errors import RumaInputError

__all__ = ["KINDS", "Kind", "kind_of", "value_of", "tiny", "kind_label"]

#: the kinds, in the order the tables list them
KINDS = ("2^-n", "n.^", "n.^*", "+_x", "*n")
Parameter = Union[int, Fraction]
Kind = tuple[str, Parameter]


def tiny(game: Game) -> Fraction | None:
    """``x`` when ``game`` is the tiny ``+_x = {0 || 0 | -x}`` (``x`` a positive number), else ``None``."""
    if game.left_options != (ZERO,) or len(game.right_options) != 1:
        return None
    right = game.right_options[0]
    if right.left_options != (ZERO,) or len(right.right_options) != 1:
        return None
    x = right.right_options[0].number_value
    return -x if x is not None and x < 0 else None


def kind_of(value: Value) -> Kind | None:
    """``(kind, parameter)`` of a value the questions ask about (see the module docstring), or
    ``None``. A plain ``int`` is a nim value."""
    if isinstance(value, int):
        return ("*n", value) if value >= 1 else None
    triple = value.nus
    if triple is not None:
        x, n, k = triple
        if n == 0 and k == 0:
            if 0 < x < 1 and x.numerator == 1 and x.denominator & (x.denominator - 1) == 0:
                return ("2^-n", x.denominator.bit_length() - 1)
            return None
        if x == 0 and n == 0:
            return ("*n", k)
        if x == 0 and n >= 1 and k <= 1:
            return ("n.^*" if k else "n.^", n)
        return None
    t = tiny(value)
    return ("+_x", t) if t is not None else None


def value_of(kind: str, parameter: Parameter) -> Game:
    """The value of ``(kind, parameter)``: ``value_of("2^-n", 3)`` is ``1/8``."""
    if kind == "2^-n":
        return number(Fraction(1, 2 ** int(parameter)))
    if kind in ("n.^", "n.^*"):
        return nus_game(0, int(parameter), 1 if kind == "n.^*" else 0)
    if kind == "+_x":
        x = number(Fraction(parameter))
        return Game.from_options([ZERO], [Game.from_options([ZERO], [-x])])
    if kind == "*n":
        return nimber(int(parameter))
    raise RumaInputError(f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")


def kind_label(kind: str, parameter: Parameter) -> str:
    """The row label in Unicode: ``2^-3``, ``3·↑``, ``3·↑+∗``, ``+_1/2``, ``∗4``."""
    if kind == "2^-n":
        return f"2^-{parameter}"
    if kind == "n.^":
        return f"{parameter}·↑"
    if kind == "n.^*":
        return f"{parameter}·↑+∗"
    if kind == "+_x":
        return f"+_{parameter}"
    return f"∗{parameter}"
