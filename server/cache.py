"""A bounded in-memory map of hot store entries in front of the LMDB store.

The map is ``cachetools.LRUCache`` (least recently used evicted first) behind a lock: gRPC serves
calls from a thread pool and cachetools' caches are not thread-safe on their own.
"""

from __future__ import annotations

import threading

from cachetools import LRUCache

from ruma.engine.memo import Memo, Value


class CachedMemo:
    """A bounded in-memory map of hot keys in front of the store (values of a key never change:
    keys carry the ruleset's code and version)."""

    def __init__(self, store: Memo, size: int = 500_000) -> None:
        self.store = store
        self.size = size
        self.values: LRUCache[bytes, Value] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def lookup(self, key: bytes) -> Value | None:
        """The value of ``key`` from memory, else from the store (then remembered)."""
        with self._lock:
            value = self.values.get(key)
        if value is None:
            value = self.store.lookup(key)
            if value is not None:
                with self._lock:
                    self.values[key] = value
        return value

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Store and remember."""
        self.store.insert(key, value, explored)
        with self._lock:
            self.values[key] = value
