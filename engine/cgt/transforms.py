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
``RumaInputError`` quoting it. Each operation runs over the game's followers from an explicit
stack, options first (as ``ruma.engine.cgt.analysis`` does), so deep games such as ``^9999`` need
no deep recursion here.
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

_CACHE: dict[tuple[object, ...], Game] = {}
"""Every operation's answers, keyed by the operation's name, the game's id and its parameters."""

#: ``leaf(G)``: the answer for ``G`` without its options' answers, or ``None``
Leaf = Callable[["Game"], Union["Game", None]]
#: ``combine(G, answer)``: the answer for ``G`` from ``answer(option)`` of its options
Combine = Callable[["Game", Callable[["Game"], "Game"]], "Game"]


def _bottom_up(g: Game, key: tuple[object, ...], leaf: Leaf, combine: Combine) -> Game:
    """The answer of an operation (named with its parameters by ``key``) for ``g``: every follower
    of ``g`` whose answer is missing is answered after its options, from an explicit stack."""
    def answer(h: Game) -> Game:
        return _CACHE[(h.id, *key)]

    stack = [g]
    while stack:
        h = stack[-1]
        if (h.id, *key) in _CACHE:
            stack.pop()
            continue
        direct = leaf(h)
        if direct is None:
            missing = [o for o in h.left_options + h.right_options if (o.id, *key) not in _CACHE]
            if missing:
                stack += missing
                continue
            direct = combine(h, answer)
        stack.pop()
        _CACHE[(h.id, *key)] = direct
    return answer(g)


def _each_option(left: Callable[[Game], Game], right: Callable[[Game], Game]) -> Combine:
    """``{left(answer(G^L)) | right(answer(G^R))}`` (canonical)."""
    return lambda g, answer: type(g).from_options([left(answer(h)) for h in g.left_options],
                                                  [right(answer(h)) for h in g.right_options])


def _integer(g: Game) -> int | None:
    n = g.number_value
    return None if n is None or n.denominator != 1 else int(n)


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
    from ruma.engine.cgt.analysis import mean, temperature
    from ruma.engine.cgt.game import number

    game, temp = _game(g, "the game to cool"), _game(t, "the temperature")
    x = temp.number_value
    if x is None or x <= -1:
        raise RumaInputError(f"cannot cool {_text(game)!r} by {_text(temp)!r}: "
                             "the temperature must be a number greater than -1")

    def leaf(h: Game) -> Game | None:
        if h.is_integer:
            return h
        return number(mean(h)) if temperature(h) < x else None

    return _bottom_up(game, ("cool", temp.id), leaf, _each_option(lambda o: o - temp, lambda o: o + temp))


def heat(g: Arg, t: Arg) -> Game:
    """``G`` heated by the game ``t`` (``∫^t G``; see the module docstring)."""
    return _heat(_game(g, "the game to heat"), _game(t, "the temperature"))


def _heat(g: Game, t: Game) -> Game:
    return _bottom_up(g, ("heat", t.id), lambda h: h if h.is_number else None,
                      _each_option(lambda o: o + t, lambda o: o - t))


def overheat(g: Arg, s: Arg, t: Arg) -> Game:
    """``G`` overheated from ``s`` to ``t`` (``∫_s^t G``; see the module docstring)."""
    game, base, temp = _game(g, "the game to overheat"), _game(s, "the base s"), _game(t, "the temperature t")

    def leaf(h: Game) -> Game | None:
        n = _integer(h)
        return None if n is None else _copies(n, base)

    return _bottom_up(game, ("overheat", base.id, temp.id), leaf, _each_option(lambda o: o + temp, lambda o: o - temp))


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
    steps = [unit + i for i in incentives(unit)]

    def leaf(h: Game) -> Game | None:
        n = _integer(h)
        return None if n is None else _copies(n, unit)

    def combine(h: Game, answer: Callable[[Game], Game]) -> Game:
        return type(h).from_options([answer(o) + b for o in h.left_options for b in steps],
                                    [answer(o) - b for o in h.right_options for b in steps])

    return _bottom_up(game, ("norton", unit.id), leaf, combine)


def ordinal(g: Arg, h: Arg) -> Game:
    """The ordinal sum ``G:H`` of ``G``'s canonical form and ``H`` (see the module docstring)."""
    from ruma.engine.cgt.game import nus_game

    base, sub = _game(g, "the base G"), _game(h, "the subordinate H")
    nus = base.nus

    def leaf(k: Game) -> Game | None:
        n = k.nim_value
        if nus is not None and nus[1] == 0 and n is not None:
            return nus_game(nus[0], 0, nus[2] + n)  # x∗a : ∗b = x∗(a + b) (CGSuite's shortcut)
        return None

    def combine(k: Game, answer: Callable[[Game], Game]) -> Game:  # the recursion runs over H
        return type(k).from_options(base.left_options + tuple(answer(o) for o in k.left_options),
                                    base.right_options + tuple(answer(o) for o in k.right_options))

    return _bottom_up(sub, ("ordinal", base.id), leaf, combine)


def rcf(g: Arg) -> Game:
    """The reduced canonical form of ``G`` (see the module docstring)."""
    from ruma.engine.cgt.game import STAR, number

    game = _game(g, "the game")
    nus = game.nus
    if nus is not None:
        return number(nus[0])

    def leaf(h: Game) -> Game | None:  # the star projection: numbers stay, x∗ is x
        t = h.nus
        if h.is_number:
            return h
        return number(t[0]) if t is not None and t[1] == 0 and t[2] == 1 else None

    return _bottom_up(_heat(game, STAR), ("project",), leaf, _each_option(lambda o: o, lambda o: o))


OPERATIONS: dict[str, tuple[Callable[..., Game], int]] = {
    "cool": (cool, 2),
    "heat": (heat, 2),
    "overheat": (overheat, 3),
    "norton": (norton, 2),
    "ordinal": (ordinal, 2),
    "rcf": (rcf, 1),
}
"""Each operation of value expressions by name, with its number of arguments (the game first)."""
