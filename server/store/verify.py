"""``ruma store verify``: check every table of an LMDB store, record by record, and re-evaluate.

``verify_store(store, full=..., sample=N)`` reads, in one snapshot:

* ``meta``: every record's checksum, the entry counts (with ``full``: equal to the positions
  actually stored per ruleset);
* ``games``: checksum, options that decode and name only earlier, sound games (a game is interned
  after its options), and the ``game_index`` entry that leads back to it;
* ``game_index``: checksum, and the game it names has exactly these options;
* ``positions``: checksum, a value that decodes, a sound game if it names one, and its
  ``by_value`` entry;
* ``by_value``: checksum, and the position it indexes is stored with that value;

every record with ``full``, else ``sample`` records per table found by random seeks. Then it
re-evaluates ``sample`` uniformly drawn positions from scratch (``ruma.engine.evaluator``, a fresh
in-memory memo) and compares. Every problem is reported (table, key, what); LMDB errors while
reading a table (a damaged page) are problems too, and the scan of that table resumes from its
other end. ``Scan`` is shared with ``ruma.server.store.repair``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import lmdb

from ruma.engine.errors import RumaError
from ruma.engine.evaluator import evaluate, format_value
from ruma.engine.memo import InMemoryMemo
from ruma.server.store import codec
from ruma.server.store.check import check_record
from ruma.server.store.keys import state_of_key

TABLES = ("meta", "games", "game_index", "positions", "by_value")
_COUNT = b"count/"


@dataclass
class VerifyReport:
    """What ``verify_store`` found."""

    full: bool = False
    records: dict[str, int] = field(default_factory=dict)  # records checked per table
    checked: int = 0  # positions re-evaluated
    skipped: list[dict[str, Any]] = field(default_factory=list)
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No problem and no mismatch."""
        return not self.problems and not self.mismatches

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"full": self.full, "records": self.records, "checked": self.checked, "skipped": self.skipped,
                "mismatches": self.mismatches, "problems": self.problems, "ok": self.ok}


