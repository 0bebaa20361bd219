"""A bounded in-memory map of hot store entries in front of the LMDB store."""

from __future__ import annotations

from ruma.engine.memo import Memo, Value


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

    def _remember(self, key: bytes, value: Value) -> None:
        values = self.values
        values[key] = value
        while len(values) > self.size:
            try:
                del values[next(iter(values))]
            except (KeyError, StopIteration, RuntimeError):  # another thread evicted concurrently
                break
