"""Faults of a large store's file: what ``verify`` reports, what ``repair`` keeps, what is served.

One store of 175,000 positions (a sweep of impartial Sowing of at most 11 seeds, plus partizan
Sowing of at most 7, whose values are games) is built once for the module and copied for each
case; then its ``data.mdb`` is damaged the way disks and people do it — truncated by one page or
to half, pages zeroed, bits flipped at random, a branch page's child pointer turned to
another page (a neighbour, a freed copy), a bit of a branch page's key flipped (its child's keys
then lie outside the range the branch gives it). The undamaged copy, read with LMDB itself, is the
reference: ``repair`` must keep every position whose leaf page was not damaged (and whose game
is sound) with the very record it had, and exactly the sound records a page-by-page scan of the
damaged file finds; ``verify`` must report, never refuse or crash.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
from pathlib import Path
from typing import Any, Callable

import pytest

from ruma.server.store import codec
from ruma.server.store.codec import CorruptRecordError
from ruma.server.store.memo import LmdbStore
from ruma.server.store.page_file import PageFile
from ruma.server.store.scan import payload, sound_keys
from tests.support.commands import ruma
from tests.support.lmdb_leaves import swept, tables

PSIZE = 4096


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The undamaged store, its records (by LMDB) and the leaf page of each record."""
    path = tmp_path_factory.mktemp("faults") / "store"
    records = swept(path, 7)
    assert len(records["positions"]) >= 100_000 and len(records["games"]) > 100
    page_of: dict[str, dict[bytes, int]] = {"games": {}, "positions": {}}
    with PageFile(path / "data.mdb") as pages:
        for table in page_of:
            for pgno in pages.leaves[table]:
                for key, _ in pages.page_records(table, pgno):
                    page_of[table][key] = pgno
            assert list(pages.records(table)) == list(records[table].items())  # the page reader agrees with LMDB
        branches = [p for p in pages.branches["positions"] if p != pages.tables["positions"].root]
        assert not pages.problems
    return {"path": path, "records": records, "page_of": page_of, "branches": branches,
            "pages": (path / "data.mdb").stat().st_size // PSIZE}


def damaged_copy(built: dict[str, Any], where: Path, damage: Callable[[Path], set[int]]) -> tuple[Path, set[int]]:
    store = where / "store"
    store.mkdir()
    shutil.copyfile(built["path"] / "data.mdb", store / "data.mdb")
    return store, damage(store / "data.mdb")


def zero(pages: list[int]) -> Callable[[Path], set[int]]:
    def damage(data: Path) -> set[int]:
        with data.open("r+b") as file:
            for pgno in pages:
                file.seek(pgno * PSIZE)
                file.write(bytes(PSIZE))
        return set(pages)
    return damage


def truncate(keep: Callable[[int], int]) -> Callable[[Path], set[int]]:
    def damage(data: Path) -> set[int]:
        pages = data.stat().st_size // PSIZE
        os.truncate(data, keep(pages) * PSIZE)
        return set(range(keep(pages), pages))
    return damage


def flips(count: int, seed: int) -> Callable[[Path], set[int]]:
    def damage(data: Path) -> set[int]:
        raw = bytearray(data.read_bytes())
        rng = random.Random(seed)
        hit = set()
        for _ in range(count):
            at = rng.randrange(2 * PSIZE, len(raw))
            raw[at] ^= 1 << rng.randrange(8)
            hit.add(at // PSIZE)
        data.write_bytes(bytes(raw))
        return hit
    return damage


def repoint(branch: int, node: int, target: Callable[[Path, int], int]) -> Callable[[Path], set[int]]:
    """Damage that rewrites child pointer ``node`` of branch page ``branch`` to
    ``target(data, old child)`` — what one flipped bit in a page number does."""
    def damage(data: Path) -> set[int]:
        with data.open("r+b") as file:
            file.seek(branch * PSIZE)
            page = bytearray(file.read(PSIZE))
            (offset,) = struct.unpack_from("<H", page, 16 + 2 * node)
            lo, hi, flags = struct.unpack_from("<HHH", page, offset)
            new = target(data, lo | hi << 16 | flags << 32)
            struct.pack_into("<HHH", page, offset, new & 0xFFFF, new >> 16 & 0xFFFF, new >> 32 & 0xFFFF)
            file.seek(branch * PSIZE)
            file.write(page)
        return {branch}
    return damage


def rekey(branch: int, node: int) -> Callable[[Path], set[int]]:
    """Damage that raises the key of node ``node`` of branch page ``branch`` (its last byte's top
    bit set — one flipped bit): the least key under that child, so the child's true keys now lie
    below the range the branch gives it."""
    def damage(data: Path) -> set[int]:
        with data.open("r+b") as file:
            file.seek(branch * PSIZE)
            page = bytearray(file.read(PSIZE))
            (offset,) = struct.unpack_from("<H", page, 16 + 2 * node)
            (ksize,) = struct.unpack_from("<H", page, offset + 6)
            last = offset + 8 + ksize - 1
            assert not page[last] & 0x80, "the key's last byte has its top bit already"
            page[last] |= 0x80
            file.seek(branch * PSIZE)
            file.write(page)
        return {branch}
    return damage


def a_freed_page(data: Path, _: int) -> int:
    """A leaf page the free list of ``data`` names (an older copy of some leaf)."""
    with PageFile(data) as pages:
        free = {pgno for _, value in pages.records("(free pages)")
                for pgno in struct.unpack_from(f"<{struct.unpack_from('<Q', value)[0]}Q", value, 8)}
        for pgno in sorted(free):
            if pages._head(pgno)[10:12] == b"\x02\x00":  # (flags: a leaf page)
                return pgno
    raise AssertionError("the store has no freed leaf page")


def readable_floor(built: dict[str, Any], damaged: set[int]) -> set[bytes]:
    """The positions no damage can have touched: on an undamaged leaf page, naming a game (if
    any) whose record and options' records all are on undamaged pages."""
    records, page_of = built["records"], built["page_of"]
    bad_games: set[int] = set()
    for gid in sorted(records["games"]):
        left, right = codec.decode_options(codec.unseal("games", gid, records["games"][gid]))
        if page_of["games"][gid] in damaged or any(i in bad_games for i in left + right):
            bad_games.add(codec.decode_game_id(gid))
    floor = set()
    for key, record in records["positions"].items():
        is_game, number, _ = codec.decode_entry(codec.unseal("positions", key, record))
        if page_of["positions"][key] not in damaged and not (is_game and number in bad_games):
            floor.add(key)
    return floor


def page_scan_count(data: Path) -> int:
    """The distinct positions a page-by-page read of ``data`` finds sound (games sound too)."""
    with PageFile(data, sound=sound_keys) as pages:  # (orphan leaves told apart by their records' shape)
        games: dict[int, bytes] = {}
        for key, value in pages.records("games"):
            options = payload("games", key, value)
            if options is not None:
                games[codec.decode_game_id(key)] = options
        sound: set[int] = set()
        for sid in sorted(games):
            left, right = codec.decode_options(games[sid])
            if all(i < sid and i in sound for i in left + right):
                sound.add(sid)
        found = set()
        for key, value in pages.records("positions"):
            data_ = payload("positions", key, value)
            if data_ is not None:
                is_game, number, _ = codec.decode_entry(data_)
                if not is_game or number in sound:
                    found.add(key)
        return len(found)


def pages_in_use(b: dict[str, Any]) -> list[int]:
    """The store's leaf and branch pages (a page drawn among all could be a free one: no damage)."""
    return sorted({p for table in b["page_of"].values() for p in table.values()} | set(b["branches"]))


CASES = {
    "truncated by one page": lambda b: truncate(lambda n: n - 1),
    "truncated to half": lambda b: truncate(lambda n: n // 2),
    "a zeroed leaf page": lambda b: zero([sorted(set(b["page_of"]["positions"].values()))[500]]),
    "a zeroed branch page": lambda b: zero([b["branches"][len(b["branches"]) // 2]]),
    "five zeroed pages": lambda b: zero(random.Random(5).sample(pages_in_use(b), 5)),
    "30 random bit flips": lambda b: flips(30, 30),
    "a child pointer one page off": lambda b: repoint(b["branches"][0], 1, lambda _, old: old ^ 1),
    "a child pointer to a freed page": lambda b: repoint(b["branches"][-1], 2, a_freed_page),
    "a branch key with a flipped bit": lambda b: rekey(b["branches"][len(b["branches"]) // 2], 1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_repair_keeps_every_readable_record_and_verify_reports(built: dict[str, Any], tmp_path: Path, case: str) -> None:
    store, damaged = damaged_copy(built, tmp_path, CASES[case](built))
    checked = ruma("store", "verify", "--full", "--json", "--data", str(store))
    assert checked.returncode in (0, 1) and "Traceback" not in checked.stderr, (checked.returncode, checked.stderr)
    report = json.loads(checked.stdout)
    if case.startswith(("truncated to", "a zeroed", "five", "a child pointer", "a branch key")):
        assert checked.returncode == 1 and report["problems"], report  # reported, not refused
    scanned = page_scan_count(store / "data.mdb")
    repaired = ruma("store", "repair", "--json", "--data", str(store))
    assert repaired.returncode == 0 and "Traceback" not in repaired.stderr, (repaired.returncode, repaired.stderr)
    kept = tables(store)["positions"]
    original = built["records"]["positions"]
    assert all(original.get(key) == record for key, record in kept.items())  # nothing kept that was not stored so
    floor = readable_floor(built, damaged)
    assert floor <= set(kept), f"{len(floor - set(kept))} readable positions lost"
    assert len(kept) == scanned == json.loads(repaired.stdout)["kept"]["positions"]
    assert ruma("store", "verify", "--full", "--data", str(store)).returncode == 0


def test_a_damaged_page_fails_only_its_own_items(built: dict[str, Any], tmp_path: Path) -> None:
    """After a read that met a damaged page, later reads on the same thread are served (LMDB marks
    the transaction unusable: the store begins a fresh one)."""
    pgno = sorted(set(built["page_of"]["positions"].values()))[300]
    store, _ = damaged_copy(built, tmp_path, zero([pgno]))
    on_page = {key for key, page in built["page_of"]["positions"].items() if page == pgno}
    original = built["records"]["positions"]
    failed: list[bytes] = []
    wrong: list[bytes] = []

    def read_all() -> None:
        with LmdbStore(store, create=False, writer_process=False) as opened:
            for key, record in original.items():
                try:
                    value = opened.lookup(key)
                except CorruptRecordError:
                    failed.append(key)
                    continue
                is_game, number, _ = codec.decode_entry(codec.unseal("positions", key, record))
                if value is None or (not is_game and value != number):
                    wrong.append(key)
            batch = sorted(original)[:5000] + sorted(on_page)
            with pytest.raises(CorruptRecordError):
                opened.lookup_many(batch)
            assert opened.lookup_many(sorted(original)[:5000]) == [opened.lookup(k) for k in sorted(original)[:5000]]

    read_all()  # (on one thread: its cached read transaction is the one at stake)
    assert not wrong
    assert set(failed) == on_page
