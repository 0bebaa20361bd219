"""Exact CGT algebra of short partizan games in canonical form.

Every distinct canonical form is one *id* (a small int; ``ZERO`` is id 0) in a kernel that keeps
each canonical form once, so ``==`` between games is identity and ``hash`` the id. A ``Game`` is a
thin handle on an id: the kernel makes the one ``Game`` object of an id the first time Python
asks for it (``Game.by_id``), so the games a search builds cost no Python objects. Two kernels
have the same functions on ids (``KERNEL``): the compiled one (``_core.kernel``, engine/native/:
an arena of nodes in C) when the compiled engine is active, else the pure-Python reference
``ruma.engine.cgt.kernel``. Ids differ between them; values, text and every analysis do not.
``Game.from_ids``, ``Game.by_id``, ``option_ids`` and ``canonical_id`` expose the id level.

Canonicalisation (``Game.from_options``): dedupe the option ids, then take fast paths — all
options nimbers with equal sides (``*mex``), all options numbers (the simplest number between, or
the switch ``{max L | min R}``) — and otherwise remove dominated options and bypass reversible
ones until nothing changes (Winning Ways, ch. 3; Siegel, *Combinatorial Game Theory*, ch. II),
then re-take the fast paths if anything was removed. Values of the form
``x + n·↑ + ∗k`` ("NUS", see ``ruma.engine.cgt.nus``) are recognised and carry their triple, so
their sums, negations and comparisons are plain arithmetic. Sums of a number and a non-number use
number translation (``x + G = {x + G^L | x + G^R}``). Comparisons exit early on stops
(``LS(G) > LS(H)`` or ``RS(G) > RS(H)`` refute ``G <= H``; ``LS(G) < RS(H)`` proves ``G < H``).
Sum, comparison and option-list caches are bounded and can be dropped with ``clear_caches()``;
the table of canonical forms only grows.

Recursion: comparisons and canonicalisation recurse along the game tree, so their depth is the
birthday; the reference is fine below birthdays of a few hundred under Python's default limit,
the compiled kernel far beyond. Thread safety: the compiled kernel's operations run without
releasing the GIL; the reference serialises the creation of a canonical form with a lock.
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Iterable, Union

from ruma.engine.cgt import kernel as reference
from ruma.engine.cgt.nus import NUS, Num, dyadic, nus_ge_zero, nus_neg
from ruma.engine.errors import RumaInputError

if TYPE_CHECKING:
    from ruma.engine.cgt.analysis import Thermograph

__all__ = [
    "DOWN",
    "ONE",
    "STAR",
    "UP",
    "ZERO",
    "Game",
    "Outcome",
    "cache_info",
    "clear_caches",
    "integer",
    "nimber",
    "number",
    "nus_game",
    "up_multiple",
]


def _select_kernel() -> Any:
    """The compiled game kernel (``_core.kernel``) when the compiled engine is active, else the
    pure-Python reference (``ruma.engine.cgt.kernel``): the same functions on ids.

    A misconfigured ``RUMA_ENGINE`` is reported where the engine is next asked for (``get_ruleset``
    raises it as a ``RumaInputError``); here it just keeps the Python kernel.
    """
    from ruma.engine.errors import RumaError
    from ruma.engine.native import active_engine, core

    try:
        if active_engine() != "c":
            return reference
    except RumaError:
        return reference
    native = core()
    assert native is not None
    return native.kernel


KERNEL: Any = _select_kernel()
"""The kernel games are ids of: ``_core.kernel`` (compiled) or ``ruma.engine.cgt.kernel``."""
_canon: Callable[[Iterable[int], Iterable[int]], int] = KERNEL.canon
_add: Callable[[int, int], int] = KERNEL.add
_neg: Callable[[int], int] = KERNEL.neg
_le: Callable[[int, int], bool] = KERNEL.le
_left_ids: Callable[[int], tuple[int, ...]] = KERNEL.left_ids
_right_ids: Callable[[int], tuple[int, ...]] = KERNEL.right_ids
_nus: Callable[[int], "NUS | None"] = KERNEL.nus
_number: Callable[[int], "Num | None"] = KERNEL.number
_nim: Callable[[int], "int | None"] = KERNEL.nim
_stops: Callable[[int], "tuple[Num, Num]"] = KERNEL.stops
_nus_id: Callable[[Num, int, int], int] = KERNEL.nus_id
_all_small: Callable[[int], bool] = KERNEL.all_small
_G: Callable[[int], "Game"] = KERNEL.handle  # the one Game object of an id (made when first asked for)
cache_info: Callable[[], dict[str, int]] = KERNEL.cache_info
clear_caches: Callable[[], None] = KERNEL.clear_caches


def option_ids(game_id: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The option ids of a game by id (Left's, Right's; sorted), with no ``Game`` object made."""
    return _left_ids(game_id), _right_ids(game_id)


