"""The memo: the contract between the evaluator and whatever stores values.

Keys are canonical normalised position keys (bytes) already prefixed with the ruleset's code and
version (see ``ruma.engine.rulesets.base.Ruleset.key``); values are a canonical ``Game`` for
partizan rulesets or a nim value (``int``) for impartial ones. ``explored`` is the number of
positions the evaluator valued to compute the entry (kept by persistent stores as provenance).

A memo is any object with ``lookup``/``insert`` (``Memo``). It may offer more, each a Protocol
here: ``BulkMemo`` (``lookup_many``/``insert_many``: the compiled search's batches),
``PackedMemo`` (``insert_packed``: nim values in the engine's batch frame, ``native/frame.h``),
``RecentMemo`` (``recent``: values it vouches it holds, read in C before it is asked),
``SharedMemo`` (a sweep's table of values in shared memory), ``DirectMemo`` (a dict the compiled
search may read and write itself) and ``ruma.engine.stores.Store`` (a persistent store).
``capabilities(memo)`` decides once what a memo offers and returns it as a ``MemoCapabilities``
record, which the compiled search takes (``native/search_type.c``) and every other caller reads;
nothing else asks a memo what it has. ``new_memo()`` is a fresh in-memory memo of the active engine.
"""

from __future__ import annotations

import sys
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Iterable,
    NamedTuple,
    Protocol,
    Sequence,
    Union,
    cast,
    runtime_checkable,
)

from ruma.engine.cgt import Game, Value
from ruma.engine.errors import RumaInputError
from ruma.engine.native import active_engine, core

if TYPE_CHECKING:
    from ruma.engine.stores import Store

Entry = tuple[bytes, Value]
Items = Iterable[Entry]
Lookup = Callable[[bytes], Union[Value, None]]
LookupMany = Callable[[Sequence[bytes]], list[Union[Value, None]]]
InsertMany = Callable[[Items], None]
#: ``insert_packed(frame, cache)``: a batch frame of nim values, and the ``CompactMemo`` holding them already (or None)
InsertPacked = Callable[[bytes, Any], None]


@runtime_checkable
class Memo(Protocol):
    """What the evaluator needs from a store of values."""

    def lookup(self, key: bytes) -> Value | None:
        """The stored value of ``key``, or ``None``."""

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Store ``value`` under ``key``; inserting a key twice keeps one (equal) value."""


class BulkMemo(Memo, Protocol):
    """A memo that takes batches: the compiled search asks ``lookup_many`` for the keys it meets
    (and speculates while the memo misses) and hands new values back through ``insert_many``."""

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """``lookup`` of every key, in order."""

    def insert_many(self, items: Items) -> None:
        """``insert`` of every ``(key, value)`` pair (one write for the batch)."""


class PackedMemo(Memo, Protocol):
    """A memo that takes an impartial search's new values as one batch frame (``native/frame.h``)
    instead of a Python object per value (the LMDB store: its writer process reads the frame)."""

    def insert_packed(self, frame: bytes, cache: Any = None) -> None:
        """Store the nim values of ``frame``; ``cache``: the ``CompactMemo`` that holds them already."""


class RecentMemo(Memo, Protocol):
    """A memo that vouches it holds ``recent``'s values (a ``CompactMemo`` or a dict), which the
    compiled search reads in C before asking the memo."""

    @property
    def recent(self) -> Any:
        """The values this memo holds for certain, or ``None``."""


class SharedMemo(Memo, Protocol):
    """A sweep worker's memo over the sweep's table in shared memory: ``shared`` (a
    ``SharedValues``, or ``None``), and for a partizan ruleset ``shared_games`` (the
    ``SharedGames`` whose ids ``shared`` holds)."""

    shared: Any
    shared_games: Any


class DirectMemo(Memo, Protocol):
    """A memo whose ``lookup`` is a dict's ``get`` and whose ``insert_many`` puts the new keys in
    that dict (and appends the new pairs to a list): the compiled search then reads and writes the
    dict itself."""

    def direct_entries(self) -> tuple[dict[bytes, Value], list[Entry] | None] | None:
        """The dict and the list of new pairs (``None``: none kept), or ``None`` when the memo
        has to be called."""


class MemoCapabilities(NamedTuple):
    """What one memo offers, decided once by ``capabilities(memo)`` (the compiled search reads these
    fields by name: ``native/search_type.c``). An immutable record made for every evaluation: a
    ``NamedTuple``, which costs a quarter of what a frozen dataclass's ``__init__`` does (some
    0.4 µs against 1.7 µs, of a stored position's evaluation of about 9 µs)."""

    memo: Memo
    lookup: Lookup
    #: the memo's own ``insert_many``, else a loop over ``insert``
    insert_many: InsertMany
    #: ``BulkMemo.lookup_many``, else ``None``
    lookup_many: LookupMany | None = None
    #: ``PackedMemo.insert_packed``, else ``None``
    insert_packed: InsertPacked | None = None
    #: ``RecentMemo.recent`` when it is a ``CompactMemo`` or a dict, else ``None``
    recent: Any = None
    #: ``SharedMemo.shared`` when it is a ``SharedValues``, else ``None``
    shared: Any = None
    #: ``SharedMemo.shared_games``, else ``None``
    shared_games: Any = None
    #: the memo itself when it is a ``CompactMemo`` (read and written in C), else ``None``
    compact: Any = None
    #: ``DirectMemo.direct_entries()``: the dict the search reads and writes itself, and the list
    #: it appends new pairs to
    entries: dict[bytes, Value] | None = None
    new: list[Entry] | None = None
    #: the memo as a persistent ``ruma.engine.stores.Store``, else ``None``
    store: "Store | None" = None

    def lookup_each(self) -> LookupMany:
        """``lookup_many``, else a loop over ``lookup``."""
        if self.lookup_many is not None:
            return self.lookup_many
        lookup = self.lookup
        return lambda keys: [lookup(key) for key in keys]


