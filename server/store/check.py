"""What the store checks when it opens: its files (before they are mapped) and a few records.

* ``check_files(dir)`` reads LMDB's two meta pages from ``data.mdb`` with plain reads, before the
  file is mapped: a file that is not LMDB (zero-filled, foreign), whose meta pages are damaged,
  or that is shorter than the last page its newest meta page names (truncated) is refused with
  ``StoreDamagedError``. Mapping such a file would kill the process with SIGBUS on the first
  read past its end.
* ``quick_check(core)`` runs in one read transaction when a server starts: every ``meta`` record
  (a handful) must pass its checksum, each table's page counts must fit in the file, and the first
  and last record of every table must be readable and pass theirs. It costs milliseconds on any
  store; ``ruma store verify --full`` reads everything.
* ``migrate_v1(txn, dbs)`` seals every record of a schema-1 store (written before records had
  checksums) in one transaction, so the whole store moves to schema 2 at once (``store.migrate``
  then converts it to schema 3).

The layout of an LMDB meta page (LMDB 0.9, ``mdb.c``): a 16-byte page header, then ``MDB_meta``:
magic ``0xBEEFC0DE`` (4 bytes), data version 1 (4), map address (8), map size (8), two ``MDB_db``
records of 48 bytes (the first one's leading 4 bytes hold the page size), the last page number
used (8) and the transaction id (8); little-endian on the machines ruma runs on.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lmdb

from ruma.server.store import codec
from ruma.server.store.codec import CorruptRecordError, StoreDamagedError

if TYPE_CHECKING:
    from ruma.server.store.core import _Core

MAGIC = 0xBEEFC0DE
DATA_VERSION = 1
_HEADER = 16  # bytes of a page header before MDB_meta
_P_META = 0x08  # the page header's flag of a meta page
_PAGE_SIZES = (4096, 8192, 16384, 32768, 65536)
#: how long a data.mdb too short to hold its meta pages is given to be initialised by another process
_INIT_WAIT_SECONDS = 1.0


def _meta(page: bytes) -> tuple[int, int, int] | None:
    """``(page size, last page, txnid)`` of a meta page, or ``None`` when it is not a valid one."""
    if len(page) < _HEADER + 152 or not struct.unpack_from("<H", page, 10)[0] & _P_META:
        return None
    magic, version = struct.unpack_from("<II", page, _HEADER)
    if magic != MAGIC or version != DATA_VERSION:
        return None
    (psize,) = struct.unpack_from("<I", page, _HEADER + 24)
    last_pg, txnid = struct.unpack_from("<QQ", page, _HEADER + 120)
    return psize, last_pg, txnid


def check_files(directory: Path) -> None:
    """Refuse a ``data.mdb`` that is not LMDB, has damaged meta pages or is truncated."""
    data = directory / "data.mdb"
    if not data.exists():
        return  # a new store: LMDB creates it
    if not data.is_file():
        raise StoreDamagedError(f"{str(data)!r} is not a file")
    waited = 0.0
    while True:
        size = data.stat().st_size
        with data.open("rb") as file:
            head = file.read(2 * max(_PAGE_SIZES))
        first = _meta(head)
        if first is not None or size >= 2 * min(_PAGE_SIZES) or waited >= _INIT_WAIT_SECONDS:
            break
        time.sleep(0.05)  # another process may be creating this store right now
        waited += 0.05
    if first is None:
        what = "is empty" if size == 0 else ("is all zeros" if not head.strip(b"\0") else "is not an LMDB file")
        raise StoreDamagedError(f"store {str(directory)!r} is damaged: data.mdb ({size} bytes) {what}")
    psize = first[0]
    if psize not in _PAGE_SIZES:
        raise StoreDamagedError(f"store {str(directory)!r} is damaged: meta page 0 names page size {psize}")
    second = _meta(head[psize : 2 * psize])
    if second is None:
        raise StoreDamagedError(f"store {str(directory)!r} is damaged: meta page 1 of data.mdb is not valid")
    needed = (max(first[1], second[1]) + 1) * psize
    if size < needed:
        raise StoreDamagedError(
            f"store {str(directory)!r} is damaged: data.mdb is truncated ({size} bytes; its pages end at {needed})")


def migrate_v1(txn: Any, dbs: dict[str, Any]) -> int:
    """Seal every record of a schema-1 store (in the caller's write transaction); returns how many."""
    sealed = 0
    for name, db in dbs.items():
        with txn.cursor(db=db) as cursor:
            more = cursor.first()
            while more:
                key, value = cursor.item()
                if not (name == "meta" and key == b"schema_version"):
                    cursor.put(key, codec.seal(key, value))
                    sealed += 1
                more = cursor.next()
    return sealed


def quick_check(core: "_Core") -> None:
    """The start-up check described in the module docstring; raises ``StoreDamagedError``."""
    where = str(core.path)
    try:
        last_page = core.env.info()["last_pgno"]

        def read(txn: Any) -> None:
            for name, db in core.dbs.items():
                stat = txn.stat(db)
                pages = stat["branch_pages"] + stat["leaf_pages"] + stat["overflow_pages"]
                if pages > last_page + 1:
                    raise StoreDamagedError(f"store {where!r} is damaged: table {name} claims {pages} pages "
                                            f"of a file of {last_page + 1}")
                with txn.cursor(db=db) as cursor:
                    if name == "meta":
                        records = list(cursor)
                    else:
                        records = [cursor.item() for moved in (cursor.first(), cursor.last()) if moved]
                    for key, value in records:
                        check_record(name, key, value)

        core._read(read)
    except CorruptRecordError as error:
        raise StoreDamagedError(f"store {where!r} is damaged: {error}") from error
    except lmdb.Error as error:
        raise StoreDamagedError(f"store {where!r} is damaged: LMDB reports {error}") from error


def check_record(table: str, key: bytes, value: bytes) -> bytes:
    """The payload of one record of ``table`` after its checksum; raises ``CorruptRecordError``."""
    if table == "meta" and key == b"schema_version":
        return value
    return codec.unseal(table, key, value)
