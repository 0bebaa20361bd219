"""A bounded in-memory map of hot store entries in front of the LMDB store."""

from __future__ import annotations

from typing import Iterable, Sequence

from ruma.engine.memo import Memo, Value, bulk_inserter


class CachedMemo:
    """A bounded in-memory map of hot keys in front of the store (values of a key never change:
    keys carry the ruleset's code and version). Evicts the oldest entries first."""

    def __init__(self, store: Memo, size: int = 500_000) -> None:
        self.store = store
        self.size = size
        self.values: dict[bytes, Value] = {}

    def lookup(self, key: bytes) -> Value | None:
        """The value of ``key`` from memory, else from the store (then remembered)."""
        value = self.values.get(key)
        if value is None:
            value = self.store.lookup(key)
            if value is not None:
                self._remember(key, value)
        return value

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Store and remember."""
        self.store.insert(key, value, explored)
        self._remember(key, value)

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """``lookup`` of many keys: from memory, the rest from the store in one batch when it can."""
        values = self.values
        found: list[Value | None] = [values.get(key) for key in keys]
        missing = [i for i, value in enumerate(found) if value is None]
        if missing:
            many = getattr(self.store, "lookup_many", None)
            asked = [keys[i] for i in missing]
            answers = many(asked) if callable(many) else [self.store.lookup(key) for key in asked]
            for i, value in zip(missing, answers):
                if value is not None:
                    found[i] = value
                    self._remember(keys[i], value)
        return found

    def insert_many(self, items: Iterable[tuple[bytes, Value]]) -> None:
        """Store many pairs (the store's own ``insert_many`` when it has one) and remember them."""
        items = list(items)
        bulk_inserter(self.store)(items)
        for key, value in items:
            self._remember(key, value)

    def _remember(self, key: bytes, value: Value) -> None:
        values = self.values
        values[key] = value
        while len(values) > self.size:
            try:
                del values[next(iter(values))]
            except (KeyError, StopIteration, RuntimeError):  # another thread evicted concurrently
                break
