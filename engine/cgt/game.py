"""Exact CGT algebra of short partizan games with interned canonical forms.

Every distinct canonical form exists once: a row of module-level tables indexed by a small int
``id`` (``ZERO`` is id 0) and one ``Game`` object per id, so ``==`` is identity and ``hash`` is
the id. The hot paths (canonicalisation, sums, comparison) work on ids and tuples of ids.

Canonicalisation (``Game.from_options``): dedupe the option ids, then take fast paths — all
options nimbers with equal sides (``*mex``), all options numbers (the simplest number between, or
the switch ``{max L | min R}``) — and otherwise remove dominated options and bypass reversible
ones until nothing changes (Siegel, *Combinatorial Game Theory*, II.2). Values of the form
``x + n·↑ + ∗k`` ("NUS", see ``ruma.engine.cgt.nus``) are recognised and carry their triple, so
their sums, negations and comparisons are plain arithmetic. Sums of a number and a non-number use
number translation (``x + G = {x + G^L | x + G^R}``).

Recursion: comparisons and canonicalisation recurse along the game tree, so their depth is the
birthday; games with birthdays below a few hundred are fine under Python's default limit.
Thread safety: creating a new canonical form is serialised by a lock; everything else only reads
the tables or fills idempotent caches.
"""

from __future__ import annotations

import threading
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable

from ruma.engine.cgt.nus import NUS, dyadic, nus_add, nus_ge_zero, nus_neg, simplest_between
from ruma.engine.errors import RumaInputError

if TYPE_CHECKING:
    from ruma.engine.cgt.analysis import Thermograph

Ids = tuple[int, ...]
Key = tuple[Ids, Ids]


class Outcome(StrEnum):
    """Who wins: Left (``L``), Right (``R``), the first player (``N``) or the second (``P``)."""

    L = "L"
    R = "R"
    N = "N"
    P = "P"


# -- the tables (index = id) ------------------------------------------------------------------
_LO: list[Ids] = []  # left option ids, sorted
_RO: list[Ids] = []  # right option ids, sorted
_OBJ: list[Game] = []  # the one Game object per id
_NUSV: list[NUS | None] = []  # (x, n, k) when the game is x + n.up + *k
_NUM: list[Fraction | None] = []  # x when the game is the number x
_NIM: list[int | None] = []  # k when the game is *k
_NEG: list[int] = []  # id of the negative, -1 until computed
_TABLE: dict[Key, int] = {}  # canonical (lefts, rights) -> id
_RAW: dict[Key, int] = {}  # any (sorted, deduped) option key seen -> canonical id (a cache)
_NUS_ID: dict[NUS, int] = {}
_SUM: dict[int, int] = {}  # (a << 32 | b), a <= b -> id of a + b
_LE: dict[int, bool] = {}  # (a << 32 | b) -> a <= b
_LOCK = threading.RLock()


