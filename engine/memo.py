"""The memo: a two-method interface between the evaluator and whatever stores values.

Keys are canonical normalised position keys (bytes) already prefixed with the ruleset's code and
version (see ``ruma.engine.rulesets.base.Ruleset.key``); values are a canonical ``Game`` for
partizan rulesets or a nim value (``int``) for impartial ones. ``explored`` is the number of
positions the evaluator valued to compute the entry (kept by persistent stores as provenance).

Bulk insertion: the compiled search hands its values back in batches through ``insert_many(items)``
(a list of ``(key, value)`` pairs). It is optional: ``bulk_inserter(memo)`` returns the memo's own
``insert_many`` when it has one and otherwise a loop over ``insert``, so any object with
``lookup``/``insert`` stays a memo. Stores implement ``insert_many`` to write a batch at once.
"""

from __future__ import annotations

from typing import Callable, Iterable, Protocol, Union, runtime_checkable

from ruma.engine.cgt import Game

Value = Union[Game, int]


@runtime_checkable
class Memo(Protocol):
    """What the evaluator needs from a store of values."""

    def lookup(self, key: bytes) -> Value | None:
        """The stored value of ``key``, or ``None``."""

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Store ``value`` under ``key``; inserting a key twice keeps one (equal) value."""


Items = Iterable[tuple[bytes, Value]]


def insert_each(memo: Memo, items: Items) -> None:
    """The default ``insert_many``: ``memo.insert(key, value)`` for each pair."""
    insert = memo.insert
    for key, value in items:
        insert(key, value)


def bulk_inserter(memo: Memo) -> Callable[[Items], None]:
    """``memo.insert_many`` when the memo has it, else a loop over ``memo.insert``."""
    method = getattr(memo, "insert_many", None)
    if callable(method):
        return method  # type: ignore[no-any-return]
    return lambda items: insert_each(memo, items)


class InMemoryMemo:
    """A ``Memo`` in a dict: for tests, notebooks and one-off evaluations."""

    __slots__ = ("entries", "explored")

    def __init__(self) -> None:
        self.entries: dict[bytes, Value] = {}
        self.explored: dict[bytes, int] = {}

    def lookup(self, key: bytes) -> Value | None:
        """The stored value of ``key``, or ``None``."""
        return self.entries.get(key)

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Store ``value`` under ``key``."""
        self.entries[key] = value
        if explored:
            self.explored[key] = explored

    def insert_many(self, items: Items) -> None:
        """Store every ``(key, value)`` pair (one ``dict.update``)."""
        self.entries.update(items)

    def __len__(self) -> int:
        return len(self.entries)


class NullMemo:
    """A ``Memo`` that stores nothing (every lookup misses)."""

    def lookup(self, key: bytes) -> Value | None:
        """Always ``None``."""
        return None

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Discard the value."""

    def insert_many(self, items: Items) -> None:
        """Discard the values."""
