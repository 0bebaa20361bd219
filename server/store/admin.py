"""A store's administration, reached as ``store.admin`` (``StoreAdmin``): its statistics, a
consistent backup, ``verify``, uniform samples of its entries, deletions for repairs, LMDB's
reader-slot check and the environment itself (for tools and tests).

What works on a store's directory rather than on an open handle stays in its own module:
``repair.repair_store``, ``rewrite.compact_store``, ``migrate.migrate_if_older``,
``verify.verify_directory``.
"""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import lmdb

from ruma.engine.errors import RumaInputError
from ruma.engine.rulesets.base import PLUGIN_CODE, key_prefix_of
from ruma.server.store import codec
from ruma.server.store.core import _COUNT, _RULESET
from ruma.server.store.runs import pending
from ruma.server.store.scan import reservoir

if TYPE_CHECKING:
    from ruma.server.store.memo import LmdbStore
    from ruma.server.store.verify import VerifyReport

__all__ = ["StoreAdmin"]


def _plugin_version(prefix: bytes) -> int | None:
    """The version of the installed ruleset whose keys start with ``prefix`` (which hashes its
    name and version), ``None`` when none installed has it."""
    from ruma.engine.rulesets import ruleset_by_prefix

    ruleset = ruleset_by_prefix(prefix)
    return ruleset.version if ruleset is not None else None


