"""Operations that make games from games: cooling, heating, overheating, Norton product, ordinal
sum and reduced canonical form — CGSuite's ``Cool``, ``Heat``, ``Overheat``, ``NortonProduct``,
``:`` and ``ReducedCanonicalForm``, with CGSuite's definitions (Siegel, *Combinatorial Game
Theory*, ch. II; Berlekamp–Conway–Guy, *Winning Ways*, ch. 6):

* ``cool(G, t)`` — ``G_t``, for a number ``t > -1``: ``G`` when ``G`` is an integer; the mean of
  ``G`` when the temperature of ``G`` is below ``t`` (``G`` froze at a smaller temperature);
  otherwise ``{G^L_t - t | G^R_t + t}``. So ``(±1)_1 = ∗`` and ``(±1)_2 = 0``. Temperatures
  between -1 and 0 are Siegel's subzero cooling (a number ``m/2^j`` is unchanged for
  ``t > -1/2^j``), as ``ruma.engine.cgt.analysis`` draws thermographs.
* ``heat(G, t)`` — ``∫^t G``, for any game ``t``: ``G`` when ``G`` is a number, else
  ``{∫^t G^L + t | ∫^t G^R - t}``.
* ``overheat(G, s, t)`` — ``∫_s^t G``: ``n.s`` (``n`` copies of ``s``) when ``G`` is an integer
  ``n``, else ``{∫_s^t G^L + t | ∫_s^t G^R - t}``.
* ``norton(G, U)`` — ``G.U``: ``n`` copies of ``U`` (``-U`` for negative ``n``) when ``G`` is an
  integer ``n``, else ``{G^L.U + (U + I) | G^R.U - (U + I)}`` over the maximal incentives ``I`` of
  ``U`` (its ``U^L - U`` and ``U - U^R``). It is linear in ``G`` for ``U > 0``.
* ``ordinal(G, H)`` — ``G:H = {G^L, G:H^L | G^R, G:H^R}``. It depends on the form of ``G`` (the
  canonical form is used, as CGSuite does) and only on the value of ``H``.
* ``rcf(G)`` — the reduced canonical form, the simplest game infinitesimally close to ``G``:
  ``x`` for ``x + n·↑ + ∗k``, else the star projection of ``∫^∗ G`` (numbers stay, ``x∗``
  becomes ``x``, other games are projected option by option), as CGSuite computes it.

Every function takes canonical games (``Game``; numbers are taken as number games) and caches its
answers by the games' ids. A meaningless argument (cooling by ``∗`` or by ``-1``) is a
``RumaInputError`` quoting it. The recursion follows the game tree, so its depth is the birthday.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Union

from ruma.engine.errors import RumaInputError

if TYPE_CHECKING:
    from ruma.engine.cgt.game import Game

__all__ = ["cool", "heat", "incentives", "norton", "ordinal", "overheat", "rcf"]

#: what the functions take: a game, an int, a dyadic Fraction, an exactly dyadic float or a
#: value expression
Arg = Union["Game", int, Fraction, float, str]

_COOL: dict[tuple[int, int], Game] = {}
_HEAT: dict[tuple[int, int], Game] = {}
_OVERHEAT: dict[tuple[int, int, int], Game] = {}
_NORTON: dict[tuple[int, int], Game] = {}
_ORDINAL: dict[tuple[int, int], Game] = {}
_PROJECTION: dict[int, Game] = {}


def _game(value: Arg, what: str) -> Game:
    """``value`` as a game; a ``TypeError`` naming the argument for other types."""
    from ruma.engine.cgt.game import Game

    if isinstance(value, Game):
        return value
    if isinstance(value, (int, Fraction, float, str)) and not isinstance(value, bool):
        return Game(value)
    raise TypeError(f"{what} must be a game or a number, got {type(value).__name__} {value!r}")


def _text(g: Game) -> str:
    from ruma.engine.cgt.notation import format_game

    return format_game(g, "ascii")


def cool(g: Arg, t: Arg) -> Game:
    """``G`` cooled by the number ``t > -1`` (``G_t``; see the module docstring)."""
    game, temp = _game(g, "the game to cool"), _game(t, "the temperature")
    x = temp.number_value
    if x is None or x <= -1:
        raise RumaInputError(f"cannot cool {_text(game)!r} by {_text(temp)!r}: "
                             "the temperature must be a number greater than -1")
    return _cool(game, temp, x)


def _cool(g: Game, t: Game, x: Fraction) -> Game:
    key = (g.id, t.id)
    done = _COOL.get(key)
    if done is not None:
        return done
    from ruma.engine.cgt.analysis import mean, temperature
    from ruma.engine.cgt.game import Game, number

    if g.is_integer:
        result = g
    elif temperature(g) < x:
        result = number(mean(g))
    else:
        result = Game.from_options([_cool(h, t, x) - t for h in g.left_options],
                                   [_cool(h, t, x) + t for h in g.right_options])
    _COOL[key] = result
    return result


def heat(g: Arg, t: Arg) -> Game:
    """``G`` heated by the game ``t`` (``∫^t G``; see the module docstring)."""
    return _heat(_game(g, "the game to heat"), _game(t, "the temperature"))


def _heat(g: Game, t: Game) -> Game:
    key = (g.id, t.id)
    done = _HEAT.get(key)
    if done is not None:
        return done
    from ruma.engine.cgt.game import Game

    if g.is_number:
        result = g
    else:
        result = Game.from_options([_heat(h, t) + t for h in g.left_options],
                                   [_heat(h, t) - t for h in g.right_options])
    _HEAT[key] = result
    return result


def overheat(g: Arg, s: Arg, t: Arg) -> Game:
    """``G`` overheated from ``s`` to ``t`` (``∫_s^t G``; see the module docstring)."""
    return _overheat(_game(g, "the game to overheat"), _game(s, "the base s"), _game(t, "the temperature t"))


def _overheat(g: Game, s: Game, t: Game) -> Game:
    key = (g.id, s.id, t.id)
    done = _OVERHEAT.get(key)
    if done is not None:
        return done
    from ruma.engine.cgt.game import Game

    n = g.number_value
    if n is not None and n.denominator == 1:
        result = _copies(int(n), s)
    else:
        result = Game.from_options([_overheat(h, s, t) + t for h in g.left_options],
                                   [_overheat(h, s, t) - t for h in g.right_options])
    _OVERHEAT[key] = result
    return result


def _copies(n: int, u: Game) -> Game:
    """``n`` copies of ``u`` summed (``|n|`` copies of ``-u`` for negative ``n``), by doubling."""
    from ruma.engine.cgt.game import ZERO

    total, power = ZERO, (u if n >= 0 else -u)
    n = abs(n)
    while n:
        if n & 1:
            total = total + power
        n >>= 1
        if n:
            power = power + power
    return total


def incentives(u: Arg) -> tuple[Game, ...]:
    """The maximal incentives of ``u``: among its ``U^L - U`` and ``U - U^R``, those no other one
    exceeds (each value once), as CGSuite's ``Incentives`` keeps them for the Norton product."""
    game = _game(u, "the game")
    found: list[Game] = []
    for i in [h - game for h in game.left_options] + [game - h for h in game.right_options]:
        if i not in found:
            found.append(i)
    return tuple(i for i in found if not any(j is not i and i <= j for j in found))


