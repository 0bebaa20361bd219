"""What a persistent store offers, and how the client opens one without importing the server.

A store is a memo (``ruma.engine.memo``: ``lookup``/``insert``, the bulk, packed and recent
capabilities) that persists, plus three objects reached from it: ``admin`` (its statistics),
``documents`` (named byte strings: the tables ``ruma tables`` computed) and ``provenance``
(uploaded values marked unverified until the server re-values them). ``Store`` names what callers
that hold any store use; the LMDB store (``ruma.server.store.LmdbStore``) is the one there is.

Store types register in the ``ruma.stores`` entry-point group (``lmdb``); ``open_store(path)``
opens one through it, so the client reaches the store while never importing the server.
``capabilities(memo).store`` is the memo as a ``Store`` when it is one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, Sequence, cast

from ruma.engine.cgt import Game, Value

__all__ = ["Documents", "MissingStoreError", "Provenance", "Store", "StoreAdmin", "StoreType", "open_store"]

#: the entry-point group of store types, and the name of the one ``open_store`` uses
GROUP = "ruma.stores"
BACKEND = "lmdb"

class StoreAdmin(Protocol):
    """A store's administration (the LMDB store's has backup, verify, sampling and more)."""

    def stats(self) -> dict[str, Any]:
        """Entries per ruleset (``rulesets``: ``code``, ``version``, ``name``, ``entries``), bytes
        and the rest of the store's figures."""

    def reader_check(self) -> int:
        """Free what processes that died held open in the store; returns how many."""


class Documents(Protocol):
    """Named byte strings kept in a store."""

    def put(self, name: str, payload: bytes) -> None:
        """Keep ``payload`` under ``name``, replacing what was there."""

    def get(self, name: str) -> bytes | None:
        """The document named ``name``, or ``None``."""

    def names(self, prefix: str = "") -> list[str]:
        """The names that start with ``prefix``, in order."""


class Provenance(Protocol):
    """Uploaded values marked unverified until the server re-values them."""

    def insert_unverified(self, items: Iterable[tuple[bytes, Value]]) -> int:
        """Store uploaded entries, marked unverified (a key stored already keeps its value); how many were new."""

    def unverified_among(self, keys: Sequence[bytes]) -> list[bool]:
        """Whether each key's stored value is an upload the server has not re-valued yet."""

    def unverified_count(self) -> int:
        """How many stored values are unverified uploads."""

    def unverified_entries(self, limit: int, after: bytes = b"") -> list[tuple[bytes, Value | None]]:
        """Up to ``limit`` unverified keys after ``after``, with their stored values."""

    def settle(self, truths: Sequence[tuple[bytes, Value]]) -> list[bool]:
        """The server's own values of unverified keys: unmarked, each replaced if it differs (True)."""


class Store(Protocol):
    """A persistent memo (see the module docstring)."""

    path: Path

    @property
    def admin(self) -> StoreAdmin:
        """Its administration."""

    @property
    def documents(self) -> Documents:
        """Its documents."""

    @property
    def provenance(self) -> Provenance:
        """The provenance of its values."""

    def lookup(self, key: bytes) -> Value | None:
        """The stored value of ``key``, or ``None``."""

    def insert(self, key: bytes, value: Value, explored: int = 0) -> None:
        """Store ``value`` under ``key`` (buffered)."""

    def lookup_many(self, keys: Sequence[bytes]) -> list[Value | None]:
        """``lookup`` of many keys in one read."""

    def insert_many(self, items: Iterable[tuple[bytes, Value]]) -> None:
        """Store many pairs at once."""

    def insert_packed(self, frame: bytes, cache: Any = None, remember: bool = True) -> None:
        """Store the nim values of a batch frame (``native/frame.h``)."""

    def insert_shared(self, frame: bytes, games: Any, session: int) -> None:
        """Store a drain of a partizan sweep's shared table (shared ids of ``games``)."""

    @property
    def recent(self) -> Any:
        """The values of the bulk batches this process stored lately (a ``CompactMemo``), or ``None``."""

    def lookup_served(self, key: bytes) -> Value | None:
        """``lookup`` that reads an unverified upload as stored (what a reply reads)."""

    def value_ids_many(self, keys: Sequence[bytes]) -> list[tuple[bool, int] | None]:
        """What is stored under each key without building it: ``(is_game, nim value or store id)``."""

    def store_game_id(self, game: Game) -> int | None:
        """The store id of ``game``, or ``None`` if never stored."""

    def positions_with_value(self, ruleset_code: int, value: Value, limit: int = 100,
                             version: int | None = None, prefix: bytes | None = None) -> list[bytes]:
        """Keys of stored positions of a ruleset whose value is ``value``, simplest first (``prefix``:
        those under one key prefix, ``Ruleset.key_prefix``, only)."""

    def flush(self) -> None:
        """Write every buffered entry now."""

    def refresh(self) -> None:
        """Make the next lookups read a fresh snapshot."""

    def close(self) -> None:
        """Store the runs this handle holds, flush and release this handle."""

    def hold_run(self, frame: bytes) -> None:
        """Keep ``frame`` (a batch frame of nim values, keys sorted: a sweep's drain) beside the
        store, durably, for ``close_dense`` to merge; ``close`` and ``store_runs`` store it."""

    def shared_interner(self) -> Callable[[str], Any] | None:
        """A factory (picklable by reference) that a process which does not have this store open
        calls with its directory for an interner of partizan shared frames
        (``ruma.engine.frame.pack_shared``): ``interner(payload) -> frame``, the nodes interned into
        the store's games and committed, the frame's codes the store's own; ``interner.close()``.
        ``None`` where the store has none (its shared frames are interned where they are stored)."""

    def runs_folder(self) -> str | None:
        """Take the store's runs for this handle and return their folder, where a sweep's processes
        may write runs of their own (``ruma.engine.frame.write_run``): every run there is then this
        handle's, merged or stored with those of ``hold_run``; ``None`` where another sweep holds
        them."""

    def store_runs(self) -> None:
        """Store the runs this handle holds (``hold_run``) now."""

    def adopt_runs(self) -> int:
        """Store the runs a killed sweep left beside the store; how many entries they held."""

    def close_dense(self, held: bytes | None = None) -> bool:
        """``close``, then rewrite the store densely where that pays; whether it did. ``held``: a
        batch frame of nim values (``ruma.engine.frame``, keys sorted) not stored yet, stored by
        the time it returns, as are the runs this handle holds — merged into the rewrite where the
        store can (no B-tree puts)."""


class StoreType(Protocol):
    """What the ``ruma.stores`` entry point names: a store type, opened on a directory."""

    def __call__(self, path: str | os.PathLike[str], *, create: bool = True) -> Store:
        """The store in ``path`` (made there when ``create``)."""


class MissingStoreError(RuntimeError):
    """No store type is installed in the ``ruma.stores`` group (ruma installed without its server)."""


def open_store(path: str | os.PathLike[str], create: bool = True) -> Store:
    """The persistent store in ``path``, through the ``ruma.stores`` entry point (never importing
    the server); raises ``MissingStoreError`` when none is installed, and what the store type
    raises when it cannot open it (a ``RumaError``)."""
    from importlib.metadata import entry_points  # (here: a sweep's fork server and workers never import it)

    for entry in entry_points(group=GROUP):
        if entry.name == BACKEND:
            store_type = cast(StoreType, entry.load())
            return store_type(path, create=create)
    raise MissingStoreError(f"no store backend installed to open {str(path)!r}")
