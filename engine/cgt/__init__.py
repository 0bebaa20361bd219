"""ruma.engine.cgt: exact combinatorial game theory of short partizan games.

``Game`` is an interned canonical form (one object per canonical game, equality is identity);
see ``ruma.engine.cgt.game``. Impartial values are plain ints (``ruma.engine.cgt.nim``).
"""

from __future__ import annotations

from ruma.engine.cgt.game import (
    DOWN,
    ONE,
    STAR,
    UP,
    ZERO,
    Game,
    Outcome,
    cache_info,
    clear_caches,
    integer,
    nimber,
    number,
    nus_game,
    up_multiple,
)
from ruma.engine.cgt.analysis import Thermograph
from ruma.engine.cgt.nim import mex, nim_sum
from ruma.engine.cgt.notation import format_game, parse_game

__all__ = [
    "DOWN",
    "ONE",
    "STAR",
    "UP",
    "ZERO",
    "Game",
    "Outcome",
    "Thermograph",
    "cache_info",
    "clear_caches",
    "format_game",
    "integer",
    "mex",
    "nim_sum",
    "nimber",
    "number",
    "parse_game",
    "nus_game",
    "up_multiple",
]
