"""The pure-Python game kernel: tables, interning, canonicalisation, order, sums — on int ids.

The readable reference of the compiled kernel (``_core.kernel``, engine/native/kernel.c), which
has the same public functions (``canon``, ``add``, ``neg``, ``le``, ``left_ids``, ``right_ids``,
``nus``, ``number``, ``nim``, ``stops``, ``nus_id``, ``all_small``, ``count``, ``handle``,
``set_factory``, ``cache_info``, ``clear_caches``) with the same meanings, and is tested against
it (tests/engine/test_kernel_differential.py). ``ruma.engine.cgt.game`` runs on this one when the
pure-Python engine is active (``RUMA_ENGINE=python``). Everything here works on small int ids and
tuples of ids; each id's one ``Game`` object is made by the factory ``game`` installs. See the
docstring of ``ruma.engine.cgt.game`` for the algorithms and their sources.

Recursion: comparisons and canonicalisation recurse along the game tree (depth = birthday), which
is fine for birthdays below a few hundred under Python's default recursion limit.
"""

from __future__ import annotations

import threading
from fractions import Fraction
from typing import Any, Callable, Iterable

from ruma.engine.cgt.nus import NUS, Num, simplest_between

Ids = tuple[int, ...]
Key = tuple[Ids, Ids]

# -- the tables (index = id) ------------------------------------------------------------------
_LO: list[Ids] = []  # left option ids, sorted
_RO: list[Ids] = []  # right option ids, sorted
_OBJ: list[Any] = []  # the one Game object per id
_NUSV: list[NUS | None] = []  # (x, n, k) when the game is x + n.up + *k (x an int when integral)
_NUM: list[Num | None] = []  # x when the game is the number x
_NIM: list[int | None] = []  # k when the game is *k
_NEG: list[int] = []  # id of the negative, -1 until computed
_LS: list[Num | float] = []  # left stop (as a float when exactly representable: fast, still exact)
_RS: list[Num | float] = []  # right stop (same)
_TABLE: dict[Key, int] = {}  # canonical (lefts, rights) -> id
_RAW: dict[Key, int] = {}  # any (sorted, deduped) option key seen -> canonical id (a cache)
_NUS_ID: dict[NUS, int] = {}
_SUM: dict[int, int] = {}  # (a << 32 | b), a <= b -> id of a + b
_LE: dict[int, bool] = {}  # (a << 32 | b) -> a <= b
_LOCK = threading.RLock()
CACHE_LIMIT = 2_000_000
"""The comparison and sum caches are dropped when they grow past this many entries (~200 MB)."""
RAW_LIMIT = 1_000_000
"""The cache of raw option lists is dropped past this many entries (~200 MB)."""

_FACTORY: list[Callable[[int], Any]] = []


def set_factory(factory: Callable[[int], Any]) -> None:
    """Install the function that makes the one object of a new id (called once by game.py)."""
    _FACTORY.append(factory)


def _fast_key(x: Num) -> Num | float:
    """``x`` as a float when that float equals ``x`` exactly (dyadics usually are), else ``x``.

    Python compares floats, ints and Fractions exactly, so order tests on these keys are exact.
    """
    try:
        f = float(x)
    except OverflowError:
        return x
    return f if f == x else x


# -- interning --------------------------------------------------------------------------------
def _intern(key: Key, tag: NUS | None) -> int:
    with _LOCK:
        i = _TABLE.get(key)
        if i is None:
            lefts, rights = key
            i = len(_OBJ)
            g = _FACTORY[0](i)
            _LO.append(lefts)
            _RO.append(rights)
            _NUSV.append(None)
            _NUM.append(None)
            _NIM.append(None)
            _NEG.append(-1)
            if tag is not None:
                _LS.append(_fast_key(tag[0]))
                _RS.append(_LS[-1])
            else:  # a non-number canonical form has options on both sides
                _LS.append(max([_RS[j] for j in lefts]))
                _RS.append(min([_LS[j] for j in rights]))
            _OBJ.append(g)
            _TABLE[key] = i
        if tag is not None and _NUSV[i] is None:
            _NUSV[i] = tag
            _LS[i] = _RS[i] = _fast_key(tag[0])
            if tag[1] == 0:
                if tag[2] == 0:
                    _NUM[i] = tag[0]
                if tag[0] == 0:
                    _NIM[i] = tag[2]
            _NUS_ID.setdefault(tag, i)
        return i


