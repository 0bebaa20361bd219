"""Analyses of canonical games: birthday, stops, thermographs, mean, temperature, atomic weight.

Every function takes a canonical ``Game`` and caches its answer by the game's ``id``.
Arithmetic is exact (``Fraction``).

Thermographs follow Siegel's *Combinatorial Game Theory* (II.5, with subzero thermography), the
convention CGSuite and cgt-py report: walls are defined for every temperature ``t >= -1``; an
integer is a bare mast (temperature ``-1``) and a number ``m/2^j`` has temperature ``-1/2^j``.
The left scaffold is the maximum of the options' right walls tilted by ``-t``, the right scaffold
the minimum of the options' left walls tilted by ``+t``. Where the left scaffold lies to the right
of the right scaffold ("hill") the walls are the scaffolds; elsewhere ("cave") both walls are one
mast that starts where the scaffolds cross (at ``t = -1``: the point of the base interval nearest
to 0), rises vertically and is pushed sideways by a scaffold that runs into it.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ruma.engine.errors import NotAtomicError

if TYPE_CHECKING:
    from ruma.engine.cgt.game import Game

__all__ = [
    "Thermograph",
    "Trajectory",
    "atomic_weight",
    "atomicity",
    "birthday",
    "is_atomic",
    "left_stop",
    "mean",
    "right_stop",
    "temperature",
    "thermograph",
]

_ZERO = Fraction(0)
_BASE = Fraction(-1)
Point = tuple[Fraction, Fraction]


# -- piecewise-linear trajectories ------------------------------------------------------------
class Trajectory:
    """A continuous piecewise-linear wall ``x(t)`` for temperatures ``t >= -1``.

    ``points`` are the vertices ``(t, x)`` in increasing ``t``, the first at ``t = -1``; above
    the last vertex the wall continues with slope ``top_slope`` (``dx/dt``; 0 is a vertical mast).
    The representation is canonical: no vertex sits between two segments of equal slope.
    """

    __slots__ = ("_ts", "_xs", "_ks", "_bs")

    def __init__(self, points: Iterable[Point], top_slope: Fraction) -> None:
        pts = list(points)
        ts = [t for t, _ in pts]
        xs = [x for _, x in pts]
        ks = [(xs[i + 1] - xs[i]) / (ts[i + 1] - ts[i]) for i in range(len(pts) - 1)]
        ks.append(Fraction(top_slope))
        self._set(ts, xs, ks, [x - k * t for t, x, k in zip(ts, xs, ks)])

    def _set(self, ts: list[Fraction], xs: list[Fraction], ks: list[Fraction], bs: list[Fraction]) -> None:
        self._ts, self._xs, self._ks, self._bs = ts, xs, ks, bs  # segment i starts at ts[i]

    @classmethod
    def _raw(cls, ts: list[Fraction], xs: list[Fraction], ks: list[Fraction], bs: list[Fraction]) -> Trajectory:
        new = cls.__new__(cls)
        new._set(ts, xs, ks, bs)
        return new

    @staticmethod
    def constant(x: Fraction) -> Trajectory:
        """The vertical line ``x(t) = x``."""
        return Trajectory(((_BASE, Fraction(x)),), _ZERO)

    @staticmethod
    def build(points: Iterable[Point], top_slope: Fraction) -> Trajectory:
        """A canonical trajectory through ``points`` (in increasing ``t``), collinear ones removed."""
        ts: list[Fraction] = []
        xs: list[Fraction] = []
        ks: list[Fraction] = []  # ks[i]: slope from vertex i to vertex i + 1
        for t, x in points:
            if ts and ts[-1] == t:
                continue
            if ts:
                k = (x - xs[-1]) / (t - ts[-1])
                if ks and ks[-1] == k:
                    ts[-1], xs[-1] = t, x
                    continue
                ks.append(k)
            ts.append(t)
            xs.append(x)
        top = Fraction(top_slope)
        while ks and ks[-1] == top:
            ks.pop()
            ts.pop()
            xs.pop()
        ks.append(top)
        return Trajectory._raw(ts, xs, ks, [x - k * t for t, x, k in zip(ts, xs, ks)])

    @property
    def points(self) -> tuple[Point, ...]:
        """The vertices ``(t, x)`` from ``t = -1`` upwards."""
        return tuple(zip(self._ts, self._xs))

    @property
    def top_slope(self) -> Fraction:
        """The slope above the last vertex (0: a vertical mast)."""
        return self._ks[-1]

    def __call__(self, t: Fraction) -> Fraction:
        """The wall's value at temperature ``t`` (``t >= -1``)."""
        i = bisect_right(self._ts, t) - 1
        if i < 0:
            i = 0
        return self._ks[i] * t + self._bs[i]

    def slope_above(self, t: Fraction) -> Fraction:
        """The slope of the segment just above ``t``."""
        return self._ks[max(bisect_right(self._ts, t) - 1, 0)]

    @property
    def critical_points(self) -> list[Fraction]:
        """The temperatures where the slope changes, highest first (CGSuite's order)."""
        return self._ts[:0:-1]

    @property
    def slopes(self) -> list[Fraction]:
        """The slopes from the top segment down to the base segment."""
        return self._ks[::-1]

    @property
    def mast_x_intercept(self) -> Fraction:
        """Where the top segment's line meets ``t = 0`` (the mast value when it is vertical)."""
        return self._bs[-1]

    def tilt(self, r: Fraction) -> Trajectory:
        """``x(t) + r·t``."""
        return Trajectory._raw(
            self._ts, [x + r * t for t, x in zip(self._ts, self._xs)], [k + r for k in self._ks], self._bs
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trajectory):
            return NotImplemented
        return (self._ts, self._xs, self._ks[-1]) == (other._ts, other._xs, other._ks[-1])

    def __hash__(self) -> int:
        return hash((tuple(self._ts), tuple(self._xs), self._ks[-1]))

    def __repr__(self) -> str:
        cps = ", ".join(str(c) for c in self.critical_points)
        slopes = ", ".join(str(s) for s in self.slopes)
        return f"Trajectory({self.mast_x_intercept}, [{cps}], [{slopes}])"


