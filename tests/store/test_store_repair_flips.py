"""Damage to the leaf pages of a store of 220,577 positions (impartial Sowing of at most 11 seeds,
partizan Sowing of at most 10, whose values are games): what ``ruma store repair`` keeps, judged by
a reader of LMDB's pages written apart from the repair's own (``tests/support/lmdb_leaves.py``).

Repair must keep every record that reader finds sound on the leaf pages the clean store's trees
reach (games whose options are kept, positions whose game is kept), keep no record whose checksum
fails, and keep each with the very record the clean store had; ``verify --full`` must find sound on
the damaged file exactly what repair keeps, and pass on the repaired store. Leaf pages whose
branch page is lost are orphans: a damaged record, header or node table on one costs only what it
damaged.
"""

from __future__ import annotations

import json
import random
import struct
from pathlib import Path
from typing import Any, Callable

import pytest

from ruma.client.sweep import shared
from ruma.server.store import codec
from ruma.server.store.verify import verify_directory
from tests.support.commands import ruma
from tests.support.lmdb_leaves import PSIZE, free_list, leaves, nodes, sound_records, swept, tables, tree_pages

FLIPS, SEED = 1000, 3


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The undamaged store, its records (by LMDB), its trees' pages and its free list."""
    path = tmp_path_factory.mktemp("flips") / "store"
    with pytest.MonkeyPatch.context() as patch:  # (one drain a sweep: the same file every run, so the seeded
        patch.setattr(shared, "INLINE_DRAIN_EVERY", 1e9)  # flips hit the same bytes every run)
        records = swept(path, 10)
    assert len(records["positions"]) == 220_577 and len(records["games"]) > 5000
    return {"path": path, "records": records, "pages": tree_pages(path / "data.mdb"),
            "leaves": leaves(path / "data.mdb"), "free": free_list(path / "data.mdb")}


def damaged(clean: dict[str, Any], where: Path, damage: Callable[[bytearray], None]) -> Path:
    """A copy of the clean store with ``damage`` done to its ``data.mdb``."""
    store = where / "store"
    store.mkdir()
    raw = bytearray((clean["path"] / "data.mdb").read_bytes())
    damage(raw)
    (store / "data.mdb").write_bytes(bytes(raw))
    return store


def sound(clean: dict[str, Any], data: Path) -> tuple[set[bytes], dict[bytes, int | None]]:
    """The games the independent reader finds sound in ``data`` (options too, recursively) and its
    sound positions, each with the game it names (``None``: a nim value)."""
    found = sound_records(data, {name: clean["leaves"][name] for name in ("games", "positions")})
    options = {codec.decode_game_id(k): codec.decode_options(v[:-4]) for k, v in found["games"].items()}
    good: set[int] = set()
    for sid in sorted(options):
        if all(i < sid and i in good for i in options[sid][0] + options[sid][1]):
            good.add(sid)
    positions = {}
    for key, record in found["positions"].items():
        is_game, number, _ = codec.decode_entry(record[:-4])
        positions[key] = number if is_game else None
    return {codec.encode_game_id(sid) for sid in good}, positions


def repair_and_check(clean: dict[str, Any], store: Path) -> dict[str, dict[bytes, bytes]]:
    """Repair ``store`` and check it against the independent reader; returns what it kept."""
    games, positions = sound(clean, store / "data.mdb")
    checked = verify_directory(store, sample=0, full=True)
    bad = [p for p in checked.problems if p["table"] == "positions" and not p["problem"].startswith("page ")]
    repaired = ruma("store", "repair", "--json", "--data", str(store))
    assert repaired.returncode == 0 and "Traceback" not in repaired.stderr, repaired.stderr
    kept = tables(store)
    original = clean["records"]
    for table in ("games", "positions"):  # every record as the clean store had it: none whose seal fails
        assert all(original[table].get(key) == record for key, record in kept[table].items()), table
        assert all(codec.unseal(table, key, record) is not None for key, record in kept[table].items())
    assert games <= set(kept["games"]), f"{len(games - set(kept['games']))} sound games dropped"
    kept_games = {codec.decode_game_id(gid) for gid in kept["games"]}
    required = {key for key, game in positions.items() if game is None or game in kept_games}
    lost = required - set(kept["positions"])
    assert not lost, f"{len(lost)} sound positions dropped, e.g. {sorted(lost)[:3]}"
    report = json.loads(repaired.stdout)["kept"]
    assert report == {"games": len(kept["games"]), "positions": len(kept["positions"])}
    assert not checked.ok and checked.records["positions"] - len(bad) == len(kept["positions"])  # verify agrees
    assert ruma("store", "verify", "--full", "--data", str(store)).returncode == 0
    return kept


