"""Numbers, ups and stars: exact helpers for the "number + n·↑ + ∗k" (NUS) fast path.

A NUS value is the triple ``(x, n, k)`` standing for ``x + n·↑ + ∗k`` with ``x`` a dyadic
rational (``Fraction``), ``n`` an ``int`` and ``k ≥ 0`` an ``int``. These functions are pure
arithmetic on triples; ``ruma.engine.cgt.game`` interns the corresponding canonical forms.

Facts used (Berlekamp–Conway–Guy, *Winning Ways*, ch. 3; Siegel, *Combinatorial Game Theory*,
II.4): sums add ``x`` and ``n`` and nim-add ``k``; ``-(x, n, k) = (-x, -n, k)``; with ``x = 0``,
``n·↑ + ∗k`` is positive for ``n ≥ 2``, and for ``n = 1`` unless ``k = 1`` (``↑∗`` is fuzzy); it
is zero only when ``n = k = 0`` and fuzzy when ``n = 0 < k``.
"""

from __future__ import annotations

from fractions import Fraction

from ruma.engine.errors import RumaInputError

Num = Fraction | int
"""A dyadic number: an ``int`` when integral (faster), else a ``Fraction``."""
NUS = tuple[Num, int, int]

_ZERO = Fraction(0)


def nus_neg(a: NUS) -> NUS:
    """The NUS triple of ``-a``."""
    return (-a[0], -a[1], a[2])


def nus_sign(a: NUS) -> int:
    """Compare ``a`` with zero: 1 (positive), -1 (negative), 0 (zero) or 2 (fuzzy)."""
    x, n, k = a
    if x > 0:
        return 1
    if x < 0:
        return -1
    if n == 0:
        return 0 if k == 0 else 2
    if n == 1 or n == -1:
        if k == 1:
            return 2
    return 1 if n > 0 else -1


def nus_ge_zero(a: NUS) -> bool:
    """``a >= 0`` for a NUS triple."""
    s = nus_sign(a)
    return s == 1 or s == 0


def dyadic(value: Fraction | int) -> Fraction:
    """``value`` as a ``Fraction`` after checking that its denominator is a power of two.

    Raises ``RumaInputError`` (a ``ValueError``) quoting the value otherwise.
    """
    try:
        x = Fraction(value)
    except (TypeError, ValueError) as exc:
        raise RumaInputError(f"not a number: {value!r}") from exc
    d = x.denominator
    if d & (d - 1):
        raise RumaInputError(f"not a dyadic rational (a short game number): {str(value)!r}")
    return x


def simplest_between(low: Num | None, high: Num | None) -> Num:
    """The simplest dyadic rational strictly between ``low`` and ``high`` (``None``: unbounded).

    Requires ``low < high`` when both are given (the simplicity rule, Winning Ways ch. 2).
    """
    if low is None and high is None:
        return _ZERO
    if low is None:
        assert high is not None
        if high > 0:
            return _ZERO
        return Fraction(-((-high).__floor__()) - 1)  # ceil(high) - 1
    if high is None:
        if low < 0:
            return _ZERO
        return Fraction(low.__floor__() + 1)
    if low < 0 < high:
        return _ZERO
    if low >= 0:
        candidate = Fraction(low.__floor__() + 1)
        if candidate < high:
            return candidate
    else:
        candidate = Fraction(-((-high).__floor__()) - 1)
        if candidate > low:
            return candidate
    denominator = 2
    while True:
        m = (low * denominator).__floor__() + 1
        candidate = Fraction(m, denominator)
        if candidate < high:
            return candidate
        denominator *= 2