def _merged(f: Trajectory, g: Trajectory) -> list[Fraction]:
    out: list[Fraction] = []
    for t in heapq.merge(f._ts, g._ts):
        if not out or out[-1] != t:
            out.append(t)
    return out


def _crossings(f: Trajectory, g: Trajectory) -> list[Fraction]:
    """Every vertex temperature of ``f`` or ``g`` plus every point where they cross, in order."""
    ts = _merged(f, g)
    ds = [f(t) - g(t) for t in ts]
    out: list[Fraction] = []
    for i in range(len(ts) - 1):
        out.append(ts[i])
        da, db = ds[i], ds[i + 1]
        if (da < 0 < db) or (db < 0 < da):
            out.append(ts[i] + da * (ts[i + 1] - ts[i]) / (da - db))
    out.append(ts[-1])
    d, dk = ds[-1], f.top_slope - g.top_slope
    if (d < 0 < dk) or (dk < 0 < d):
        out.append(ts[-1] - d / dk)
    return out


def _extremum(f: Trajectory, g: Trajectory, pick: int) -> Trajectory:
    """Pointwise maximum (``pick = 1``) or minimum (``pick = -1``) of two trajectories."""
    ts = _crossings(f, g)
    choose = max if pick > 0 else min
    pts = [(t, choose(f(t), g(t))) for t in ts]
    last = ts[-1]
    key_f = (pick * f(last), pick * f.top_slope)
    key_g = (pick * g(last), pick * g.top_slope)
    return Trajectory.build(pts, f.top_slope if key_f >= key_g else g.top_slope)


@dataclass(frozen=True)
class Thermograph:
    """The exact thermograph of a game: its two walls, its temperature and its mast value."""

    left_wall: Trajectory
    right_wall: Trajectory
    temperature: Fraction
    mast: Fraction

    @property
    def left_breakpoints(self) -> list[Point]:
        """The left wall's vertices ``(t, x)`` from ``t = -1`` upwards (vertical above the last)."""
        return list(self.left_wall.points)

    @property
    def right_breakpoints(self) -> list[Point]:
        """The right wall's vertices ``(t, x)`` from ``t = -1`` upwards."""
        return list(self.right_wall.points)

    def at(self, t: Fraction) -> tuple[Fraction, Fraction]:
        """``(left wall, right wall)`` at temperature ``t``."""
        return self.left_wall(Fraction(t)), self.right_wall(Fraction(t))

    def __repr__(self) -> str:
        return f"Thermograph({self.left_wall!r}, {self.right_wall!r})"


