"""Named documents in the store: results computed from its values that are worth keeping.

A document is a byte string under a name (``tables/sowing-values``: the tables of
``docs/tables.md`` as ``ruma tables`` computed them), stored in the ``meta`` table under
``doc/NAME`` and sealed like every record (``store.codec.seal``), so ``ruma store verify`` checks it
and ``ruma store repair`` keeps it. Documents are what a census costs to recompute: a reader (the
server, the web explorer through it) serves them as they were stored. Values are facts, so a
document computed from them stays true; its writer names in it the bound it covers.
``StoreDocuments`` is a store's ``documents``: ``put``, ``get``, ``names``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ruma.engine.errors import RumaInputError
from ruma.server.store import codec

if TYPE_CHECKING:
    from ruma.server.store.memo import LmdbStore

__all__ = ["DOC", "MAX_DOCUMENT", "StoreDocuments"]

DOC = b"doc/"
#: the largest document stored (bytes)
MAX_DOCUMENT = 64 << 20


def _key(name: str) -> bytes:
    if not isinstance(name, str) or not name or len(name) > 200 or not name.isprintable() or name != name.strip():
        raise RumaInputError(f"document name {name!r}: expected 1 to 200 printable characters, no outer spaces")
    return DOC + name.encode()


class StoreDocuments:
    """The documents of one store handle, reached as ``store.documents`` (raises ``StoreError``
    once the handle is closed)."""

    __slots__ = ("_store",)

    def __init__(self, store: "LmdbStore") -> None:
        self._store = store

    def put(self, name: str, payload: bytes) -> None:
        """Store ``payload`` under ``name`` (replacing what was there), durably."""
        core = self._store.core
        key = _key(name)
        if len(payload) > MAX_DOCUMENT:
            raise RumaInputError(f"document {name!r} of {len(payload):,} bytes; the limit is {MAX_DOCUMENT:,}")
        sealed = codec.seal(key, bytes(payload))
        core._write(lambda txn: txn.put(key, sealed, db=core.dbs["meta"]))

    def get(self, name: str) -> bytes | None:
        """The document stored under ``name``, or ``None`` (a damaged record raises
        ``CorruptRecordError``, as any record does)."""
        core = self._store.core
        key = _key(name)

        def read(txn: Any) -> bytes | None:
            raw = txn.get(key, db=core.dbs["meta"])
            return None if raw is None else codec.unseal("meta", key, bytes(raw))

        return core._read(read)

    def names(self, prefix: str = "") -> list[str]:
        """The names of the stored documents that start with ``prefix``, in order."""
        core = self._store.core
        start = DOC + prefix.encode()

        def read(txn: Any) -> list[str]:
            names: list[str] = []
            with txn.cursor(db=core.dbs["meta"]) as cursor:
                if not cursor.set_range(start):
                    return names
                for key in cursor.iternext(keys=True, values=False):
                    key = bytes(key)
                    if not key.startswith(start):
                        break
                    names.append(key[len(DOC):].decode())
            return names

        return core._read(read)
