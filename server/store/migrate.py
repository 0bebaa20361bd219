"""Stores of older schemas are converted when they are opened, once.

* **schema 1** (records without checksums): every record is sealed in one transaction
  (``store.check.migrate_v1``), which makes it schema 2 as a whole or not at all;
* **schema 2** (a ``by_value`` index entry beside every position): rewritten into schema 3 by
  ``store.rewrite`` — every table but ``by_value`` put again in key order through LMDB's append
  path into ``DIR/.migrate-3/new``, verified page by page against the old file's record counts,
  then swapped in; only then is the old file removed. Killed half-way, the next open goes on
  where it stopped (or finishes the swap). Progress goes to stderr.

A store another process has open is not converted (``StoreError``: stop that process — an older
ruma, which would go on writing the old file — first), and while it is converted this process
holds LMDB's lock on ``lock.mdb`` exclusively, so one that opens it meanwhile waits in LMDB's open
and then finds schema 3. An older ruma refuses a converted store ("schema version '3'") and so
never writes it.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Callable

import lmdb

from ruma.server.store.codec import StoreError

log = logging.getLogger(__name__)
WORK = ".migrate-3"


def schema_of(directory: Path) -> bytes | None:
    """The ``schema_version`` record of the store in ``directory`` (read without taking its lock),
    ``None`` for a new store."""
    try:
        env = lmdb.open(str(directory), readonly=True, lock=False, max_dbs=16, create=False)
    except lmdb.Error:
        return None  # (not LMDB, or damaged: the store's own checks say so)
    try:
        with env.begin() as txn:
            raw = txn.get(b"meta")
            if raw is None:
                return None
            return txn.get(b"schema_version", db=env.open_db(b"meta", txn=txn, create=False))
    except lmdb.Error:
        return None
    finally:
        env.close()


def migrate_if_older(directory: Path, progress: Callable[[int], None] | None = None) -> bool:
    """Convert the store in ``directory`` to the current schema if it is older (or finish a
    conversion that was stopped); whether it did."""
    work = directory / WORK
    if not work.exists() and not (directory / "data.mdb").is_file():
        return False
    schema = schema_of(directory) if (directory / "data.mdb").is_file() else b"2"
    if schema not in (b"1", b"2"):
        if work.exists() and schema is not None:  # (stopped after its swap: only the old file was left)
            shutil.rmtree(work, ignore_errors=True)
        return False
    from ruma.server.store.repair import in_use, lock_out
    from ruma.server.store.rewrite import last_txnid, rewrite_store

    # (called by the store's environment as it opens, before it maps the file: so not open in this
    # process; LMDB's lock on lock.mdb tells whether another has it)
    if (directory / "data.mdb").is_file() and in_use(directory):
        raise StoreError(f"store {str(directory)!r} has schema {schema.decode()} and is open in another process "
                         f"(an older ruma?): stop it, then open the store again to convert it to schema 3")
    if schema == b"1":
        _seal(directory)
    started = time.monotonic()
    total = _records(directory) if (directory / "data.mdb").is_file() else 0
    say = progress or _Progress(directory, total)
    log.warning("converting the store %s to schema 3 (%d records), once", directory, total)
    # held while converting: a process that opens the store meanwhile (an older ruma) waits in
    # LMDB's open, then finds schema 3 and refuses it, instead of writing the file being replaced
    lock = lock_out(directory)
    try:
        report = rewrite_store(directory, WORK, say, check=last_txnid, drop=(b"by_value",), schema=b"3")
    finally:
        os.close(lock)
    if isinstance(say, _Progress):
        say.end()
    log.warning("converted the store %s to schema 3 in %.1f s: %s -> %s bytes", directory,
                time.monotonic() - started, report.bytes_before or "?", report.bytes_after)
    return True


def _seal(directory: Path) -> None:
    """Schema 1 to 2: every record sealed in one transaction."""
    from ruma.server.store.check import migrate_v1

    env = lmdb.open(str(directory), max_dbs=16)
    try:
        with env.begin(write=True) as txn:
            names = [key for key, _ in txn.cursor()]
            dbs = {name.decode(): env.open_db(name, txn=txn, create=False) for name in names}
            migrate_v1(txn, dbs)
            txn.put(b"schema_version", b"2", db=dbs["meta"])
    finally:
        env.close()


def _records(directory: Path) -> int:
    """The records of every table but ``by_value`` (what the conversion puts)."""
    env = lmdb.open(str(directory), readonly=True, lock=False, max_dbs=16)
    try:
        with env.begin() as txn:
            names = [key for key, _ in txn.cursor() if key != b"by_value"]
            return sum(txn.stat(env.open_db(name, txn=txn, create=False))["entries"] for name in names)
    finally:
        env.close()


class _Progress:
    """Progress of a conversion on stderr: a line that updates itself on a terminal, else a
    line every tenth."""

    def __init__(self, directory: Path, total: int) -> None:
        self.directory, self.total = directory, max(1, total)
        self.shown = -1
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int) -> None:
        tenth = 10 * done // self.total
        if self.tty:
            sys.stderr.write(f"\rconverting {self.directory} to schema 3: {done} of {self.total} records")
        elif tenth != self.shown:
            sys.stderr.write(f"converting {self.directory} to schema 3: {done} of {self.total} records\n")
        self.shown = tenth
        sys.stderr.flush()

    def end(self) -> None:
        if self.tty and self.shown >= 0:
            sys.stderr.write("\n")
            sys.stderr.flush()
