"""A position's value: a canonical ``Game``, or for an impartial ruleset a plain ``int`` nim value.

Impartial rulesets are valued on nim values only (``mex`` and ``xor`` on ints, never through
canonical forms), so every memo, packet, store and census holds a ``Value``. ``as_game`` turns one
into a game where a game is needed (``k`` is ``∗k``); ``format_value`` writes either kind in a
notation, a nim value without building ``∗k`` (which builds ``∗0 … ∗(k-1)`` first).
"""

from __future__ import annotations

from typing import Union

from ruma.engine.cgt.game import Game, nimber
from ruma.engine.cgt.notation import STYLES, format_game
from ruma.engine.errors import RumaInputError

__all__ = ["Value", "as_game", "format_value"]

Value = Union[Game, int]


def as_game(value: Value) -> Game:
    """A value as a game (``∗k`` for a nim value ``k``)."""
    return nimber(value) if isinstance(value, int) else value


def format_value(value: Value, style: str = "ascii") -> str:
    """A value (game or nim value) in the notation ``style`` (``ruma.engine.cgt.notation``), as
    ``format_game(as_game(value), style)`` writes it."""
    if not isinstance(value, int):
        return format_game(value, style)
    if style not in STYLES:
        raise RumaInputError(f"unknown notation style {style!r} (expected one of {', '.join(STYLES)})")
    star = "∗" if style == "unicode" else "*"
    return "0" if value == 0 else star if value == 1 else f"{star}{value}"