def insert_each(memo: Memo, items: Items) -> None:
    """The default ``insert_many``: ``memo.insert(key, value)`` for each pair."""
    insert = memo.insert
    for key, value in items:
        insert(key, value)


def capabilities(memo: Memo) -> MemoCapabilities:
    """What ``memo`` offers (see the module docstring): the one place that asks."""
    compiled = sys.modules.get("ruma.engine.native._core")  # (no compiled object exists before it is loaded)
    own_many = getattr(memo, "insert_many", None)
    shared = getattr(memo, "shared", None)
    recent = getattr(memo, "recent", None)
    direct = getattr(memo, "direct_entries", None)
    entries, new = (direct() or (None, None)) if callable(direct) else (None, None)
    # (a persistent store: ``ruma.engine.stores.Store``, whose handles have all of these)
    is_store = (hasattr(memo, "provenance") and hasattr(memo, "documents") and hasattr(memo, "admin")
                and hasattr(memo, "flush") and hasattr(memo, "refresh") and hasattr(memo, "close"))
    return MemoCapabilities(
        memo,
        memo.lookup,
        own_many if callable(own_many) else (lambda items: insert_each(memo, items)),
        getattr(memo, "lookup_many", None),
        getattr(memo, "insert_packed", None),
        recent if type(recent) is dict or (compiled is not None and isinstance(recent, compiled.CompactMemo)) else None,
        shared if compiled is not None and isinstance(shared, compiled.SharedValues) else None,
        getattr(memo, "shared_games", None),
        memo if compiled is not None and isinstance(memo, compiled.CompactMemo) else None,
        entries,
        new,
        cast("Store", memo) if is_store else None,
    )


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

    def direct_entries(self) -> tuple[dict[bytes, Value], list[Entry] | None] | None:
        """``entries`` (``lookup`` is its ``get``, ``insert_many`` its ``update``); ``None`` for a
        subclass, whose methods may differ."""
        return (self.entries, None) if type(self) is InMemoryMemo else None

    def __len__(self) -> int:
        return len(self.entries)


def new_memo() -> Memo:
    """A fresh in-memory memo: the compiled ``CompactMemo`` (about 30 bytes a position, read and
    written by the compiled search without Python calls) when the compiled engine is active,
    else an ``InMemoryMemo``. What ``evaluate`` uses without a memo, and ``ruma eval`` without
    ``--store``."""
    memo = new_compact_memo()
    return InMemoryMemo() if memo is None else memo


def new_compact_memo() -> Memo | None:
    """A fresh ``CompactMemo`` when the compiled engine is active, else ``None`` (also the cache of
    recently stored values that the LMDB store offers the compiled search: ``recent``)."""
    try:
        engine = active_engine()
    except RumaInputError:
        engine = "python"  # the misconfiguration is reported where the rulesets are looked up
    native = core() if engine == "c" else None
    if native is None:
        return None
    memo: Memo = native.CompactMemo(Game)
    return memo
