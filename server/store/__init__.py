"""The LMDB store: the persistent memo every process and thread values into.

- ``memo``: ``LmdbStore``, the engine's memo interface over LMDB; ``core``: one process's
  environment; ``bulk``: batched lookups and inserts; ``writer``: the writer process of large
  batches; ``codec``, ``games``, ``keys``: sealed records, store game ids, key decoding;
  ``check``, ``verify``, ``repair``: checks on open, ``ruma store verify`` and ``repair``;
  ``page_file``, ``nodes``, ``scan``: the file read page by page without LMDB, and the record
  checks over it;
  ``provenance``: uploaded values marked unverified until the server re-values them;
  ``rewrite``: ``ruma store compact`` (the store rewritten densely, verified, swapped in);
  ``migrate``: older schemas converted on open, once;
  ``commands``: ``ruma store``. ``native.c``, ``lmdb.c`` and ``records.h`` are the C module
  ``ruma.server.store._native`` (per-record bytes and the writer's transactions).

May import: the standard library, lmdb, google-crc32c and ``ruma.engine`` — nothing else of the
server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ruma.server.store.memo import LmdbStore

__all__ = ["LmdbStore"]


def __getattr__(name: str) -> Any:
    """``LmdbStore`` on first use (the writer process imports the package without it)."""
    if name == "LmdbStore":
        from ruma.server.store.memo import LmdbStore

        return LmdbStore
    raise AttributeError(f"module 'ruma.server.store' has no attribute {name!r}")