class Game:
    """A short partizan game in canonical form; build with ``Game.from_options`` or constructors.

    Python's comparison operators follow the game order, which is partial: ``g <= h`` and
    ``h <= g`` may both be False (then ``g.confused_with(h)``). ``g == h`` is identity.
    """

    __slots__ = ("id",)
    id: int

    def __init__(self) -> None:  # pragma: no cover - guarded constructor
        raise TypeError("use Game.from_options(lefts, rights) or a constructor such as integer(n)")

    # -- construction -------------------------------------------------------------------------
    @staticmethod
    def from_options(lefts: Iterable[Game], rights: Iterable[Game]) -> Game:
        """The canonical game ``{lefts | rights}`` (interned)."""
        return _OBJ[_canon({g.id for g in lefts}, {g.id for g in rights})]

    @staticmethod
    def from_ids(lefts: Iterable[int], rights: Iterable[int]) -> Game:
        """``from_options`` on option ids (the evaluator's hot path)."""
        return _OBJ[_canon(set(lefts), set(rights))]

    @staticmethod
    def by_id(game_id: int) -> Game:
        """The game with this id (ids are only meaningful within one process)."""
        return _OBJ[game_id]

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
        return tuple([_OBJ[i] for i in _LO[self.id]])

    @property
    def right_options(self) -> tuple[Game, ...]:
        """Right's options in the canonical form (sorted by id)."""
        return tuple([_OBJ[i] for i in _RO[self.id]])

    @property
    def nus(self) -> NUS | None:
        """``(x, n, k)`` when the game equals ``x + n·↑ + ∗k``, else ``None``."""
        return _NUSV[self.id]

    @property
    def is_number(self) -> bool:
        """True when the game is a (dyadic) number."""
        return _NUM[self.id] is not None

    @property
    def is_integer(self) -> bool:
        """True when the game is an integer."""
        x = _NUM[self.id]
        return x is not None and x.denominator == 1

    @property
    def is_nimber(self) -> bool:
        """True when the game is ``*k`` for some ``k >= 0`` (0 included)."""
        return _NIM[self.id] is not None

    @property
    def number_value(self) -> Fraction | None:
        """The number the game equals, or ``None``."""
        return _NUM[self.id]

    @property
    def nim_value(self) -> int | None:
        """``k`` when the game equals ``*k``, or ``None``."""
        return _NIM[self.id]

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

    # -- algebra ------------------------------------------------------------------------------
    def __add__(self, other: Game) -> Game:
        if not isinstance(other, Game):
            return NotImplemented
        return _OBJ[_add(self.id, other.id)]

    def __neg__(self) -> Game:
        return _OBJ[_neg(self.id)]

    def __pos__(self) -> Game:
        return self

    def __sub__(self, other: Game) -> Game:
        if not isinstance(other, Game):
            return NotImplemented
        return _OBJ[_add(self.id, _neg(other.id))]

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __hash__(self) -> int:
        return self.id

    def __le__(self, other: Game) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return _le(self.id, other.id)

    def __ge__(self, other: Game) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return _le(other.id, self.id)

    def __lt__(self, other: Game) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self is not other and _le(self.id, other.id)

    def __gt__(self, other: Game) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self is not other and _le(other.id, self.id)

    def confused_with(self, other: Game) -> bool:
        """True when neither ``self <= other`` nor ``other <= self`` (``self || other``)."""
        return not _le(self.id, other.id) and not _le(other.id, self.id)

    @property
    def outcome(self) -> Outcome:
        """The outcome class: who wins with best play."""
        i = self.id
        t = _NUSV[i]
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

    # -- text (ruma.engine.cgt.notation) ------------------------------------------------------
    def __format__(self, spec: str) -> str:
        from ruma.engine.cgt.notation import format_game

        return format_game(self, spec or "ascii")

    def __str__(self) -> str:
        from ruma.engine.cgt.notation import format_game

        return format_game(self, "ascii")

    def __repr__(self) -> str:
        from ruma.engine.cgt.notation import format_game

        return f"Game({format_game(self, 'ascii')!r})"

    def _repr_html_(self) -> str:
        import html

        from ruma.engine.cgt.notation import format_game

        return f"<code>{html.escape(format_game(self, 'unicode'))}</code>"


# -- interning --------------------------------------------------------------------------------
def _intern(key: Key, tag: NUS | None) -> int:
    with _LOCK:
        i = _TABLE.get(key)
        if i is None:
            i = len(_OBJ)
            g = object.__new__(Game)
            g.id = i
            _LO.append(key[0])
            _RO.append(key[1])
            _NUSV.append(None)
            _NUM.append(None)
            _NIM.append(None)
            _NEG.append(-1)
            _OBJ.append(g)
            _TABLE[key] = i
        if tag is not None and _NUSV[i] is None:
            _NUSV[i] = tag
            if tag[1] == 0:
                if tag[2] == 0:
                    _NUM[i] = tag[0]
                elif tag[0] == 0:
                    _NIM[i] = tag[2]
            _NUS_ID.setdefault(tag, i)
        return i