def canonical_id(lefts: Iterable[int], rights: Iterable[int]) -> int:
    """The id of the canonical form of ``{lefts | rights}`` given option ids, with no ``Game``
    object made (``Game.by_id`` makes the one of an id when it is needed)."""
    return _canon(lefts, rights)


class Outcome(StrEnum):
    """Who wins: Left (``L``), Right (``R``), the first player (``N``) or the second (``P``)."""

    L = "L"
    R = "R"
    N = "N"
    P = "P"


class Game:
    """A short partizan game in canonical form.

    Build one with ``Game(value)`` — a number (``Game(3)``, ``Game(Fraction(1, 2))``,
    ``Game(1/2)``: numbers of short games are dyadic), a value expression (``Game("{1|*}")``,
    ``Game("^*")``) or a game — with ``Game.from_options(lefts, rights)`` for ``{lefts | rights}``,
    or with the constructors (``integer``, ``nimber``, ``up_multiple``...).

    Games mix with numbers as CGSuite values do: ``UP + 1``, ``1 - UP``, ``STAR + Fraction(1, 2)``,
    ``h > 0``, ``g <= 1/2`` and ``Game(2) == 2`` (a number game hashes like its number). Python's
    comparison operators follow the game order, which is partial: ``g <= h`` and ``h <= g`` may both
    be False (then ``g.confused_with(h)``). Between games ``==`` is identity (forms are interned).
    A non-dyadic number (``Fraction(1, 3)``, ``0.1``) is a ``RumaInputError``; other types are
    ``TypeError``.
    """

    __slots__ = ("id",)
    id: int

    def __new__(cls, value: "Game | int | Fraction | float | str") -> "Game":
        if isinstance(value, str):
            from ruma.engine.cgt.notation import parse_game

            return parse_game(value)
        game = _operand(value)
        if game is None:
            raise TypeError(f"Game(value) takes a number, a value expression or a Game, got {type(value).__name__} "
                            f"{value!r}; Game.from_options(lefts, rights) builds {{lefts | rights}}")
        return game

    # -- construction -------------------------------------------------------------------------
    @staticmethod
    def from_options(lefts: Iterable[Game], rights: Iterable[Game]) -> Game:
        """The canonical game ``{lefts | rights}`` (interned)."""
        return _G(_canon({g.id for g in lefts}, {g.id for g in rights}))

    @staticmethod
    def from_ids(lefts: Iterable[int], rights: Iterable[int]) -> Game:
        """``from_options`` on option ids (the evaluator's hot path)."""
        return _G(_canon(set(lefts), set(rights)))

    @staticmethod
    def by_id(game_id: int) -> Game:
        """The game with this id (ids are only meaningful within one process)."""
        return _G(game_id)

    def __copy__(self) -> Game:
        return self

    def __deepcopy__(self, memo: Any) -> Game:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Game.from_options, (self.left_options, self.right_options))

    # -- structure ----------------------------------------------------------------------------
    @property
    def left_options(self) -> tuple[Game, ...]:
        """Left's options in the canonical form (sorted by id)."""
        return tuple([_G(i) for i in _left_ids(self.id)])

    @property
    def right_options(self) -> tuple[Game, ...]:
        """Right's options in the canonical form (sorted by id)."""
        return tuple([_G(i) for i in _right_ids(self.id)])

    @property
    def left_ids(self) -> tuple[int, ...]:
        """The ids of Left's options in the canonical form (sorted; no ``Game`` objects made)."""
        return _left_ids(self.id)

    @property
    def right_ids(self) -> tuple[int, ...]:
        """The ids of Right's options in the canonical form (sorted; no ``Game`` objects made)."""
        return _right_ids(self.id)

    @property
    def nus(self) -> tuple[Fraction, int, int] | None:
        """``(x, n, k)`` when the game equals ``x + n·↑ + ∗k``, else ``None``."""
        t = _nus(self.id)
        return None if t is None else (Fraction(t[0]), t[1], t[2])

    @property
    def is_number(self) -> bool:
        """True when the game is a (dyadic) number."""
        return _number(self.id) is not None

    @property
    def is_integer(self) -> bool:
        """True when the game is an integer."""
        x = _number(self.id)
        return type(x) is int

    @property
    def is_nimber(self) -> bool:
        """True when the game is ``*k`` for some ``k >= 0`` (0 included)."""
        return _nim(self.id) is not None

    @property
    def number_value(self) -> Fraction | None:
        """The number the game equals, or ``None``."""
        x = _number(self.id)
        return None if x is None else Fraction(x)

    @property
    def nim_value(self) -> int | None:
        """``k`` when the game equals ``*k``, or ``None``."""
        return _nim(self.id)

    @property
    def is_infinitesimal(self) -> bool:
        """True when ``-x < G < x`` for every positive number ``x`` (both stops 0).

        Zero counts as infinitesimal (it satisfies the definition).
        """
        left, right = _stops(self.id)
        return left == 0 and right == 0

    @property
    def is_all_small(self) -> bool:
        """True when every follower with options has options for both players (0 included)."""
        return _all_small(self.id)

    # -- algebra (with games and with numbers: see the class docstring) ---------------------
    def __add__(self, other: Operand) -> Game:
        o = _operand(other)
        if o is None:
            return NotImplemented
        return _G(_add(self.id, o.id))

    __radd__ = __add__  # disjunctive sum is commutative: 1 + UP

    def __neg__(self) -> Game:
        return _G(_neg(self.id))

    def __pos__(self) -> Game:
        return self

    def __sub__(self, other: Operand) -> Game:
        o = _operand(other)
        if o is None:
            return NotImplemented
        return _G(_add(self.id, _neg(o.id)))

    def __rsub__(self, other: Operand) -> Game:
        o = _operand(other)
        if o is None:
            return NotImplemented
        return _G(_add(o.id, _neg(self.id)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Game):
            return self is other
        if isinstance(other, (int, Fraction, float)) and not isinstance(other, bool):
            x = _number(self.id)
            return x is not None and x == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        x = _number(self.id)  # a number game hashes like its number, as it compares equal to it
        return self.id if x is None else hash(x)

    def __le__(self, other: Operand) -> bool:
        o = _operand(other)
        if o is None:
            return NotImplemented
        return _le(self.id, o.id)

    def __ge__(self, other: Operand) -> bool:
        o = _operand(other)
        if o is None:
            return NotImplemented
        return _le(o.id, self.id)

    def __lt__(self, other: Operand) -> bool:
        o = _operand(other)
        if o is None:
            return NotImplemented
        return self is not o and _le(self.id, o.id)

    def __gt__(self, other: Operand) -> bool:
        o = _operand(other)
        if o is None:
            return NotImplemented
        return self is not o and _le(o.id, self.id)

    def confused_with(self, other: Operand) -> bool:
        """True when neither ``self <= other`` nor ``other <= self`` (``self || other``)."""
        o = _operand(other)
        if o is None:
            raise TypeError(f"cannot compare a game with {type(other).__name__} {other!r}")
        return not _le(self.id, o.id) and not _le(o.id, self.id)

    @property
    def outcome(self) -> Outcome:
        """The outcome class: who wins with best play."""
        i = self.id
        t = _nus(i)
        if t is not None:
            ge, le = nus_ge_zero(t), nus_ge_zero(nus_neg(t))
        else:
            ge, le = _le(0, i), _le(i, 0)
        if ge:
            return Outcome.P if le else Outcome.L
        return Outcome.R if le else Outcome.N

    # -- analyses (ruma.engine.cgt.analysis) ----------------------------------------------------
    @property
    def birthday(self) -> int:
        """The birthday of the canonical form."""
        from ruma.engine.cgt import analysis

        return analysis.birthday(self)

    @property
    def left_stop(self) -> Fraction:
        """Left's stop."""
        from ruma.engine.cgt import analysis

        return analysis.left_stop(self)

    @property
    def right_stop(self) -> Fraction:
        """Right's stop."""
        from ruma.engine.cgt import analysis

        return analysis.right_stop(self)

    @property
    def mean(self) -> Fraction:
        """The mean value."""
        from ruma.engine.cgt import analysis

        return analysis.mean(self)

    @property
    def temperature(self) -> Fraction:
        """The temperature."""
        from ruma.engine.cgt import analysis

        return analysis.temperature(self)

    @property
    def thermograph(self) -> Thermograph:
        """The thermograph."""
        from ruma.engine.cgt import analysis

        return analysis.thermograph(self)

    @property
    def atomic_weight(self) -> Game:
        """The atomic weight (raises ``NotAtomicError`` when the game is not atomic)."""
        from ruma.engine.cgt import analysis

        return analysis.atomic_weight(self)

    # -- operations (ruma.engine.cgt.transforms, which gives the definitions) ---------------------
    def cool(self, t: Operand) -> Game:
        """This game cooled by the number ``t > -1`` (``G_t``)."""
        from ruma.engine.cgt import transforms

        return transforms.cool(self, t)

    def heat(self, t: Operand) -> Game:
        """This game heated by ``t`` (``∫^t G``)."""
        from ruma.engine.cgt import transforms

        return transforms.heat(self, t)

    def overheat(self, s: Operand, t: Operand) -> Game:
        """This game overheated from ``s`` to ``t`` (``∫_s^t G``)."""
        from ruma.engine.cgt import transforms

        return transforms.overheat(self, s, t)

    def norton(self, u: Operand) -> Game:
        """The Norton product of this game and ``u`` (``G.U``)."""
        from ruma.engine.cgt import transforms

        return transforms.norton(self, u)

    def ordinal(self, h: Operand) -> Game:
        """The ordinal sum of this canonical form and ``h`` (``G:H``)."""
        from ruma.engine.cgt import transforms

        return transforms.ordinal(self, h)

    def rcf(self) -> Game:
        """The reduced canonical form: the simplest game infinitesimally close to this one."""
        from ruma.engine.cgt import transforms

        return transforms.rcf(self)

    # -- text (ruma.engine.cgt.notation) ------------------------------------------------------
    def __format__(self, spec: str) -> str:
        from ruma.engine.cgt.notation import format_game

        return format_game(self, spec or "ascii")

    def __str__(self) -> str:
        """Unicode, as the command line and the explorer print values (``1↑``, ``∗2``, ``½``);
        ``repr`` and ``format(g, "ascii")`` give CGSuite plain text."""
        from ruma.engine.cgt.notation import format_game

        return format_game(self, "unicode")

    def __repr__(self) -> str:
        from ruma.engine.cgt.notation import format_game

        return f"Game({format_game(self, 'ascii')!r})"

    # -- notebooks (ruma.engine.cgt.display) -----------------------------------------------------
    def _repr_html_(self) -> str:
        """The value in Unicode, its analyses and a small thermograph (Jupyter)."""
        from ruma.engine.cgt.display import game_html

        return game_html(self)

    def _repr_svg_(self) -> str:
        """The thermograph sketch (Jupyter)."""
        from ruma.engine.cgt.display import thermograph_svg

        return thermograph_svg(self)

    def _repr_latex_(self) -> str:
        """The value typeset in LaTeX math (``\\uparrow``, ``{\\ast}``, ``\\pm``, bars) (Jupyter)."""
        from ruma.engine.cgt.display import format_latex

        return f"${format_latex(self)}$"


# -- constructors -------------------------------------------------------------------------------
#: what mixes with a game: another game, an int, a dyadic Fraction or an exactly dyadic float
Operand = Union[Game, int, Fraction, float]
#: the largest denominator a float may carry to be taken as a number (1/2**20); beyond it a
#: float such as 0.1 is a binary approximation, not the number the user meant
FLOAT_DENOMINATOR = 2**20


def _operand(value: object) -> Game | None:
    """``value`` as a game: games as they are, numbers as number games; None for other types."""
    if isinstance(value, Game):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _G(_nus_id(value, 0, 0))
    if isinstance(value, Fraction):
        return number(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise RumaInputError(f"not a number of a short game: {value!r}")
        x = Fraction(value)
        if x.denominator > FLOAT_DENOMINATOR:
            raise RumaInputError(f"the float {value!r} is not exactly a dyadic rational; "
                                 "give a Fraction or a string such as '3/8'")
        return number(x)
    return None


def integer(n: int) -> Game:
    """The integer ``n``."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RumaInputError(f"not an integer: {n!r}")
    return _G(_nus_id(n, 0, 0))


def number(x: Fraction | int) -> Game:
    """The number ``x``; raises ``RumaInputError`` (a ValueError) unless ``x`` is dyadic."""
    return _G(_nus_id(_dyadic_number(x), 0, 0))


def nimber(k: int) -> Game:
    """The nimber ``*k`` (``k >= 0``)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise RumaInputError(f"not a nim value (a non-negative integer): {k!r}")
    return _G(_nus_id(0, 0, k))


def up_multiple(n: int) -> Game:
    """``n·↑`` (``n`` may be negative: ``n·↓``)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RumaInputError(f"not an integer: {n!r}")
    return _G(_nus_id(0, n, 0))


def nus_game(x: Fraction | int, n: int = 0, k: int = 0) -> Game:
    """``x + n·↑ + ∗k`` (``x`` dyadic, ``k >= 0``)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0 or not isinstance(n, int):
        raise RumaInputError(f"not a valid (x, n, k) for x + n.up + *k: {(x, n, k)!r}")
    return _G(_nus_id(_dyadic_number(x), n, k))


def _dyadic_number(x: Fraction | int) -> Num:
    """``x`` checked dyadic (``RumaInputError`` otherwise): an int when integral, else a Fraction."""
    y = dyadic(x)
    return y.numerator if y.denominator == 1 else y


def _make(game_id: int) -> Game:
    g = object.__new__(Game)
    g.id = game_id
    return g


KERNEL.set_factory(_make)
if hasattr(KERNEL, "set_handle_type"):  # (the compiled kernel makes the objects itself: no Python call)
    KERNEL.set_handle_type(Game)
ZERO: Game = _G(_nus_id(0, 0, 0))
ONE: Game = integer(1)
STAR: Game = nimber(1)
UP: Game = up_multiple(1)
DOWN: Game = up_multiple(-1)