def _intersect(ls: Trajectory, rs: Trajectory) -> Thermograph:
    """The thermographic intersection of a left and a right scaffold (see the module doc)."""
    ts = _crossings(ls, rs)
    lv = [ls(t) for t in ts]
    rv = [rs(t) for t in ts]
    mast = min(rv[0], max(lv[0], _ZERO))
    left: list[Point] = [(ts[0], max(lv[0], mast))]
    right: list[Point] = [(ts[0], min(rv[0], mast))]
    for i in range(1, len(ts)):
        a, b = ts[i - 1], ts[i]
        if lv[i - 1] - rv[i - 1] + lv[i] - rv[i] >= 0:  # hill (no crossing inside): the scaffolds
            mast = rv[i]
        else:  # cave: the mast, pushed by a scaffold that runs into it
            hits = []
            for s, value in ((ls, lv[i - 1]), (rs, rv[i - 1])):
                k = s.slope_above(a)
                if k:
                    hit = a + (mast - value) / k
                    if a < hit < b:
                        hits.append(hit)
            for t in sorted(hits):
                lt, rt = ls(t), rs(t)
                m = min(rt, max(lt, mast))
                left.append((t, max(lt, m)))
                right.append((t, min(rt, m)))
            mast = min(rv[i], max(lv[i], mast))
        left.append((b, max(lv[i], mast)))
        right.append((b, min(rv[i], mast)))
    lw = Trajectory.build(left, _ZERO)
    rw = Trajectory.build(right, _ZERO)
    top = max([_BASE] + lw.critical_points[:1] + rw.critical_points[:1])
    return Thermograph(lw, rw, top, lw(top))


# -- the analyses -----------------------------------------------------------------------------
_BIRTHDAY: dict[int, int] = {}
_LSTOP: dict[int, Fraction] = {}
_RSTOP: dict[int, Fraction] = {}
_THERMO: dict[int, Thermograph] = {}
_AW: dict[int, Game] = {}
_FAR: dict[int, int] = {}


def _followers_first(g: Game, done: dict[int, Any], leaf: Callable[[Game], bool]) -> Iterator[Game]:
    """``g`` and those of its followers not in ``done``, each after its options (a ``leaf`` without
    its options), from an explicit stack: deep games such as ``^9999`` need no deep recursion. The
    caller puts each game it is given into ``done``."""
    stack = [g]
    while stack:
        h = stack[-1]
        if h.id in done:
            stack.pop()
            continue
        if not leaf(h):
            missing = [o for o in h.left_options + h.right_options if o.id not in done]
            if missing:
                stack += missing
                continue
        stack.pop()
        yield h


def birthday(g: Game) -> int:
    """The birthday of ``g``'s canonical form (0 for ``0``; ``|n|`` for an integer ``n``)."""
    for h in _followers_first(g, _BIRTHDAY, lambda h: h.number_value is not None or h.nim_value is not None):
        x = h.number_value
        if x is not None:
            whole = math.floor(abs(x))
            _BIRTHDAY[h.id] = whole if x.denominator == 1 else whole + x.denominator.bit_length()
        elif h.nim_value is not None:
            _BIRTHDAY[h.id] = h.nim_value
        else:
            _BIRTHDAY[h.id] = 1 + max(_BIRTHDAY[o.id] for o in h.left_options + h.right_options)
    return _BIRTHDAY[g.id]


def left_stop(g: Game) -> Fraction:
    """Left's stop: the number reached when Left moves first and play stops at a number."""
    s = _LSTOP.get(g.id)
    if s is None:
        nus = g.nus
        s = nus[0] if nus is not None else max(right_stop(h) for h in g.left_options)
        _LSTOP[g.id] = s
    return s


def right_stop(g: Game) -> Fraction:
    """Right's stop: the number reached when Right moves first and play stops at a number."""
    s = _RSTOP.get(g.id)
    if s is None:
        nus = g.nus
        s = nus[0] if nus is not None else min(left_stop(h) for h in g.right_options)
        _RSTOP[g.id] = s
    return s


def _is_integer(g: Game) -> bool:
    x = g.number_value
    return x is not None and x.denominator == 1


