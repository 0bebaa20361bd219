"""ruma.engine.cgt: exact combinatorial game theory of short partizan games.

``Game`` is an interned canonical form (one object per canonical game, equality is identity);
see ``ruma.engine.cgt.game``. ``cool``, ``heat``, ``overheat``, ``norton``, ``ordinal`` and ``rcf``
make games from games (``ruma.engine.cgt.transforms``; also ``Game`` methods). Impartial values
are plain ints (``ruma.engine.cgt.nim``); a position's ``Value`` is either
(``ruma.engine.cgt.values``: ``as_game``, ``format_value``).

May import: the standard library, ``ruma.engine.errors`` and ``ruma.engine.native`` (the compiled
game kernel, when that engine is active).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from ruma.engine.cgt.nim import mex, nim_sum
from ruma.engine.cgt.notation import format_cgsuite, format_game, parse_game
from ruma.engine.cgt.values import Value, as_game, format_value

if TYPE_CHECKING:
    from ruma.engine.cgt.analysis import Thermograph
    from ruma.engine.cgt.transforms import cool, heat, norton, ordinal, overheat, rcf

_TRANSFORMS = ("cool", "heat", "norton", "ordinal", "overheat", "rcf")


def __getattr__(name: str) -> Any:
    """``Thermograph`` on first use: ``ruma.engine.cgt.analysis`` (dataclasses, fractions) is
    half the import time of this package, and a process that only stores or loads games — the
    store's writer process, whose start-up a cold evaluation waits for — never needs it."""
    if name == "Thermograph":
        from ruma.engine.cgt.analysis import Thermograph

        return Thermograph
    if name in _TRANSFORMS:  # (also on first use: few processes need them)
        from ruma.engine.cgt import transforms

        return getattr(transforms, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DOWN",
    "ONE",
    "STAR",
    "UP",
    "ZERO",
    "Game",
    "Outcome",
    "Thermograph",
    "Value",
    "as_game",
    "cache_info",
    "clear_caches",
    "cool",
    "format_cgsuite",
    "format_game",
    "format_value",
    "heat",
    "integer",
    "mex",
    "nim_sum",
    "nimber",
    "norton",
    "number",
    "ordinal",
    "overheat",
    "parse_game",
    "rcf",
    "nus_game",
    "up_multiple",
]