def norton(g: Arg, u: Arg) -> Game:
    """The Norton product ``G.U`` (see the module docstring)."""
    game, unit = _game(g, "the game"), _game(u, "the unit U")
    return _norton(game, unit, [unit + i for i in incentives(unit)])


def _norton(g: Game, u: Game, steps: list[Game]) -> Game:
    key = (g.id, u.id)
    done = _NORTON.get(key)
    if done is not None:
        return done
    from ruma.engine.cgt.game import Game

    n = g.number_value
    if n is not None and n.denominator == 1:
        result = _copies(int(n), u)
    else:
        lefts = [_norton(h, u, steps) for h in g.left_options]
        rights = [_norton(h, u, steps) for h in g.right_options]
        result = Game.from_options([a + b for a in lefts for b in steps], [a - b for a in rights for b in steps])
    _NORTON[key] = result
    return result


def ordinal(g: Arg, h: Arg) -> Game:
    """The ordinal sum ``G:H`` of ``G``'s canonical form and ``H`` (see the module docstring)."""
    return _ordinal(_game(g, "the base G"), _game(h, "the subordinate H"))


def _ordinal(g: Game, h: Game) -> Game:
    key = (g.id, h.id)
    done = _ORDINAL.get(key)
    if done is not None:
        return done
    from ruma.engine.cgt.game import Game, nus_game

    base, sub = g.nus, h.nim_value
    if base is not None and base[1] == 0 and sub is not None:
        result = nus_game(base[0], 0, base[2] + sub)  # x∗a : ∗b = x∗(a + b) (CGSuite's shortcut)
    else:
        result = Game.from_options(g.left_options + tuple(_ordinal(g, o) for o in h.left_options),
                                   g.right_options + tuple(_ordinal(g, o) for o in h.right_options))
    _ORDINAL[key] = result
    return result


def rcf(g: Arg) -> Game:
    """The reduced canonical form of ``G`` (see the module docstring)."""
    from ruma.engine.cgt.game import STAR, number

    game = _game(g, "the game")
    nus = game.nus
    if nus is not None:
        return number(nus[0])
    return _project(_heat(game, STAR))


def _project(g: Game) -> Game:
    """The star projection: numbers stay, ``x∗`` becomes ``x``, other games option by option."""
    done = _PROJECTION.get(g.id)
    if done is not None:
        return done
    from ruma.engine.cgt.game import Game, number

    nus = g.nus
    if g.is_number:
        result = g
    elif nus is not None and nus[1] == 0 and nus[2] == 1:
        result = number(nus[0])
    else:
        result = Game.from_options([_project(h) for h in g.left_options], [_project(h) for h in g.right_options])
    _PROJECTION[g.id] = result
    return result


OPERATIONS: dict[str, tuple[Callable[..., Game], int]] = {
    "cool": (cool, 2),
    "heat": (heat, 2),
    "overheat": (overheat, 3),
    "norton": (norton, 2),
    "ordinal": (ordinal, 2),
    "rcf": (rcf, 1),
}
"""Each operation of value expressions by name, with its number of arguments (the game first)."""