def _nus_id(t: NUS) -> int:
    """The id of ``x + n·↑ + ∗k``, building its canonical form on first use."""
    i = _NUS_ID.get(t)
    if i is not None:
        return i
    x, n, k = t
    if type(x) is not int:
        if x.denominator == 1:
            x = x.numerator
        t = (x, n, k)
    if n == 0 and k == 0:
        if type(x) is int:
            if abs(x) > 1 and (x - (1 if x > 0 else -1), 0, 0) not in _NUS_ID:
                for m in range(1, abs(x)):  # build integers upwards: no deep recursion
                    _nus_id((m if x > 0 else -m, 0, 0))
            if x > 0:
                key: Key = ((_nus_id((x - 1, 0, 0)),), ())
            elif x < 0:
                key = ((), (_nus_id((x + 1, 0, 0)),))
            else:
                key = ((), ())
        else:
            step_f = Fraction(1, x.denominator)
            key = ((_nus_id((x - step_f, 0, 0)),), (_nus_id((x + step_f, 0, 0)),))
        i = _intern(key, t)
    elif n == 0:
        opts = tuple(sorted([_nus_id((x, 0, j)) for j in range(k)]))
        i = _intern((opts, opts), t)
    else:
        # n != 0: x + n.up + *k = {x | x + (n-1).up + *(k^1)} for n >= 1, except
        # x + up* = {x, x* | x}; mirror images for n <= -1 (the known canonical forms of n.up + *k,
        # checked against cgt-py in the tests). Build the chain upwards: no deep recursion.
        sign = 1 if n > 0 else -1
        if abs(n) > 1 and (x, n - sign, k ^ 1) not in _NUS_ID:  # (once the chain exists: O(1))
            for m in range(1, abs(n)):
                _nus_id((x, sign * m, k ^ ((abs(n) - m) & 1)))
        zero = _nus_id((x, 0, 0))
        if k == 1 and (n == 1 or n == -1):
            both = tuple(sorted((zero, _nus_id((x, 0, 1)))))
            key = (both, (zero,)) if n > 0 else ((zero,), both)
        else:
            prev = _nus_id((x, n - sign, k ^ 1))
            key = ((zero,), (prev,)) if n > 0 else ((prev,), (zero,))
        i = _intern(key, t)
    _NUS_ID[t] = i
    if _NUSV[i] is None:
        _intern((_LO[i], _RO[i]), t)
    return i


# -- canonicalisation -------------------------------------------------------------------------
def _canon(lefts: set[int], rights: set[int]) -> int:
    key = (tuple(sorted(lefts)), tuple(sorted(rights)))
    i = _RAW.get(key)
    if i is None:
        i = _TABLE.get(key)
        if i is None:
            i = _canonicalise(lefts, rights, None)
        if len(_RAW) > RAW_LIMIT:
            _RAW.clear()
        _RAW[key] = i
    return i


def _fast(lefts: set[int], rights: set[int]) -> int:
    """The id when all options are nimbers with equal sides or all are numbers, else -1."""
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
            return _nus_id((0, 0, m))
    num = _NUM
    lo: Num | None = None
    hi: Num | None = None
    for i in lefts:
        x = num[i]
        if x is None:
            return -1
        if lo is None or x > lo:
            lo = x
    for i in rights:
        x = num[i]
        if x is None:
            return -1
        if hi is None or x < hi:
            hi = x
    if lo is None or hi is None or lo < hi:
        return _nus_id((simplest_between(lo, hi), 0, 0))
    # a switch {a | b} with numbers a >= b is canonical
    return _finish(((_nus_id((lo, 0, 0)),), (_nus_id((hi, 0, 0)),)), None)


