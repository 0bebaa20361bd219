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

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

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
@dataclass(frozen=True)
class Trajectory:
    """A continuous piecewise-linear wall ``x(t)`` for temperatures ``t >= -1``.

    ``points`` are the vertices ``(t, x)`` in increasing ``t``, the first at ``t = -1``; above
    the last vertex the wall continues with slope ``top_slope`` (``dx/dt``; 0 is a vertical mast).
    The representation is canonical: no vertex sits between two segments of equal slope.
    """

    points: tuple[Point, ...]
    top_slope: Fraction
    _ts: tuple[Fraction, ...] = field(init=False, repr=False, compare=False)
    _lines: tuple[tuple[Fraction, Fraction], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pts = self.points
        lines = []
        for a, b in zip(pts, pts[1:]):
            k = _slope(a, b)
            lines.append((k, a[1] - k * a[0]))
        lines.append((self.top_slope, pts[-1][1] - self.top_slope * pts[-1][0]))
        object.__setattr__(self, "_ts", tuple(t for t, _ in pts))
        object.__setattr__(self, "_lines", tuple(lines))

    @staticmethod
    def constant(x: Fraction) -> Trajectory:
        """The vertical line ``x(t) = x``."""
        return Trajectory(((_BASE, Fraction(x)),), _ZERO)

    @staticmethod
    def build(points: Iterable[Point], top_slope: Fraction) -> Trajectory:
        """A canonical trajectory through ``points`` (sorted, deduplicated, collinear removed)."""
        pts: list[Point] = []
        for t, x in sorted(set(points)):
            if pts and pts[-1][0] == t:
                continue
            if len(pts) >= 2 and _slope(pts[-2], pts[-1]) == _slope(pts[-1], (t, x)):
                pts[-1] = (t, x)
            else:
                pts.append((t, x))
        while len(pts) >= 2 and _slope(pts[-2], pts[-1]) == top_slope:
            pts.pop()
        return Trajectory(tuple(pts), Fraction(top_slope))

    def __call__(self, t: Fraction) -> Fraction:
        """The wall's value at temperature ``t`` (``t >= -1``)."""
        k, b = self._lines[max(bisect_right(self._ts, t) - 1, 0)]
        return k * t + b

    def slope_above(self, t: Fraction) -> Fraction:
        """The slope of the segment just above ``t``."""
        return self._lines[max(bisect_right(self._ts, t) - 1, 0)][0]

    @property
    def critical_points(self) -> list[Fraction]:
        """The temperatures where the slope changes, highest first (CGSuite's order)."""
        return [t for t, _ in reversed(self.points[1:])]

    @property
    def slopes(self) -> list[Fraction]:
        """The slopes from the top segment down to the base segment."""
        pts = self.points
        return [self.top_slope] + [_slope(a, b) for a, b in reversed(list(zip(pts, pts[1:])))]

    @property
    def mast_x_intercept(self) -> Fraction:
        """Where the top segment's line meets ``t = 0`` (the mast value when it is vertical)."""
        t, x = self.points[-1]
        return x - self.top_slope * t

    def tilt(self, r: Fraction) -> Trajectory:
        """``x(t) + r·t``."""
        return Trajectory(tuple((t, x + r * t) for t, x in self.points), self.top_slope + r)

    def __repr__(self) -> str:
        cps = ", ".join(str(c) for c in self.critical_points)
        slopes = ", ".join(str(s) for s in self.slopes)
        return f"Trajectory({self.mast_x_intercept}, [{cps}], [{slopes}])"


def _slope(a: Point, b: Point) -> Fraction:
    return (b[1] - a[1]) / (b[0] - a[0])


def _crossings(f: Trajectory, g: Trajectory) -> list[Fraction]:
    """Every vertex temperature of ``f`` or ``g`` plus every point where they cross."""
    ts = sorted({t for t, _ in f.points} | {t for t, _ in g.points})
    out = list(ts)
    for a, b in zip(ts, ts[1:]):
        da, db = f(a) - g(a), f(b) - g(b)
        if da * db < 0:
            out.append(a + da * (b - a) / (da - db))
    last = ts[-1]
    d, ds = f(last) - g(last), f.top_slope - g.top_slope
    if d * ds < 0:
        out.append(last - d / ds)
    return sorted(set(out))


def _extremum(f: Trajectory, g: Trajectory, pick: int) -> Trajectory:
    """Pointwise maximum (``pick = 1``) or minimum (``pick = -1``) of two trajectories."""
    ts = _crossings(f, g)
    pts = [(t, max(f(t), g(t)) if pick > 0 else min(f(t), g(t))) for t in ts]
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
    mast = min(rs(_BASE), max(ls(_BASE), _ZERO))
    left: list[Point] = []
    right: list[Point] = []

    def emit(t: Fraction, m: Fraction) -> None:
        left.append((t, max(ls(t), m)))
        right.append((t, min(rs(t), m)))

    emit(_BASE, mast)
    for a, b in zip(ts, ts[1:]):
        mid = (a + b) / 2
        if ls(mid) >= rs(mid):  # hill: the walls are the scaffolds
            mast = rs(b)
            emit(b, mast)
            continue
        inner = [b]
        for s in (ls, rs):  # where a scaffold runs into the vertical mast
            k = s.slope_above(a)
            if k:
                hit = a + (mast - s(a)) / k
                if a < hit < b:
                    inner.append(hit)
        for t in sorted(inner):
            emit(t, min(rs(t), max(ls(t), mast)))
        mast = min(rs(b), max(ls(b), mast))
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


def birthday(g: Game) -> int:
    """The birthday of ``g``'s canonical form (0 for ``0``; ``|n|`` for an integer ``n``)."""
    b = _BIRTHDAY.get(g.id)
    if b is None:
        x = g.number_value
        if x is not None:
            whole = math.floor(abs(x))
            b = whole if x.denominator == 1 else whole + x.denominator.bit_length()
        elif g.nim_value is not None:
            b = g.nim_value
        else:
            b = 1 + max(birthday(h) for h in g.left_options + g.right_options)
        _BIRTHDAY[g.id] = b
    return b


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


def thermograph(g: Game) -> Thermograph:
    """The exact thermograph of ``g`` (an integer is a bare mast at temperature ``-1``)."""
    th = _THERMO.get(g.id)
    if th is None:
        x = g.number_value
        if x is not None and x.denominator == 1:
            wall = Trajectory.constant(x)
            th = Thermograph(wall, wall, _BASE, x)
        else:
            lefts = [thermograph(h).right_wall for h in g.left_options]
            rights = [thermograph(h).left_wall for h in g.right_options]
            ls = lefts[0]
            for w in lefts[1:]:
                ls = _extremum(ls, w, 1)
            rs = rights[0]
            for w in rights[1:]:
                rs = _extremum(rs, w, -1)
            th = _intersect(ls.tilt(_BASE), rs.tilt(Fraction(1)))
        _THERMO[g.id] = th
    return th


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