class Scan:
    """Record checks over one read transaction; ``problems`` collects what failed."""

    def __init__(self, txn: Any, dbs: dict[str, Any], max_key: int,
                 progress: Callable[[int], None] | None = None) -> None:
        self.txn, self.dbs, self.max_key = txn, dbs, max_key
        self.progress = progress
        self.done = 0
        self.problems: list[dict[str, Any]] = []
        self.counted: dict[str, int] = {name: 0 for name in TABLES}
        self.good_games: dict[int, bytes] | None = None  # id -> options, when every game was scanned

    def problem(self, table: str, key: bytes, what: str) -> None:
        """Record one problem."""
        self.problems.append({"table": table, "key": bytes(key).hex(), "problem": what})

    # -- reading tables ------------------------------------------------------------------------
    def records(self, table: str) -> Iterator[tuple[bytes, bytes]]:
        """Every record of ``table`` in key order; after an LMDB error, the rest from the other end."""
        seen: bytes | None = None
        try:
            with self.txn.cursor(db=self.dbs[table]) as cursor:
                for key, value in cursor:
                    seen = key
                    self.count(table)
                    yield key, value
            return
        except lmdb.Error as error:
            self.problem(table, seen or b"", f"LMDB cannot read past this key: {error}")
        back: list[tuple[bytes, bytes]] = []
        try:
            with self.txn.cursor(db=self.dbs[table]) as cursor:
                for key, value in cursor.iterprev():
                    if seen is not None and key <= seen:
                        break
                    back.append((key, value))
        except lmdb.Error as error:
            self.problem(table, b"", f"LMDB cannot read this table backwards either: {error}")
        for key, value in reversed(back):
            self.count(table)
            yield key, value

    def count(self, table: str) -> None:
        """One more record of ``table`` read (reported every 4096)."""
        self.counted[table] += 1
        self.done += 1
        if self.progress is not None and self.done % 4096 == 0:
            self.progress(self.done)

    def sampled(self, table: str, n: int, rng: random.Random) -> Iterator[tuple[bytes, bytes]]:
        """About ``n`` records of ``table`` found by seeking random keys between its first and last."""
        try:
            with self.txn.cursor(db=self.dbs[table]) as cursor:
                if not cursor.first():
                    return
                first = cursor.key()
                cursor.last()
                last = cursor.key()
                width = max(len(first), len(last))
                low, high = int.from_bytes(first.ljust(width, b"\0"), "big"), int.from_bytes(last.ljust(width, b"\0"), "big")
                seen: set[bytes] = set()
                for _ in range(n):
                    target = rng.randint(low, high).to_bytes(width, "big") if high > low else first
                    if cursor.set_range(target) and cursor.key() not in seen:
                        seen.add(cursor.key())
                        self.count(table)
                        yield cursor.item()
        except lmdb.Error as error:
            self.problem(table, b"", f"LMDB error while sampling: {error}")

    # -- one record of each table ----------------------------------------------------------------
    def payload(self, table: str, key: bytes, value: bytes) -> bytes | None:
        try:
            return check_record(table, key, value)
        except codec.CorruptRecordError:
            self.problem(table, key, "checksum mismatch")
            return None

    def game_ok(self, sid: int) -> bool:
        """Whether store game ``sid`` is sound (from the full scan, else by reading it)."""
        if self.good_games is not None:
            return sid in self.good_games
        gid = codec.encode_game_id(sid)
        raw = self.txn.get(gid, db=self.dbs["games"])
        try:
            return raw is not None and len(codec.decode_options(codec.unseal("games", gid, raw))) == 2
        except (codec.CodecError, codec.CorruptRecordError):
            return False

    def check_game(self, key: bytes, value: bytes) -> bytes | None:
        """The options of a sound ``games`` record, else ``None`` (and a problem)."""
        options = self.payload("games", key, value)
        if options is None:
            return None
        try:
            sid = codec.decode_game_id(key)
            left, right = codec.decode_options(options)
        except codec.CodecError as error:
            self.problem("games", key, f"does not decode: {error}")
            return None
        bad = [i for i in left + right if i >= sid or not self.game_ok(i)]
        if bad:
            self.problem("games", key, f"names games {bad[:5]} that are damaged, missing or not older")
            return None
        ikey = codec.index_key(options, self.max_key)
        raw = self.txn.get(ikey, db=self.dbs["game_index"])
        if raw is None or raw != codec.seal(ikey, key):
            self.problem("game_index", ikey, f"missing or wrong entry for game {sid}")
        return options

    def check_index(self, key: bytes, value: bytes) -> None:
        """One ``game_index`` record."""
        gid = self.payload("game_index", key, value)
        if gid is None:
            return
        raw = self.txn.get(gid, db=self.dbs["games"]) if len(gid) == codec.GAME_ID_BYTES else None
        try:
            options = None if raw is None else codec.unseal("games", gid, raw)
        except codec.CorruptRecordError:
            options = None  # reported with the games table
        if options is None or codec.index_key(options, self.max_key) != key:
            self.problem("game_index", key, f"names game {gid.hex()}, which does not have these options")

    def check_position(self, key: bytes, value: bytes) -> tuple[bool, int] | None:
        """``(is_game, number)`` of a sound ``positions`` record, else ``None`` (and a problem)."""
        entry = self.payload("positions", key, value)
        if entry is None:
            return None
        try:
            is_game, number, _ = codec.decode_entry(entry)
        except codec.CodecError as error:
            self.problem("positions", key, f"does not decode: {error}")
            return None
        if len(key) < 3:
            self.problem("positions", key, "key too short for a position")
            return None
        if is_game and not self.game_ok(number):
            self.problem("positions", key, f"names game {number}, which is damaged or missing")
            return None
        encoded = codec.encode_value(is_game, number)
        index = codec.by_value_key(key, encoded)
        if len(index) <= self.max_key and self.txn.get(index, db=self.dbs["by_value"]) != codec.checksum(index, b""):
            self.problem("by_value", index, "missing or damaged entry for a stored position")
        return is_game, number

    def check_by_value(self, key: bytes, value: bytes) -> None:
        """One ``by_value`` record."""
        if value != codec.checksum(key, b""):
            self.problem("by_value", key, "checksum mismatch")
            return
        try:
            is_game, number, end = codec.decode_value(key, 2)
        except codec.CodecError:
            self.problem("by_value", key, "does not decode")
            return
        position = key[end + codec.COMPLEXITY_BYTES:]
        raw = self.txn.get(position, db=self.dbs["positions"])
        try:
            stored = None if raw is None else codec.decode_entry(codec.unseal("positions", position, raw))[:2]
        except (codec.CodecError, codec.CorruptRecordError):
            return  # reported with the positions table
        if stored != (is_game, number) or key[:2] != position[:2]:
            self.problem("by_value", key, "indexes a position that is not stored with this value")

    def check_meta(self, full_counts: dict[bytes, int] | None) -> dict[bytes, bytes]:
        """Every ``meta`` record; with ``full_counts`` also the entry counts. Returns sound payloads."""
        good: dict[bytes, bytes] = {}
        for key, value in self.records("meta"):
            payload = self.payload("meta", key, value)
            if payload is None:
                continue
            if key.startswith(_COUNT) and len(payload) != 8:
                self.problem("meta", key, "an entry count that is not 8 bytes")
                continue
            good[key] = payload
        if full_counts is not None:
            for prefix in set(full_counts) | {k[len(_COUNT):] for k in good if k.startswith(_COUNT)}:
                stored = good.get(_COUNT + prefix)
                actual = full_counts.get(prefix, 0)
                if stored is not None and int.from_bytes(stored, "big") != actual:
                    self.problem("meta", _COUNT + prefix, f"counts {int.from_bytes(stored, 'big')} entries, "
                                                         f"the store holds {actual}")
        return good

    # -- whole tables ----------------------------------------------------------------------------
    def full(self) -> dict[bytes, int]:
        """Check every record of every table; returns the sound positions counted per ruleset."""
        good: dict[int, bytes] = {}
        self.good_games = good
        for key, value in self.records("games"):
            options = self.check_game(key, value)
            if options is not None:
                good[codec.decode_game_id(key)] = options
        for key, value in self.records("game_index"):
            self.check_index(key, value)
        counts: dict[bytes, int] = {}
        for key, value in self.records("positions"):
            self.check_position(key, value)
            counts[key[:2]] = counts.get(key[:2], 0) + 1  # meta counts every record put
        for key, value in self.records("by_value"):
            self.check_by_value(key, value)
        return counts

    def sample(self, n: int, rng: random.Random) -> None:
        """Check about ``n`` records of each table."""
        for key, value in self.sampled("games", n, rng):
            self.check_game(key, value)
        for key, value in self.sampled("game_index", n, rng):
            self.check_index(key, value)
        for key, value in self.sampled("positions", n, rng):
            self.check_position(key, value)
        for key, value in self.sampled("by_value", n, rng):
            self.check_by_value(key, value)