class StoreAdmin:
    """The administration of one store handle (raises ``StoreError`` once the handle is closed)."""

    __slots__ = ("_store",)

    def __init__(self, store: "LmdbStore") -> None:
        self._store = store

    @property
    def env(self) -> lmdb.Environment:
        """The underlying ``lmdb.Environment`` (for tools and tests)."""
        return self._store.core.env

    def db(self, name: str) -> Any:
        """A named sub-database handle (``games``, ``game_index``, ``positions``, ``meta``, ``unverified``)."""
        return self._store.core.dbs[name]

    def stats(self) -> dict[str, Any]:
        """Entries per ruleset, games, bytes, bytes per entry, map size, buffered entries, and the
        runs beside the store not in it yet (``store.runs.pending``).

        ``bytes`` is the file's high-water mark (including free pages LMDB will reuse);
        ``data_bytes`` the pages of the B-trees, on which ``bytes_per_entry`` is based.
        """
        core = self._store.core
        meta = core.dbs["meta"]

        def read(txn: Any) -> dict[str, Any]:
            rulesets = []
            with txn.cursor(db=meta) as cursor:
                if cursor.set_range(_COUNT):
                    for key, raw in cursor:
                        if not key.startswith(_COUNT):
                            break
                        prefix = bytes(key[len(_COUNT):])
                        name_key = _RULESET + prefix
                        name = txn.get(name_key, db=meta)
                        name = b"" if name is None else codec.unseal("meta", name_key, name)
                        version = None if prefix[0] == PLUGIN_CODE else prefix[1]  # (filled in below)
                        rulesets.append({"code": prefix[0], "version": version, "prefix": prefix.hex(),
                                         "name": name.decode(errors="replace"),
                                         "entries": int.from_bytes(codec.unseal("meta", key, raw), "big")})
            pages = 0
            for db in core.dbs.values():
                st = txn.stat(db)
                pages += st["branch_pages"] + st["leaf_pages"] + st["overflow_pages"]
            return {
                "rulesets": rulesets,
                "tree_pages": pages,
                "games": txn.stat(core.dbs["games"])["entries"],
                "schema_version": int(txn.get(b"schema_version", db=meta)),
                "engine_version": _meta_text(txn, meta, b"engine_version"),
            }

        result = core._read(read)
        for row in result["rulesets"]:
            if row["code"] == PLUGIN_CODE:  # (its version is hashed into its prefix)
                row["version"] = _plugin_version(bytes.fromhex(row["prefix"]))
        info = core.env.info()
        psize = core.env.stat()["psize"]
        used = (info["last_pgno"] + 1) * psize
        tree = result.pop("tree_pages") * psize
        entries = sum(r["entries"] for r in result["rulesets"])
        path = self._store.path
        data = path / "data.mdb"
        result.update(
            path=str(path),
            entries=entries,
            bytes=used,  # the file's high-water mark: data pages plus free pages awaiting reuse
            data_bytes=tree,  # pages of the B-trees: what a compacted copy (backup) needs
            file_bytes=data.stat().st_size if data.exists() else 0,
            map_size=info["map_size"],
            bytes_per_entry=(tree / entries) if entries else None,
            file_bytes_per_entry=(used / entries) if entries else None,
            buffered=len(core.buffer),
            runs=pending(path),
        )
        return result

    def backup(self, dest: str | os.PathLike[str]) -> Path:
        """A consistent, compacted copy of the store in ``dest`` (created; must be empty)."""
        core = self._store.core
        core.flush()
        target = Path(dest)
        if target.exists() and any(target.iterdir()):
            raise RumaInputError(f"backup destination {str(target)!r} is not empty")
        target.mkdir(parents=True, exist_ok=True)
        while True:
            try:
                with core.lock.shared():
                    core.env.copy(str(target), compact=True)
                return target
            except lmdb.MapResizedError:
                core._adopt()

    def verify(self, sample: int = 100, seed: int | None = None, *, full: bool = False,
               progress: Callable[[int], None] | None = None) -> "VerifyReport":
        """Check the store's records (all with ``full``) and re-evaluate ``sample`` positions
        (``verify.verify_store``: ``ruma store verify``)."""
        from ruma.server.store.verify import verify_store

        return verify_store(self._store, sample, seed, full=full, progress=progress)

    def sample(self, n: int, seed: int | None = None, prefix: bytes = b"", *, raw: bool = False) -> list[Any]:
        """Up to ``n`` stored entries ``(key, value)`` chosen uniformly (reservoir sampling over one
        snapshot); ``raw``: ``(key, record)`` undecoded (a damaged record does not raise)."""
        core = self._store.core
        core.flush()
        rng = random.Random(seed)
        positions = core.dbs["positions"]

        def read(txn: Any) -> list[Any]:
            with txn.cursor(db=positions) as cursor:
                if not cursor.set_range(prefix):
                    return []
                chosen = reservoir(itertools.takewhile(lambda item: item[0].startswith(prefix), cursor), n, rng)
            if raw:
                return chosen
            return [(key, core.decode(txn, key, record)[0]) for key, record in chosen]

        return core._read(read)

    def delete_positions(self, keys: list[bytes]) -> int:
        """Delete stored positions (and their counts); returns how many.

        For repairs: a dropped position is simply recomputed when next asked for."""
        core = self._store.core
        core.flush()
        positions, meta = core.dbs["positions"], core.dbs["meta"]

        def write(txn: Any) -> int:
            removed: dict[bytes, int] = {}
            for key in keys:
                if txn.get(key, db=positions) is None:
                    continue
                txn.delete(key, db=positions)
                prefix = key_prefix_of(key)
                removed[prefix] = removed.get(prefix, 0) + 1
            for prefix, n in removed.items():
                count_key = _COUNT + prefix
                old = txn.get(count_key, db=meta)
                total = max(0, (int.from_bytes(codec.unseal("meta", count_key, old), "big") if old else 0) - n)
                txn.put(count_key, codec.seal(count_key, total.to_bytes(8, "big")), db=meta)
            return sum(removed.values())

        done = core._write(write)
        core.generation += 1
        return done

    def reader_check(self) -> int:
        """Free the reader slots of processes that died (LMDB's ``mdb_reader_check``); returns how many."""
        return int(self._store.core.env.reader_check())


def _meta_text(txn: Any, meta: Any, key: bytes) -> str:
    """A sealed text record of ``meta`` ("" when absent)."""
    raw = txn.get(key, db=meta)
    return "" if raw is None else codec.unseal("meta", key, raw).decode(errors="replace")