def _nus_id(t: NUS) -> int:
    """The id of ``x + n·↑ + ∗k``, building its canonical form on first use."""
    i = _NUS_ID.get(t)
    if i is not None:
        return i
    x, n, k = t
    if n == 0 and k == 0:
        if x.denominator == 1:
            if x > 0:
                key: Key = ((_nus_id((x - 1, 0, 0)),), ())
            elif x < 0:
                key = ((), (_nus_id((x + 1, 0, 0)),))
            else:
                key = ((), ())
        else:
            step = Fraction(1, x.denominator)
            key = ((_nus_id((x - step, 0, 0)),), (_nus_id((x + step, 0, 0)),))
        i = _intern(key, t)
    elif n == 0:
        opts = tuple(sorted(_nus_id((x, 0, j)) for j in range(k)))
        i = _intern((opts, opts), t)
    elif x != 0:
        base = _nus_id((Fraction(0), n, k))
        lefts = {_nus_id(nus_add(t0, (x, 0, 0))) for t0 in _nus_of(_LO[base])}
        rights = {_nus_id(nus_add(t0, (x, 0, 0))) for t0 in _nus_of(_RO[base])}
        i = _canonicalise(lefts, rights, t)
    elif n < 0:
        base = _nus_id((x, -n, k))
        lefts = {_neg(j) for j in _RO[base]}
        rights = {_neg(j) for j in _LO[base]}
        i = _canonicalise(lefts, rights, t)
    else:
        lefts = {_nus_id((x, n - 1, k))}
        rights = {_nus_id((x, n - 1, k ^ 1))}
        for j in range(k):
            s = _nus_id((x, n, j))
            lefts.add(s)
            rights.add(s)
        i = _canonicalise(lefts, rights, t)
    _NUS_ID[t] = i
    if _NUSV[i] is None:
        _intern((_LO[i], _RO[i]), t)
    return i


def _nus_of(ids: Ids) -> list[NUS]:
    out = []
    for i in ids:
        t = _NUSV[i]
        assert t is not None
        out.append(t)
    return out


# -- canonicalisation -------------------------------------------------------------------------
def _canon(lefts: set[int], rights: set[int]) -> int:
    key = (tuple(sorted(lefts)), tuple(sorted(rights)))
    i = _RAW.get(key)
    if i is None:
        i = _TABLE.get(key)
        if i is None:
            i = _canonicalise(lefts, rights, None)
        _RAW[key] = i
    return i


def _canonicalise(lefts: set[int], rights: set[int], tag: NUS | None) -> int:
    """Canonical id of ``{lefts | rights}`` (option ids canonical, sets are consumed)."""
    nim = _NIM
    if lefts == rights and lefts:
        values = set()
        for i in lefts:
            v = nim[i]
            if v is None:
                break
            values.add(v)
        else:
            m = 0
            while m in values:
                m += 1
            return _nus_id((Fraction(0), 0, m))
    num = _NUM
    lo: Fraction | None = None
    hi: Fraction | None = None
    for i in lefts:
        x = num[i]
        if x is None:
            break
        if lo is None or x > lo:
            lo = x
    else:
        for i in rights:
            x = num[i]
            if x is None:
                break
            if hi is None or x < hi:
                hi = x
        else:
            if lo is None or hi is None or lo < hi:
                return _nus_id((simplest_between(lo, hi), 0, 0))
            # a switch {a | b} with numbers a >= b is canonical
            return _finish(((_nus_id((lo, 0, 0)),), (_nus_id((hi, 0, 0)),)), tag)
    le = _le
    changed = True
    while changed:
        changed = False
        if len(lefts) > 1:
            lefts = {a for a in lefts if not any(b != a and le(a, b) for b in lefts)}
        if len(rights) > 1:
            rights = {a for a in rights if not any(b != a and le(b, a) for b in rights)}
        for a in lefts:
            for ar in _RO[a]:
                if _le_xg(ar, lefts, rights):
                    lefts = (lefts - {a}) | set(_LO[ar])
                    changed = True
                    break
            if changed:
                break
        if changed:
            continue
        for a in rights:
            for al in _LO[a]:
                if _le_gx(lefts, rights, al):
                    rights = (rights - {a}) | set(_RO[al])
                    changed = True
                    break
            if changed:
                break
    return _finish((tuple(sorted(lefts)), tuple(sorted(rights))), tag)