def verify_store(store: Any, sample: int = 100, seed: int | None = None, *, full: bool = False,
                 progress: Callable[[int], None] | None = None) -> VerifyReport:
    """Check the store's records (all with ``full``) and re-evaluate ``sample`` positions;
    ``progress(records)`` is called as the check goes."""
    report = VerifyReport(full=full)
    core = store.core
    rng = random.Random(seed)

    def read(txn: Any) -> Scan:
        scan = Scan(txn, core.dbs, core.max_key, progress)
        counts = scan.full() if full else None
        if not full:
            scan.sample(sample, rng)
        scan.check_meta(counts)
        return scan

    scan = core._read(read)
    report.problems = scan.problems
    report.records = dict(scan.counted)
    _reevaluate(store, sample, seed, report)
    return report


def _reevaluate(store: Any, sample: int, seed: int | None, report: VerifyReport) -> None:
    """Value up to ``sample`` uniformly drawn stored positions from scratch and compare."""
    memo = InMemoryMemo()
    try:
        drawn = store.sample(sample, seed, raw=True)
    except lmdb.Error as error:
        report.problems.append({"table": "positions", "key": "", "problem": f"LMDB error while sampling: {error}"})
        return
    for key, raw in drawn:
        try:
            stored = store.core._read(lambda txn: store.core.decode(txn, key, raw)[0])
        except (codec.CorruptRecordError, codec.CodecError, lmdb.Error):
            continue  # a damaged record: the checks above report it
        try:
            ruleset, state = state_of_key(key)
        except codec.CodecError as error:
            report.skipped.append({"key": key.hex(), "reason": str(error)})
            continue
        position = ruleset.format(state)
        try:
            expected = evaluate(ruleset, state, memo).value
        except RumaError as error:
            report.mismatches.append({"key": key.hex(), "ruleset": ruleset.name, "position": position,
                                      "stored": format_value(stored), "expected": f"error: {error}"})
            continue
        report.checked += 1
        same = (stored is expected) if not isinstance(stored, int) else (
            isinstance(expected, int) and stored == expected)
        if not same:
            report.mismatches.append({"key": key.hex(), "ruleset": ruleset.name, "position": position,
                                      "stored": format_value(stored), "expected": format_value(expected)})
