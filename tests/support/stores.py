"""Reading and writing LMDB stores the way the store tests compare them: every sub-database's
items, every stored value, deterministic games and made-up nim values, a store's writer process."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import lmdb

from ruma.engine import ENGINE_VERSION
from ruma.engine.cgt import DOWN, STAR, UP, ZERO, Game, integer, nimber, number
from ruma.engine.stores import open_store
from ruma.server.store import writer_child
from ruma.server.store.memo import LmdbStore


def everything(path: Path) -> dict[bytes, list[tuple[bytes, bytes]]]:
    """Every record of every table of the store in ``path`` (closed), read by LMDB."""
    env = lmdb.open(str(path), readonly=True, lock=False, max_dbs=16)
    try:
        with env.begin() as txn:
            names = [key for key, _ in txn.cursor()]
            return {name: list(txn.cursor(db=env.open_db(name, txn=txn, create=False))) for name in names}
    finally:
        env.close()


def dump(store: LmdbStore) -> dict[str, list[tuple[bytes, bytes]]]:
    """Every sub-database's items, except meta's engine-version lines (equal anyway)."""
    out = {}
    with store.admin.env.begin() as txn:
        for name in ("games", "game_index", "positions", "meta", "unverified"):
            out[name] = [(bytes(k), bytes(v)) for k, v in txn.cursor(db=store.admin.db(name))]
    return out


def contents(path: Path) -> dict[bytes, Any]:
    """Every stored (key, value), read from a fresh handle."""
    store = open_store(str(path), create=False)
    try:
        return dict(store.admin.sample(10**9))
    finally:
        store.close()


def game_pool(count: int, seed: int = 7) -> list[Game]:
    """``count`` deterministic games built structurally (same games in every process)."""
    rng = random.Random(seed)
    pool = [ZERO, STAR, UP, DOWN, integer(1), integer(-2), number(Fraction(1, 2)), nimber(2)]
    while len(pool) < count:
        left = rng.sample(pool, rng.randint(0, 3))
        right = rng.sample(pool, rng.randint(0, 3))
        pool.append(Game.from_options(left, right))
    return pool[:count]


def nim_items(n: int, seed: int = 3, code: int = 2) -> list[tuple[bytes, int]]:
    """Made-up nim values of made-up keys of ruleset ``code`` (a value is a fact: other calls use
    another code, never another value for the same key)."""
    rng = random.Random(seed)
    keys = {bytes((code, 1, 0)) + bytes(rng.randrange(1, 40) for _ in range(rng.randrange(2, 12))) for _ in range(n)}
    return sorted((key, rng.randrange(300)) for key in keys)  # (some values beyond CPython's small ints)


def fresh(path: Path, map_size: int = 64 << 20) -> Path:
    """An empty store at ``path`` with its tables, as a parent process makes them."""
    LmdbStore(path, map_size=map_size, writer_process=False).close()
    return path


def c_writer(path: Path, map_size: int = 64 << 20) -> Any:
    """The store writer process's transactions in C (``store._native.Writer``) on the store at ``path``."""
    from ruma.server.store import _native

    return _native.Writer(str(path), map_size, ENGINE_VERSION.encode(), writer_child._ruleset_name)


def up(store: LmdbStore) -> LmdbStore:
    """The store with its writer process started and up (batches go to it from now on; until it is
    up they are written in line)."""
    writer = store.core._bulk_writer()
    assert writer is not None and writer.wait_ready(60), "the writer process did not come up"
    return store


def writer_of(store: LmdbStore) -> Any:
    """The store's writer process, which a batch should have gone to."""
    writer = store.core.writer
    assert writer is not None and not writer.dead, "the batch should have gone to the writer process"
    return writer
