"""A census of a family: per value (or outcome, atomic weight, temperature), how many classes and
raw positions have it, and the K simplest positions.

Input: the family's classes (``ruma.engine.families.enum.enumerate_family``) and a ``lookup`` from
canonical keys to stored values (a store's ``Memo.lookup``). A partizan class stands for raw
positions of two values, ``v`` (canonical orientation) and ``-v`` (mirrored): each orientation
that has raw positions is counted as one *oriented class* under its own value, so ``classes``
of a row counts oriented classes (an impartial class is one oriented class). Summed over the
rows, ``raw_positions`` is the family's raw count.

"Simplest" is ``families.enum.simplicity``: fewest seeds, then fewest pots, then the smallest row of
counts; each oriented class is shown by its simplest raw position.

Groupings (``BY``): ``value``; ``outcome`` (P, N, L, R); ``atomic-weight`` (Conway's atomic weight,
``None`` for a value that is not atomic, e.g. a number or a hot game); ``temperature``.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable, Union

from ruma.engine.cgt import Game, nimber
from ruma.engine.errors import NotAtomicError, RumaError, RumaInputError
from ruma.engine.families.enum import FamilyClass, simplicity
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["BY", "CensusRow", "census", "group_label", "MissingValuesError"]

BY = ("value", "outcome", "atomic-weight", "temperature")
Value = Union[Game, int]
Group = Union[Game, int, str, Fraction, None]
_OUTCOME_ORDER = {"P": 0, "N": 1, "L": 2, "R": 3}


class MissingValuesError(RumaError):
    """Some classes of the family have no stored value (sweep the family first)."""

    def __init__(self, missing: int, total: int) -> None:
        self.missing, self.total = missing, total
        super().__init__(f"{missing} of {total} classes of the family have no stored value (sweep it first)")


@dataclass
class CensusRow:
    """One group: ``group`` is a value (``Game``/nim value), an outcome letter, an atomic weight
    (``Game`` or ``None``) or a temperature (``Fraction``)."""

    group: Group
    classes: int = 0
    raw_positions: int = 0
    simplest: list[tuple[State, State, bool]] = field(default_factory=list)
    """``(simplest raw position, canonical state, mirrored)`` of the K simplest oriented classes."""

    def label(self, style: str = "unicode") -> str:
        """The group in a notation (``ascii``, ``unicode``, ``braces``)."""
        return group_label(self.group, style)


def group_label(group: Group, style: str = "unicode") -> str:
    """A group printed: games in ``style``, outcomes as letters, ``none`` for no atomic weight."""
    from ruma.engine.cgt.notation import format_game

    if group is None:
        return "none"
    if isinstance(group, Game):
        return format_game(group, style)
    if isinstance(group, bool):
        return str(group)
    if isinstance(group, int):
        return format_game(nimber(group), style)
    return str(group)


def _grouper(by: str) -> Callable[[Game], Group]:
    if by == "outcome":
        return lambda g: g.outcome.value
    if by == "temperature":
        return lambda g: g.temperature
    if by == "atomic-weight":
        def weight(g: Game) -> Group:
            if not (g.is_infinitesimal or g.nim_value == 0):
                return None
            try:
                return g.atomic_weight
            except NotAtomicError:
                return None
        return weight
    raise RumaInputError(f"unknown census grouping {by!r}; use one of {', '.join(BY)}")


def _order(by: str, group: Group) -> tuple[object, ...]:
    if group is None:
        return (2,)
    if isinstance(group, int) and not isinstance(group, bool):
        return (0, group)
    if isinstance(group, str):
        return (0, _OUTCOME_ORDER.get(group, 9), group)
    if isinstance(group, Fraction):
        return (0, group)
    if not isinstance(group, Game):
        return (1, str(group))
    from ruma.engine.cgt.notation import sort_key

    number = group.number_value
    if number is not None:
        return (0, 0, number)
    return (1, repr(sort_key(group)))


def census(rules: Ruleset, classes: Iterable[FamilyClass], lookup: Callable[[bytes], Value | None],
           by: str = "value", simplest: int = 3) -> list[CensusRow]:
    """The census rows of ``classes`` (see the module docstring), ordered by group.

    Raises ``MissingValuesError`` when ``lookup`` misses any class.
    """
    if by != "value":
        grouper = _grouper(by)
    if simplest < 0:
        raise RumaInputError(f"--simplest must be >= 0, not {simplest}")
    rows: dict[object, CensusRow] = {}
    heaps: dict[object, list[tuple[tuple[int, int, State], int, State, State, bool]]] = {}
    cache: dict[object, Group] = {}
    missing = total = 0
    serial = 0
    for entry in classes:
        total += 1
        value = lookup(entry.key)
        if value is None:
            missing += 1
            continue
        for raw, representative, mirrored in ((entry.raw, entry.representative, False),
                                              (entry.raw_mirrored, entry.representative_mirrored, True)):
            if not raw or representative is None:
                continue
            signed: Value = -value if mirrored and isinstance(value, Game) else value
            if by == "value":
                group: Group = signed
                ident: object = signed if isinstance(signed, int) else ("g", signed.id)
            else:
                ident = signed if isinstance(signed, int) else ("g", signed.id)
                if ident in cache:
                    group = cache[ident]
                else:
                    group = cache[ident] = grouper(nimber(signed) if isinstance(signed, int) else signed)
                ident = ("group", group.id) if isinstance(group, Game) else ("group", group)
            row = rows.get(ident)
            if row is None:
                row = rows[ident] = CensusRow(group)
                heaps[ident] = []
            row.classes += 1
            row.raw_positions += raw
            if simplest:
                heap = heaps[ident]
                serial += 1
                item = (_negated(simplicity(representative)), serial, representative, entry.state, mirrored)
                if len(heap) < simplest:
                    heapq.heappush(heap, item)
                elif item[0] > heap[0][0]:
                    heapq.heapreplace(heap, item)
    if missing:
        raise MissingValuesError(missing, total)
    for ident, row in rows.items():
        chosen = sorted(heaps[ident], key=lambda item: simplicity(item[2]))
        row.simplest = [(rep, state, mirrored) for _, _, rep, state, mirrored in chosen]
    return sorted(rows.values(), key=lambda r: _order(by, r.group))


def _negated(key: tuple[int, int, State]) -> tuple[int, int, State]:
    """A key whose order is the reverse of ``simplicity`` (a max-heap on simplicity)."""
    seeds, pots, row = key
    return (-seeds, -pots, tuple(-v for v in row))