def test_repair_keeps_every_sound_record_after_1000_random_bit_flips(clean: dict[str, Any], tmp_path: Path) -> None:
    def flips(raw: bytearray) -> None:
        rng = random.Random(SEED)
        for _ in range(FLIPS):
            raw[rng.randrange(2 * PSIZE, len(raw))] ^= 1 << rng.randrange(8)

    store = damaged(clean, tmp_path, flips)
    kept = repair_and_check(clean, store)
    # (the damage is spread wide: pages of every kind, hundreds of records, several branch pages)
    assert len(clean["records"]["positions"]) - len(kept["positions"]) > 200


def test_repair_keeps_all_but_the_damaged_records_of_damaged_leaves_and_orphans(clean: dict[str, Any],
                                                                                 tmp_path: Path) -> None:
    """One branch page zeroed, and on four of its leaves (orphans now) one damaged record, page
    number, flags and ``upper``; on leaves the tree reaches, a smaller ``lower``, a node's flags, a
    node table entry, a node's data size, a first key below the page's range; a page number in the
    free list turned to a live leaf's. Only the records whose own bytes were hit are lost."""
    pages = clean["pages"]["positions"]
    branches = sorted(p for p, children in pages.items() if len(children) >= 8 and all(not pages[c] for c in children))
    zeroed = branches[len(branches) // 3]
    orphans, reached = pages[zeroed], pages[branches[2 * len(branches) // 3]]
    raw0 = (clean["path"] / "data.mdb").read_bytes()
    lost: set[bytes] = set()

    def node(pgno: int, first: bool = False) -> tuple[bytes, int, int, int]:
        """The middle node of leaf ``pgno`` (or its first): its key, where its key starts, where the
        node starts and its index."""
        found = nodes(raw0[pgno * PSIZE:(pgno + 1) * PSIZE])
        i = 0 if first else len(found) // 2
        key, _, _, at = found[i]
        return key, pgno * PSIZE + at - len(key), pgno * PSIZE + at - len(key) - 8, i

    def damage(raw: bytearray) -> None:
        raw[zeroed * PSIZE:(zeroed + 1) * PSIZE] = bytes(PSIZE)
        key, at, _, _ = node(orphans[1])
        raw[at] ^= 0x80  # a key far out of the page's range
        lost.add(key)
        raw[orphans[2] * PSIZE + 2] ^= 0x10  # the header's page number
        raw[orphans[3] * PSIZE + 10] ^= 0x01  # its flags: leaf and branch
        raw[orphans[4] * PSIZE + 15] ^= 0x20  # ``upper`` past the page
        (lower,) = struct.unpack_from("<H", raw0, reached[1] * PSIZE + 12)
        raw[reached[1] * PSIZE + 12] ^= next(bit for bit in (64, 32, 16, 8, 4, 2, 128, 256) if lower & bit)  # fewer nodes
        raw[node(reached[2])[2] + 4] ^= 0x04  # a node's flags: F_DUPDATA
        raw[reached[3] * PSIZE + 16 + 2 * node(reached[3])[3]] ^= 0x01  # a node table entry
        key, _, start, _ = node(reached[4])
        raw[start] ^= 0x02  # a node's data size
        lost.add(key)
        key, at, _, _ = node(reached[5], first=True)
        raw[at] ^= key[0] & -key[0]  # the first key, below the range its branch page gives
        lost.add(key)
        live = set(clean["leaves"]["positions"]) - set(orphans) - set(reached[:6])
        free = clean["free"]
        at = next((free[i][0] for i in range(1, len(free) - 1)  # (in a run of free pages: v + 1, v, v - 1)
                   if free[i][1] ^ 0x100 in live and free[i - 1][1] == free[i][1] + 1 == free[i + 1][1] + 2), None)
        if at is not None:  # (a store's free list has such runs: each commit frees runs of pages)
            raw[at + 1] ^= 0x01  # a free page's number turned to a live leaf's

    store = damaged(clean, tmp_path, damage)
    kept = repair_and_check(clean, store)
    assert set(kept["games"]) == set(clean["records"]["games"])
    assert set(clean["records"]["positions"]) - set(kept["positions"]) == lost