def _finish(key: Key, tag: NUS | None) -> int:
    i = _TABLE.get(key)
    if i is not None:
        if tag is not None and _NUSV[i] is None:
            _intern(key, tag)
        return i
    if tag is None:
        for guess in _detect(key):
            _nus_id(guess)  # interns key with its tag when the guess is right
            i = _TABLE.get(key)
            if i is not None:
                return i
    return _intern(key, tag)


def _detect(key: Key) -> list[NUS]:
    """Guess which ``x + n·↑ + ∗k`` a new canonical form could be (checked by the caller).

    In canonical form ``x + ∗k = {x, x∗, … | x, x∗, …}`` and, for ``n ≥ 1``, ``x + n·↑ + ∗k``
    has the Right option ``x + (n-1)·↑ + ∗(k⊕1)`` with the most ups (mirror image for ``n < 0``).
    """
    lefts, rights = key
    if not lefts or not rights:
        return []
    tl: list[NUS] = []
    tr: list[NUS] = []
    for ids, out in ((lefts, tl), (rights, tr)):
        for i in ids:
            t = _NUSV[i]
            if t is None:
                return []
            out.append(t)
    x = tl[0][0]
    if any(t[0] != x for t in tl) or any(t[0] != x for t in tr):
        return []
    if lefts == rights:
        return [(x, 0, len(lefts))]
    guesses: list[NUS] = []
    top = max(t[1] for t in tr)
    if top >= 0:
        guesses += [(x, top + 1, t[2] ^ 1) for t in tr if t[1] == top]
    bottom = min(t[1] for t in tl)
    if bottom <= 0:
        guesses += [(x, bottom - 1, t[2] ^ 1) for t in tl if t[1] == bottom]
    return guesses


# -- order ------------------------------------------------------------------------------------
def _le(a: int, b: int) -> bool:
    """``G_a <= G_b``: no ``G_a^L >= G_b`` and no ``G_b^R <= G_a`` (cached by id pair)."""
    if a == b:
        return True
    ta = _NUSV[a]
    if ta is not None:
        tb = _NUSV[b]
        if tb is not None:
            return nus_ge_zero((tb[0] - ta[0], tb[1] - ta[1], tb[2] ^ ta[2]))
    key = a << 32 | b
    r = _LE.get(key)
    if r is None:
        r = True
        for i in _LO[a]:
            if _le(b, i):
                r = False
                break
        else:
            for i in _RO[b]:
                if _le(i, a):
                    r = False
                    break
        _LE[key] = r
    return r


def _le_xg(x: int, lefts: set[int], rights: set[int]) -> bool:
    """``G_x <= {lefts | rights}`` for a game not interned yet."""
    for i in rights:
        if _le(i, x):
            return False
    for i in _LO[x]:
        if _le_gx(lefts, rights, i):
            return False
    return True


def _le_gx(lefts: set[int], rights: set[int], x: int) -> bool:
    """``{lefts | rights} <= G_x`` for a game not interned yet."""
    for i in lefts:
        if _le(x, i):
            return False
    for i in _RO[x]:
        if _le_xg(i, lefts, rights):
            return False
    return True


# -- sums and negatives -----------------------------------------------------------------------
def _add(a: int, b: int) -> int:
    """Id of ``G_a + G_b`` (cached; NUS arithmetic; number translation)."""
    if a == 0:
        return b
    if b == 0:
        return a
    if a > b:
        a, b = b, a
    key = a << 32 | b
    r = _SUM.get(key)
    if r is not None:
        return r
    ta = _NUSV[a]
    tb = _NUSV[b]
    if ta is not None and tb is not None:
        r = _nus_id((ta[0] + tb[0], ta[1] + tb[1], ta[2] ^ tb[2]))
    elif _NUM[a] is not None:
        r = _canon({_add(a, i) for i in _LO[b]}, {_add(a, i) for i in _RO[b]})
    elif _NUM[b] is not None:
        r = _canon({_add(i, b) for i in _LO[a]}, {_add(i, b) for i in _RO[a]})
    else:
        lefts = {_add(i, b) for i in _LO[a]}
        lefts.update([_add(a, i) for i in _LO[b]])
        rights = {_add(i, b) for i in _RO[a]}
        rights.update([_add(a, i) for i in _RO[b]])
        r = _canon(lefts, rights)
    _SUM[key] = r
    return r