def _canonicalise(lefts: set[int], rights: set[int], tag: NUS | None) -> int:
    """Canonical id of ``{lefts | rights}`` (option ids canonical; the sets may be consumed)."""
    i = _fast(lefts, rights)
    if i >= 0:
        return i
    bypassed = False  # True once any option was removed or bypassed
    le = _le
    ls, rs = _LS, _RS
    while True:
        if len(lefts) > 1:  # a <= b needs LS(a) <= LS(b) and RS(a) <= RS(b)
            keep = set()
            for a in lefts:
                la, ra = ls[a], rs[a]
                for b in lefts:
                    if b != a and ls[b] >= la and rs[b] >= ra and le(a, b):
                        break
                else:
                    keep.add(a)
            bypassed = bypassed or len(keep) < len(lefts)
            lefts = keep
        if len(rights) > 1:
            keep = set()
            for a in rights:
                la, ra = ls[a], rs[a]
                for b in rights:
                    if b != a and ls[b] <= la and rs[b] <= ra and le(b, a):
                        break
                else:
                    keep.add(a)
            bypassed = bypassed or len(keep) < len(rights)
            rights = keep
        changed = False
        for a in lefts:
            for ar in _RO[a]:
                if _le_xg(ar, lefts, rights):
                    lefts = (lefts - {a}) | set(_LO[ar])
                    changed = True
                    break
            if changed:
                break
        else:
            for a in rights:
                for al in _LO[a]:
                    if _le_gx(lefts, rights, al):
                        rights = (rights - {a}) | set(_RO[al])
                        changed = True
                        break
                if changed:
                    break
        if not changed:
            if bypassed:  # the remaining options may all be numbers or nimbers now
                i = _fast(lefts, rights)
                if i >= 0:
                    return i
            return _finish((tuple(sorted(lefts)), tuple(sorted(rights))), tag)
        bypassed = True


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
    """``G_a <= G_b``: no ``G_a^L >= G_b`` and no ``G_b^R <= G_a`` (cached by id pair).

    Shortcuts: NUS arithmetic; stops (``G <= H`` implies ``LS(G) <= LS(H)`` and
    ``RS(G) <= RS(H)``; ``LS(G) < RS(H)`` implies ``G < x < H`` for a number ``x`` between).
    """
    if a == b:
        return True
    lsa = _LS[a]
    lsb = _LS[b]
    ta = _NUSV[a]
    if ta is not None:
        tb = _NUSV[b]
        if tb is not None:  # the stops are the number parts
            if lsa != lsb:
                return lsa < lsb
            n = tb[1] - ta[1]
            if n == 0:
                return ta[2] == tb[2]
            return n > 1 or (n == 1 and ta[2] ^ tb[2] != 1)
    if lsa > lsb:
        return False
    rsb = _RS[b]
    if lsa < rsb:
        return True
    if _RS[a] > rsb:
        return False
    key = a << 32 | b
    r = _LE.get(key)
    if r is None:
        r = True
        ls, rs = _LS, _RS
        for i in _LO[a]:  # b <= i needs LS(b) <= LS(i) and RS(b) <= RS(i)
            if ls[i] >= lsb and rs[i] >= rsb and _le(b, i):
                r = False
                break
        else:
            rsa = rs[a]
            for i in _RO[b]:  # i <= a needs LS(i) <= LS(a) and RS(i) <= RS(a)
                if ls[i] <= lsa and rs[i] <= rsa and _le(i, a):
                    r = False
                    break
        if len(_LE) > CACHE_LIMIT:
            _LE.clear()
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
    else:
        # explicit loops (no comprehension frames): recursion depth is one frame per level
        lefts: set[int] = set()
        rights: set[int] = set()
        if _NUM[b] is None:  # number translation: x + G = {x + G^L | x + G^R}
            for i in _LO[b]:
                lefts.add(_add(a, i))
            for i in _RO[b]:
                rights.add(_add(a, i))
        if _NUM[a] is None:
            for i in _LO[a]:
                lefts.add(_add(i, b))
            for i in _RO[a]:
                rights.add(_add(i, b))
        r = _canon(lefts, rights)
    if len(_SUM) > CACHE_LIMIT:
        _SUM.clear()
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
        lefts = []
        for i in _RO[a]:
            lefts.append(_neg(i))
        rights = []
        for i in _LO[a]:
            rights.append(_neg(i))
        r = _intern((tuple(sorted(lefts)), tuple(sorted(rights))), None)
    _NEG[a] = r
    _NEG[r] = a
    return r


