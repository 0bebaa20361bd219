"""A census of a family: per value (or outcome, atomic weight, temperature), how many classes and
raw positions have it, and the K simplest positions.

Input: the family's classes (``ruma.engine.families.classes.enumerate_family``, or one at a time from
``ruma.engine.families.stream.stream_classes``) and their stored values (a store's ``Memo.lookup``
or ``lookup_many``). ``Tally`` counts one class at a time, so a census streamed through it keeps
only its rows; restricted to some values (``wanted``) it keeps only theirs, and ``values_among``
then compares the ids the store keeps (``LmdbStore.value_ids_many``) without building any other
value — how ``ruma find`` and ``ruma census --value`` stay within a fixed memory on millions of
classes. A partizan class stands for raw
positions of two values, ``v`` (canonical orientation) and ``-v`` (mirrored): each orientation
that has raw positions is counted as one *oriented class* under its own value, so ``classes``
of a row counts oriented classes (an impartial class is one oriented class). Summed over the
rows, ``raw_positions`` is the family's raw count.

"Simplest" is ``families.classes.simplicity``: fewest seeds, then fewest pots, then the smallest row of
counts; each oriented class is shown by its simplest raw position.

Groupings (``BY``): ``value``; ``outcome`` (P, N, L, R); ``atomic-weight`` (Conway's atomic weight,
``None`` for a value that is not atomic, e.g. a number or a hot game); ``temperature``.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable, Sequence, Union

from ruma.engine.cgt import Game, Value, as_game, format_value
from ruma.engine.errors import NotAtomicError, RumaError, RumaInputError
from ruma.engine.families.classes import FamilyClass, simplicity
from ruma.engine.memo import Memo, capabilities
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["BY", "CensusRow", "census", "group_label", "values_among", "MissingValuesError", "OTHER", "Tally",
           "tally", "wanted_values"]

BY = ("value", "outcome", "atomic-weight", "temperature")
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
    unverified: int = 0
    """of ``classes``, those counted by a value the store marks unverified (an upload not re-valued yet)"""

    def label(self, style: str = "unicode") -> str:
        """The group in a notation (``ascii``, ``unicode``, ``braces``)."""
        return group_label(self.group, style)


def group_label(group: Group, style: str = "unicode") -> str:
    """A group printed: games in ``style``, outcomes as letters, ``none`` for no atomic weight."""
    if group is None:
        return "none"
    if isinstance(group, bool):
        return str(group)
    if isinstance(group, (Game, int)):
        return format_value(group, style)
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


class Tally:
    """Census rows built one class at a time (what ``census`` does, in memory that grows with the
    rows kept, not with the family).

    ``add(entry, value, unverified)`` counts one class: ``value`` is its stored value in the
    canonical orientation, ``None`` when it is not stored (counted in ``missing``), or ``OTHER``
    when it is stored but none of ``wanted``; ``unverified``: the store marks the value as an
    upload not re-valued yet (counted in its rows' ``unverified`` and in ``unverified``, the class
    kept in ``unverified_states``). ``wanted`` (values: ``Game``s, or nim values for an impartial
    ruleset) keeps only the oriented classes of those values; ``rows()`` gives the rows, in group
    order. ``classes`` and ``raw_positions`` count the whole family."""

    def __init__(self, rules: Ruleset, by: str = "value", simplest: int = 3,
                 wanted: Iterable[Value] | None = None) -> None:
        if simplest < 0:
            raise RumaInputError(f"--simplest must be >= 0, not {simplest}")
        self.rules, self.by, self.simplest = rules, by, simplest
        self.grouper = _grouper(by) if by != "value" else None
        self.wanted = None if wanted is None else set(wanted)
        self.classes = self.raw_positions = self.missing = self.unverified = 0
        self.unverified_states: set[State] = set()
        self._rows: dict[object, CensusRow] = {}
        self._heaps: dict[object, list[tuple[tuple[int, int, State], int, State, State, bool]]] = {}
        self._groups: dict[object, Group] = {}
        self._serial = 0

    def add(self, entry: FamilyClass, value: "Value | None | object", unverified: bool = False) -> None:
        """Count one class (see the class docstring)."""
        self.classes += 1
        self.raw_positions += entry.raw_total
        if value is None:
            self.missing += 1
            return
        if value is OTHER:
            return
        if unverified:
            self.unverified += 1
            self.unverified_states.add(entry.state)
        for raw, representative, mirrored in ((entry.raw, entry.representative, False),
                                              (entry.raw_mirrored, entry.representative_mirrored, True)):
            if not raw or representative is None:
                continue
            signed: Value = -value if mirrored and isinstance(value, Game) else value  # type: ignore[assignment]
            if self.wanted is not None and signed not in self.wanted:
                continue
            ident: object = signed if isinstance(signed, int) else ("g", signed.id)
            if self.grouper is None:
                group: Group = signed
            else:
                if ident in self._groups:
                    group = self._groups[ident]
                else:
                    group = self._groups[ident] = self.grouper(as_game(signed))
                ident = ("group", group.id) if isinstance(group, Game) else ("group", group)
            row = self._rows.get(ident)
            if row is None:
                row = self._rows[ident] = CensusRow(group)
                self._heaps[ident] = []
            row.classes += 1
            row.raw_positions += raw
            row.unverified += unverified
            if self.simplest:
                heap = self._heaps[ident]
                self._serial += 1
                item = (_negated(simplicity(representative)), self._serial, representative, entry.state, mirrored)
                if len(heap) < self.simplest:
                    heapq.heappush(heap, item)
                elif item[0] > heap[0][0]:
                    heapq.heapreplace(heap, item)

    def rows(self) -> list[CensusRow]:
        """The rows, ordered by group, each with its simplest positions."""
        for ident, row in self._rows.items():
            chosen = sorted(self._heaps[ident], key=lambda item: simplicity(item[2]))
            row.simplest = [(rep, state, mirrored) for _, _, rep, state, mirrored in chosen]
        return sorted(self._rows.values(), key=lambda r: _order(self.by, r.group))


class _Other:
    """The type of ``OTHER``."""

    def __repr__(self) -> str:
        return "OTHER"


#: what a value lookup answers for a stored class whose value is none of the wanted ones
OTHER = _Other()

ValuesOf = Callable[[Sequence[bytes]], Sequence["Value | None | object"]]
#: which of some keys a store marks unverified (``Store.provenance.unverified_among``)
Marked = Callable[[Sequence[bytes]], Sequence[bool]]


def tally(rules: Ruleset, classes: Iterable[FamilyClass], values_of: ValuesOf, by: str = "value",
          simplest: int = 3, wanted: Iterable[Value] | None = None, *, chunk: int = 4096,
          stop_at_missing: bool = False, marked: Marked | None = None) -> Tally:
    """A ``Tally`` of ``classes``, asking ``values_of`` for ``chunk`` keys at a time (a store's
    ``lookup_many``, or ``values_among``), and ``marked`` (a store's ``provenance.unverified_among``)
    which of them the store marks unverified; ``stop_at_missing``: stop at the first chunk with a
    class not stored (``missing`` is then at least 1, and the other counts are partial)."""
    counted = Tally(rules, by, simplest, wanted)
    batch: list[FamilyClass] = []

    def count() -> None:
        keys = [c.key for c in batch]
        marks = marked(keys) if marked is not None else [False] * len(keys)
        for item, value, mark in zip(batch, values_of(keys), marks):
            counted.add(item, value, mark)

    for entry in classes:
        batch.append(entry)
        if len(batch) >= chunk:
            count()
            batch = []
            if stop_at_missing and counted.missing:
                return counted
    if batch:
        count()
    return counted


def census(rules: Ruleset, classes: Iterable[FamilyClass], lookup: Callable[[bytes], Value | None],
           by: str = "value", simplest: int = 3) -> list[CensusRow]:
    """The census rows of ``classes`` (see the module docstring), ordered by group.

    Raises ``MissingValuesError`` when ``lookup`` misses any class.
    """
    counted = tally(rules, classes, lambda keys: [lookup(key) for key in keys], by, simplest)
    if counted.missing:
        raise MissingValuesError(counted.missing, counted.classes)
    return counted.rows()


def values_among(store: Memo, rules: Ruleset, wanted: Sequence[Value]) -> ValuesOf:
    """``values_of`` for a census restricted to ``wanted``, without building any other value.

    With a store that tells what it keeps under a key without building it (the LMDB store's
    ``value_ids_many(keys)``: a nim value or a game's ``store_game_id``), each class is a
    comparison of ids: the id of a wanted value or of its negative (a partizan class counts its
    mirror images under ``-v``) answers that value, any other stored id ``OTHER``, a key not
    stored ``None`` — memory for one chunk of keys, whatever the family or the value. Other stores
    are asked their values (``lookup_many``, else ``lookup``), other values becoming ``OTHER``."""
    targets = _targets(rules, wanted)
    able = capabilities(store)
    if able.store is not None:
        ids_of, game_id = able.store.value_ids_many, able.store.store_game_id
        by_id: dict[tuple[bool, int], Value] = {}
        for target in targets:
            if isinstance(target, int):
                by_id[(False, target)] = target
                continue
            store_id = game_id(target)
            if store_id is not None:  # (a game the store never held: no position has it)
                by_id[(True, store_id)] = target

        def from_ids(keys: Sequence[bytes]) -> list[Value | None | object]:
            return [None if found is None else by_id.get(found, OTHER) for found in ids_of(keys)]

        return from_ids
    look = able.lookup_each()
    chosen = set(targets)

    def from_values(keys: Sequence[bytes]) -> list[Value | None | object]:
        return [v if v is None or v in chosen else OTHER for v in look(keys)]

    return from_values


def _targets(rules: Ruleset, wanted: Sequence[Value]) -> list[Value]:
    """The stored values whose classes have an orientation of a wanted value: nim values for an
    impartial ruleset (a value that is no nimber has none), each game and its negative for a
    partizan one."""
    out: list[Value] = []
    for value in wanted:
        if rules.impartial:
            nim = value if isinstance(value, int) else value.nim_value
            if nim is not None and nim not in out:
                out.append(nim)
            continue
        game = as_game(value)
        for target in (game, -game):
            if target not in out:
                out.append(target)
    return out


def wanted_values(rules: Ruleset, wanted: Sequence[Value]) -> list[Value]:
    """``wanted`` as the values a ``Tally`` compares (nim values for an impartial ruleset)."""
    out: list[Value] = []
    for value in wanted:
        if not rules.impartial:
            out.append(as_game(value))
        elif isinstance(value, int) or value.nim_value is not None:
            out.append(value if isinstance(value, int) else int(value.nim_value))  # type: ignore[arg-type]
    return out


def _negated(key: tuple[int, int, State]) -> tuple[int, int, State]:
    """A key whose order is the reverse of ``simplicity`` (a max-heap on simplicity)."""
    seeds, pots, row = key
    return (-seeds, -pots, tuple(-v for v in row))
