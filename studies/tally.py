"""A census streamed over a family's rows: per wanted value, its raw positions and simplest rows.

``census`` (``ruma.engine.families.census``) groups the family's classes, which it holds in memory
all at once — about 400 bytes a class, 4 GB for the ten million classes of Sowing ≤ 14. A *tally*
walks the same rows as ``enumerate_family`` (``families.classes.weighted_rows``: stripped rows weighed by
their paddings, each with its mirror image), looks each row's class up in the store in batches,
and keeps books only for the values ``wanted`` accepts: memory grows with the wanted values, not
with the family.

Per wanted value (``TallyRow``): the raw positions that have it (as in a census: both
orientations, empty end pots counted), the ``simplest`` rows of distinct oriented classes in the
census order (fewest seeds, then fewest pots, then the smallest row: ``families.classes.simplicity``), and
the row with the fewest pots (then fewest seeds, then the smallest row). A partizan row's value
is its class's value, negated when the row is the mirror image of the class's canonical state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence, Union

from ruma.engine.cgt import Value
from ruma.engine.errors import CancelledError, RumaError
from ruma.engine.families.census import MissingValuesError
from ruma.engine.families.classes import Family, raw_count, simplicity, weighted_rows
from ruma.engine.rulesets.base import State

__all__ = ["Tally", "TallyRow", "tally", "merge", "fewest_pots", "UnsweptError"]

LookupMany = Callable[[Sequence[bytes]], Sequence[Union[Value, None]]]


class UnsweptError(MissingValuesError):
    """Rows of the family whose class has no stored value (sweep the family first)."""

    def __init__(self, missing: int, family: Family) -> None:
        self.missing, self.total = missing, 0
        RumaError.__init__(self, f"{missing} classes of {family.describe()} have no stored value (sweep it first)")


def fewest_pots(row: State) -> tuple[int, int, State]:
    """The order of "fewest pots": pots, then seeds, then the smallest row."""
    return (len(row), sum(row), row)


@dataclass
class TallyRow:
    """The books of one value: raw positions, simplest rows ``(row, oriented class key)``."""

    value: Value
    raw_positions: int = 0
    simplest: list[tuple[State, bytes]] = field(default_factory=list)
    fewest_pots: State | None = None

    def add(self, row: State, weight: int, oriented: bytes, keep: int) -> None:
        """Count ``weight`` raw positions of ``row`` (of oriented class ``oriented``)."""
        self.raw_positions += weight
        if self.fewest_pots is None or fewest_pots(row) < fewest_pots(self.fewest_pots):
            self.fewest_pots = row
        kept = self.simplest
        order = simplicity(row)
        if len(kept) >= keep and order[:2] > simplicity(kept[-1][0])[:2]:
            return  # (rows come simplest first, but for mirror images of equal seeds and pots)
        for i, (held, key) in enumerate(kept):
            if key == oriented:
                if order < simplicity(held):
                    kept[i] = (row, oriented)
                    kept.sort(key=lambda item: simplicity(item[0]))
                return
        kept.append((row, oriented))
        kept.sort(key=lambda item: simplicity(item[0]))
        del kept[keep:]


@dataclass
class Tally:
    """The tally of a family: its wanted values' books, the rows walked and raw positions seen."""

    family: Family
    rows: dict[Value, TallyRow]
    raw_positions: int
    walked: int


def tally(family: Family, lookup_many: LookupMany, wanted: Callable[[Value], bool], simplest: int = 1,
          should_cancel: Callable[[], bool] | None = None, batch: int = 8192, part: int = 0, parts: int = 1) -> Tally:
    """The tally of ``family`` over stored values (``lookup_many``: canonical keys to values, as a
    store's ``lookup_many``), keeping books for the values ``wanted`` accepts and the
    ``simplest`` simplest rows of each. Raises ``UnsweptError`` (a ``MissingValuesError``) when a
    class has no stored value (sweep the family first) and ``CancelledError`` when ``should_cancel`` says so (polled
    once a batch).

    ``part`` of ``parts``: only every ``parts``-th row of the walk from the ``part``-th on (with
    its mirror image), so that a large tally can be done in pieces; ``merge`` joins the parts'
    books into the whole family's."""
    rules = family.rules
    normalise, key_of = rules.normalise, rules.key
    partizan = not rules.impartial
    books: dict[Value, TallyRow] = {}
    judged: dict[Value, bool] = {}
    pending: list[tuple[State, int, bytes, bool, State | None, bool]] = []
    seen = walked = 0
    missing: set[bytes] = set()

    def account(row: State, weight: int, key: bytes, stored: Value, flipped: bool) -> None:
        value = -stored if flipped else stored  # (int nim values are never flipped)
        verdict = judged.get(value)
        if verdict is None:
            verdict = judged[value] = bool(wanted(value))
        if verdict:
            entry = books.get(value)
            if entry is None:
                entry = books[value] = TallyRow(value)
            entry.add(row, weight, key + (b"~" if flipped else b""), simplest)

    def flush() -> None:
        values = lookup_many([item[2] for item in pending])
        for (row, weight, key, flipped, mirror, mirror_flipped), stored in zip(pending, values):
            if stored is None:
                missing.add(key)
                continue
            account(row, weight, key, stored, flipped)
            if mirror is not None:
                account(mirror, weight, key, stored, mirror_flipped)
        pending.clear()

    index = -1
    for row, weight in weighted_rows(family):
        mirror = row[::-1]
        if mirror < row:
            continue  # counted with its mirror image, which comes first (as enumerate_family)
        index += 1
        if index % parts != part:
            continue
        walked += 1
        canonical, mirrored = normalise(row)
        other = mirror if mirror != row else None
        pending.append((row, weight, key_of(canonical), mirrored and partizan, other,
                        partizan and not mirrored and canonical != canonical[::-1]))
        seen += weight * (2 if other is not None else 1)
        if len(pending) >= batch:
            if should_cancel is not None and should_cancel():
                raise CancelledError(f"the tally of {family.describe()} was cancelled")
            flush()
    flush()
    if missing:
        raise UnsweptError(len(missing), family)
    assert parts > 1 or seen == raw_count(family), (seen, raw_count(family))
    return Tally(family, books, seen, walked)


def merge(family: Family, pieces: list[Tally], simplest: int) -> Tally:
    """The tally of the whole family from the tallies of its parts (``tally(..., part, parts)``)."""
    books: dict[Value, TallyRow] = {}
    for piece in pieces:
        for value, row in piece.rows.items():
            held = books.get(value)
            if held is None:
                held = books[value] = TallyRow(value)
            held.raw_positions += row.raw_positions
            if row.fewest_pots is not None and (held.fewest_pots is None
                                                or fewest_pots(row.fewest_pots) < fewest_pots(held.fewest_pots)):
                held.fewest_pots = row.fewest_pots
            for kept, oriented in row.simplest:
                held.add(kept, 0, oriented, simplest)
    seen = sum(piece.raw_positions for piece in pieces)
    if seen != raw_count(family):
        raise ValueError(f"the parts of the tally of {family.describe()} cover {seen} raw positions, not {raw_count(family)}")
    return Tally(family, books, seen, sum(piece.walked for piece in pieces))