def _neg(a: int) -> int:
    """Id of ``-G_a`` (the negative of a canonical form is canonical)."""
    r = _NEG[a]
    if r >= 0:
        return r
    t = _NUSV[a]
    if t is not None:
        r = _nus_id((-t[0], -t[1], t[2]))
    else:
        lefts = tuple(sorted(_neg(i) for i in _RO[a]))
        rights = tuple(sorted(_neg(i) for i in _LO[a]))
        r = _intern((lefts, rights), None)
    _NEG[a] = r
    _NEG[r] = a
    return r


# -- small analyses needed here -----------------------------------------------------------------
_STOPS: dict[int, tuple[Fraction, Fraction]] = {}
_ALL_SMALL: dict[int, bool] = {}


def _stops(a: int) -> tuple[Fraction, Fraction]:
    """(left stop, right stop) of ``G_a``."""
    r = _STOPS.get(a)
    if r is None:
        t = _NUSV[a]
        if t is not None:
            r = (t[0], t[0])
        else:
            r = (max(_stops(i)[1] for i in _LO[a]), min(_stops(i)[0] for i in _RO[a]))
        _STOPS[a] = r
    return r


def _all_small(a: int) -> bool:
    r = _ALL_SMALL.get(a)
    if r is None:
        if a == 0:
            r = True
        elif not _LO[a] or not _RO[a]:
            r = False
        else:
            r = all(_all_small(i) for i in _LO[a]) and all(_all_small(i) for i in _RO[a])
        _ALL_SMALL[a] = r
    assert r is not None
    return r


def clear_caches() -> None:
    """Drop the sum, comparison and option-list caches (the interned table stays)."""
    _SUM.clear()
    _LE.clear()
    _RAW.clear()


def cache_info() -> dict[str, int]:
    """Sizes of the table and caches (for benchmarks and monitoring)."""
    return {"games": len(_OBJ), "sums": len(_SUM), "comparisons": len(_LE), "option_lists": len(_RAW)}


# -- constructors -------------------------------------------------------------------------------
def integer(n: int) -> Game:
    """The integer ``n``."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RumaInputError(f"not an integer: {n!r}")
    return _OBJ[_nus_id((Fraction(n), 0, 0))]


def number(x: Fraction | int) -> Game:
    """The number ``x``; raises ``RumaInputError`` (a ValueError) unless ``x`` is dyadic."""
    return _OBJ[_nus_id((dyadic(x), 0, 0))]


def nimber(k: int) -> Game:
    """The nimber ``*k`` (``k >= 0``)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise RumaInputError(f"not a nim value (a non-negative integer): {k!r}")
    return _OBJ[_nus_id((Fraction(0), 0, k))]


def up_multiple(n: int) -> Game:
    """``n·↑`` (``n`` may be negative: ``n·↓``)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RumaInputError(f"not an integer: {n!r}")
    return _OBJ[_nus_id((Fraction(0), n, 0))]


def nus_game(x: Fraction | int, n: int = 0, k: int = 0) -> Game:
    """``x + n·↑ + ∗k`` (``x`` dyadic, ``k >= 0``)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0 or not isinstance(n, int):
        raise RumaInputError(f"not a valid (x, n, k) for x + n.up + *k: {(x, n, k)!r}")
    return _OBJ[_nus_id((dyadic(x), n, k))]


ZERO: Game = _OBJ[_intern(((), ()), (Fraction(0), 0, 0))]
_NUS_ID[(Fraction(0), 0, 0)] = 0
ONE: Game = integer(1)
STAR: Game = nimber(1)
UP: Game = up_multiple(1)
DOWN: Game = up_multiple(-1)
