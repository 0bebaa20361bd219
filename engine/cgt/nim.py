"""Impartial values as plain ints: ``mex`` and ``nim_sum``; ``nimber(k)`` converts to a ``Game``."""

from __future__ import annotations

from typing import Iterable

from ruma.engine.cgt.game import nimber

__all__ = ["mex", "nim_sum", "nimber"]


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least non-negative int not in ``values``."""
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m


def nim_sum(*values: int) -> int:
    """The nim sum (bitwise xor) of nim values."""
    r = 0
    for v in values:
        r ^= v
    return r