def thermograph(g: Game) -> Thermograph:
    """The exact thermograph of ``g`` (an integer is a bare mast at temperature ``-1``)."""
    for h in _followers_first(g, _THERMO, _is_integer):
        x = h.number_value
        if x is not None and x.denominator == 1:
            wall = Trajectory.constant(x)
            _THERMO[h.id] = Thermograph(wall, wall, _BASE, x)
            continue
        lefts = [_THERMO[o.id].right_wall for o in h.left_options]
        rights = [_THERMO[o.id].left_wall for o in h.right_options]
        ls = lefts[0]
        for w in lefts[1:]:
            ls = _extremum(ls, w, 1)
        rs = rights[0]
        for w in rights[1:]:
            rs = _extremum(rs, w, -1)
        _THERMO[h.id] = _intersect(ls.tilt(_BASE), rs.tilt(Fraction(1)))
    return _THERMO[g.id]


def temperature(g: Game) -> Fraction:
    """The temperature: where the thermograph's mast starts (``-1/2^j`` for a number ``m/2^j``)."""
    nus = g.nus
    if nus is not None:
        x, n, k = nus
        return Fraction(-1, x.denominator) if n == 0 and k == 0 else _ZERO
    return thermograph(g).temperature


def mean(g: Game) -> Fraction:
    """The mean value (the mast's position)."""
    nus = g.nus
    return nus[0] if nus is not None else thermograph(g).mast


# -- atomic weight ----------------------------------------------------------------------------
def _far_star(g: Game) -> int:
    """One more than the largest nimber among ``g`` and its followers (at least 1)."""
    n = _FAR.get(g.id)
    if n is None:
        k = g.nim_value
        if k is not None:
            n = k + 1
        else:
            n = max([1] + [_far_star(h) for h in g.left_options + g.right_options])
        _FAR[g.id] = n
    return n


def _raw_weight(g: Game) -> Game:
    """Conway's atomic-weight recursion, as CGSuite computes it (no atomicity check)."""
    w = _AW.get(g.id)
    if w is not None:
        return w
    from ruma.engine.cgt import integer, nimber

    nus = g.nus
    if nus is not None:
        w = integer(nus[1])
        _AW[g.id] = w
        return w
    two = integer(2)
    lefts = [_raw_weight(h) - two for h in g.left_options]
    rights = [_raw_weight(h) + two for h in g.right_options]
    w0 = type(g).from_options(lefts, rights)
    w = w0
    if w0.is_integer:
        far = nimber(_far_star(g))
        below, above = g <= far, g >= far
        if below and not above:
            best = None
            for h in lefts:
                m = math.ceil(right_stop(h))
                m += 1 if integer(m) <= h else 0
                best = m if best is None else max(best, m)
            w = integer(0 if best is None else best)
        elif above and not below:
            best = None
            for h in rights:
                m = math.floor(left_stop(h))
                m -= 1 if h <= integer(m) else 0
                best = m if best is None else min(best, m)
            w = integer(0 if best is None else best)
    _AW[g.id] = w
    return w


def atomicity(g: Game) -> tuple[Game | None, str]:
    """``(atomic weight, "")`` when ``g`` is atomic, else ``(None, the reason it is not)``."""
    if not g.is_infinitesimal:
        return None, "it is not infinitesimal (its stops are not both 0)"
    w = _raw_weight(g)
    if g.is_all_small:
        return w, ""
    if not w.is_integer:
        return None, f"it is not all-small and its weight candidate {w} is not an integer"
    from ruma.engine.cgt import STAR, UP, nimber, up_multiple

    n = w.number_value
    assert n is not None
    diff = g - up_multiple(int(n))
    eps = UP + STAR + nimber(_far_star(g))
    if -eps < diff < eps:
        return w, ""
    return None, f"it is not all-small and it differs from {int(n)}.^ by more than ^* + *N"


def is_atomic(g: Game) -> bool:
    """True when ``g`` has an atomic weight (see ``atomic_weight`` for the reading used)."""
    return atomicity(g)[0] is not None


def atomic_weight(g: Game) -> Game:
    """The atomic weight of an atomic infinitesimal ``g`` (a game; an integer for most).

    ``g`` is atomic when it is all-small, or infinitesimal with an integer weight candidate
    ``n`` such that ``g - n·↑`` lies strictly between ``-(↑ + ∗ + ∗N)`` and ``↑ + ∗ + ∗N``
    (``∗N`` a far star). Otherwise raises ``NotAtomicError`` naming the game and the reason.
    """
    w, reason = atomicity(g)
    if w is None:
        from ruma.engine.cgt.notation import format_game

        raise NotAtomicError(f"{format_game(g)!r} is not atomic: {reason}")
    return w
