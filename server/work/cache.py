"""A bounded in-memory map of hot store entries in front of the LMDB store.

The map is least-recently-used, kept in a ``collections.OrderedDict`` (a hit moves its key to the
end, an insert beyond the bound drops the first key): every operation is one call into the C
implementation, ≈ 0.1 µs, where ``cachetools.LRUCache`` spends ≈ 3 µs of Python per hit — the
largest single cost of a stored lookup once parsing and keys are compiled. A lock
guards it: it is shared by the threads of a process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Iterable, Sequence, cast

from ruma.engine.cgt import Value
from ruma.engine.memo import BulkMemo, Memo, capabilities, insert_each


class CachedMemo:
    """A bounded in-memory map of hot keys in front of the store (values of a key never change:
    keys carry the ruleset's code and version)."""

    def __init__(self, store: Memo, size: int = 500_000) -> None:
        self.store = store
        self.size = max(1, size)
        self.values: OrderedDict[bytes, Value] = OrderedDict()
        self._lock = threading.Lock()
        able = capabilities(store)
        self._bulk: BulkMemo | None = cast(BulkMemo, store) if able.lookup_many is not None else None
        # (a store keeping uploads' provenance)
        self._among = able.store.provenance.unverified_among if able.store is not None else None

    def _remember(self, key: bytes, value: Value) -> None:
        """Remember ``key`` as the most recent (call with the lock held)."""
        values = self.values
        values[key] = value
        values.move_to_end(key)
        if len(values) > self.size:
            values.popitem(last=False)

    def _unsettled(self, keys: Sequence[bytes]) -> list[bool]:
        """Whether each key's stored value is an upload not re-valued yet (``store.provenance``):
        such a value may still be replaced, so it is read from the store each time, never remembered."""
        return list(self._among(keys)) if self._among is not None else [False] * len(keys)

    def lookup(self, key: bytes) -> Value | None:
        """The value of ``key`` from memory, else from the store (then remembered)."""
        with self._lock:
            value = self.values.get(key)
            if value is not None:
                self.values.move_to_end(key)
                return value
        value = self.store.lookup(key)
        if value is not None and not self._unsettled([key])[0]:
            with self._lock:
                self._remember(key, value)
        return value

    def forget(self, key: bytes) -> None:
        """Drop ``key`` from memory (its stored value was replaced: a wrong upload corrected)."""
        with self._lock:
            self.values.pop(key, None)

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Store and remember."""
        self.store.insert(key, value, explored)
        with self._lock:
            self._remember(key, value)

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """``lookup`` of many keys: from memory, the rest from the store in one batch when it can."""
        values = self.values
        with self._lock:
            found: list[Value | None] = list(map(values.get, keys))
            for key, value in zip(keys, found):
                if value is not None:
                    values.move_to_end(key)
        missing = [i for i, value in enumerate(found) if value is None]
        if missing:
            asked = [keys[i] for i in missing]
            bulk = self._bulk
            answers = bulk.lookup_many(asked) if bulk is not None else [self.store.lookup(key) for key in asked]
            unsettled = self._unsettled(asked)
            with self._lock:
                for i, value, unverified in zip(missing, answers, unsettled):
                    if value is not None:
                        found[i] = value
                        if not unverified:
                            self._remember(keys[i], value)
        return found

    def insert_many(self, items: Iterable[tuple[bytes, Value]]) -> None:
        """Store many pairs (the store's own ``insert_many`` when it has one) and remember them."""
        items = list(items)
        if self._bulk is not None:
            self._bulk.insert_many(items)
        else:
            insert_each(self.store, items)
        with self._lock:
            for key, value in items:
                self._remember(key, value)