# -- small analyses needed here -----------------------------------------------------------------
_ALL_SMALL: dict[int, bool] = {}


def _all_small(a: int) -> bool:
    """Whether every follower of ``a`` with a move for one player has one for the other (followers
    first, from an explicit stack: no deep recursion for deep games)."""
    stack = [a]
    while stack:
        b = stack[-1]
        if b in _ALL_SMALL:
            stack.pop()
            continue
        if b == 0:
            _ALL_SMALL[b] = True
        elif not _LO[b] or not _RO[b]:
            _ALL_SMALL[b] = False
        else:
            options = _LO[b] + _RO[b]
            if any(_ALL_SMALL.get(i) is False for i in options):
                _ALL_SMALL[b] = False
            else:
                missing = [i for i in options if i not in _ALL_SMALL]
                if missing:
                    stack += missing
                    continue
                _ALL_SMALL[b] = True
        stack.pop()
    return _ALL_SMALL[a]


def clear_caches() -> None:
    """Drop the sum, comparison and option-list caches (the interned table stays)."""
    _SUM.clear()
    _LE.clear()
    _RAW.clear()


def cache_info() -> dict[str, int]:
    """Sizes of the table and caches (for benchmarks and monitoring)."""
    return {"games": len(_OBJ), "objects": len(_OBJ), "sums": len(_SUM), "comparisons": len(_LE),
            "option_lists": len(_RAW)}


# -- the interface ``ruma.engine.cgt.game`` uses (the compiled kernel, ``_core.kernel``, has the
# -- same functions with the same meanings: engine/native/kernel.c) ---------------------------
def canon(lefts: Iterable[int], rights: Iterable[int]) -> int:
    """The id of the canonical form of ``{lefts | rights}`` (option ids of canonical games)."""
    return _canon(set(lefts), set(rights))


add = _add
neg = _neg
all_small = _all_small


def le(a: int, b: int) -> bool:
    """``G_a <= G_b``."""
    return _le(a, b)


left_ids: Callable[[int], Ids] = _LO.__getitem__  # Left's option ids (sorted)
right_ids: Callable[[int], Ids] = _RO.__getitem__  # Right's option ids (sorted)
nus: Callable[[int], "NUS | None"] = _NUSV.__getitem__  # (x, n, k) when G = x + n.up + *k (x an int when integral)
number: Callable[[int], "Num | None"] = _NUM.__getitem__  # x when G is the number x
nim: Callable[[int], "int | None"] = _NIM.__getitem__  # k when G is *k


def stops(a: int) -> tuple[Num, Num]:
    """(Left's stop, Right's stop), exact (a float kept for speed is exactly a Fraction)."""
    ls, rs = _LS[a], _RS[a]
    return Fraction(ls) if isinstance(ls, float) else ls, Fraction(rs) if isinstance(rs, float) else rs


def nus_id(x: Num, n: int, k: int) -> int:
    """The id of ``x + n·↑ + ∗k`` (``x`` dyadic)."""
    return _nus_id((x, n, k))


def count() -> int:
    """The number of games interned (ids are ``0 .. count() - 1``)."""
    return len(_OBJ)


def handle(a: int) -> Any:
    """The one object of game ``a``."""
    if not 0 <= a < len(_OBJ):
        raise IndexError(f"no game with id {a}")
    return _OBJ[a]
