"""The record checks of ``ruma store verify`` and ``repair`` over a ``store.page_file.PageFile``.

``Scan(pages)`` reads every table of one snapshot through ``PageFile`` (never through LMDB, which
may stop the process on a damaged page) and checks each record:

* ``meta``: its checksum; the entry counts (``full``: equal to the positions actually read);
* ``games``: checksum, options that decode and name only older, sound games; its ``game_index``
  entry;
* ``game_index``: checksum, and the game it names has exactly these options;
* ``positions``: checksum, a value that decodes, a sound game if it names one;
* ``unverified``: checksum, and the position it marks is stored.

A full scan checks the cross references with sets built as the tables are read (one pass a
table, no random reads); a sampled one checks the records of random leaf pages with the
tree's own searches (``PageFile.get``). ``sound_keys`` tells ``PageFile`` which table an orphan
page's sound records fit.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Iterator, TypeVar

from ruma.engine.rulesets.base import key_prefix_of
from ruma.server.store import codec
from ruma.server.store.documents import DOC
from ruma.server.store.page_file import PageFile

TABLES = ("meta", "games", "game_index", "positions", "unverified")
MAX_KEY = 511  # LMDB's longest key (MDB_MAXKEYSIZE of the LMDB py-lmdb bundles)
COUNT = b"count/"
RULESET = b"ruleset/"
_META_KEYS = (b"schema_version", b"created_engine_version", b"engine_version")
UNVERIFIED_MARK = b"U"  # the payload of an ``unverified`` record starts with it (then 8 bytes: upload time)


T = TypeVar("T")


def reservoir(items: Iterable[T], n: int, rng: random.Random) -> list[T]:
    """Up to ``n`` of ``items`` drawn uniformly in one pass (reservoir sampling)."""
    chosen: list[T] = []
    for seen, item in enumerate(items):
        if seen < n:
            chosen.append(item)
        else:
            j = rng.randrange(seen + 1)
            if j < n:
                chosen[j] = item
    return chosen


def payload(table: str, key: bytes, value: bytes) -> bytes | None:
    """The payload of a sound record of ``table`` (``None`` when its checksum fails)."""
    if table == "meta" and key == b"schema_version":
        return value
    try:
        return codec.unseal(table, key, value)
    except codec.CorruptRecordError:
        return None


def _fits(table: str, key: bytes, data: bytes) -> bool:
    """Whether a sound record's key and payload have ``table``'s shape."""
    try:
        if table == "meta":
            return key in _META_KEYS or key.startswith((COUNT, RULESET, DOC))
        if table == "games":
            return len(key) == codec.GAME_ID_BYTES and codec.decode_options(data) is not None
        if table == "game_index":
            return len(data) == codec.GAME_ID_BYTES
        if table == "positions":
            return len(key) >= 3 and codec.decode_entry(data) is not None
        if table == "unverified":
            return len(key) >= 3 and data[:1] == UNVERIFIED_MARK and len(data) == 9
    except codec.CodecError:
        return False
    return False


def sound_keys(table: str, records: list[tuple[bytes, bytes]]) -> list[bytes] | None:
    """The keys of the records of an orphan leaf page that pass their checksums, when all of those
    have ``table``'s shape (at least one); else ``None``. (A damaged record says nothing of the
    page: its key may be anything.)"""
    sound = [(key, data) for key, value in records if (data := payload(table, key, value)) is not None]
    return [key for key, _ in sound] if sound and all(_fits(table, key, data) for key, data in sound) else None


class Scan:
    """Record checks over one snapshot; ``problems`` collects what failed."""

    def __init__(self, pages: PageFile, progress: Callable[[int], None] | None = None) -> None:
        self.pages = pages
        self.progress = progress
        self.done = 0
        self.problems: list[dict[str, Any]] = []
        self.counted: dict[str, int] = {name: 0 for name in TABLES}
        self.good_games: dict[int, bytes] = {}  # store id -> options of every sound game (``games``)

    def problem(self, table: str, key: bytes, what: str) -> None:
        """Record one problem."""
        self.problems.append({"table": table, "key": bytes(key).hex(), "problem": what})

    def page_problems(self) -> None:
        """Move what ``PageFile`` could not read into ``problems`` (call after the reads)."""
        found = {(p.table, p.page, p.what, p.key): p for p in self.pages.problems}  # (a page read twice: once)
        self.problems[:0] = [p.to_dict() for p in found.values()]
        self.pages.problems.clear()

    def records(self, table: str) -> Iterator[tuple[bytes, bytes, bytes | None]]:
        """``(key, record, payload)`` of every record of ``table`` read (payload ``None``: damaged,
        and reported)."""
        for key, value in self.pages.records(table):
            self.counted[table] += 1
            self.done += 1
            if self.progress is not None and self.done % 4096 == 0:
                self.progress(self.done)
            data = payload(table, key, value)
            if data is None:
                self.problem(table, key, "checksum mismatch")
            yield key, value, data

    # -- games -----------------------------------------------------------------------------------
    def games(self) -> dict[int, bytes]:
        """Every sound game (options decode and name only older sound games): store id -> options."""
        found: dict[int, bytes] = {}
        for key, _, data in self.records("games"):
            if data is None:
                continue
            try:
                codec.decode_options(data)
                found[codec.decode_game_id(key)] = data
            except codec.CodecError as error:
                self.problem("games", key, f"does not decode: {error}")
        good = self.good_games
        for sid in sorted(found):
            left, right = codec.decode_options(found[sid])
            bad = [i for i in left + right if i >= sid or i not in good]
            if bad:
                self.problem("games", codec.encode_game_id(sid),
                             f"names games {bad[:5]} that are damaged, missing or not older")
            else:
                good[sid] = found[sid]
        return good

    def game_index(self) -> None:
        """Check ``game_index`` against the sound games (read first with ``games``)."""
        expected = {codec.index_key(options, MAX_KEY): codec.encode_game_id(sid) for sid, options in self.good_games.items()}
        for key, _, data in self.records("game_index"):
            if data is None:
                continue
            if expected.pop(key, None) != data:
                self.problem("game_index", key, f"names game {data.hex()}, which does not have these options")
        for key, gid in expected.items():
            self.problem("game_index", key, f"missing or wrong entry for game {int.from_bytes(gid, 'big')}")

    # -- positions ------------------------------------------------------------------------------
    def position(self, key: bytes, data: bytes) -> tuple[bool, int] | None:
        """``(is_game, number)`` of a sound ``positions`` payload, else ``None`` (and a problem)."""
        try:
            is_game, number, _ = codec.decode_entry(data)
        except codec.CodecError as error:
            self.problem("positions", key, f"does not decode: {error}")
            return None
        if len(key) < 3:
            self.problem("positions", key, "key too short for a position")
            return None
        if is_game and number not in self.good_games and not self._game_readable(number):
            self.problem("positions", key, f"names game {number}, which is damaged or missing")
            return None
        return is_game, number

    def _game_readable(self, sid: int) -> bool:
        """(A sampled scan, which has not read every game.) Whether game ``sid`` and its followers are sound."""
        if not self.sampled:
            return False  # (a full scan has read every game)
        stack, seen = [sid], set()
        while stack:
            i = stack.pop()
            if i in seen or i in self.good_games:
                continue
            seen.add(i)
            gid = codec.encode_game_id(i)
            raw = self.pages.get("games", gid)
            data = None if raw is None else payload("games", gid, raw)
            try:
                left, right = codec.decode_options(data) if data is not None else ([-1], [])
            except codec.CodecError:
                return False
            if any(j >= i or j < 0 for j in left + right):
                return False
            stack += left + right
        return True

    sampled = False

    def full(self) -> dict[bytes, int]:
        """Check every record of every table; returns the sound positions counted per ruleset."""
        self.games()
        self.game_index()
        counts: dict[bytes, int] = {}
        stored: set[int] = set()  # hashes of the stored position keys
        for key, _, data in self.records("positions"):
            prefix = key_prefix_of(key)
            counts[prefix] = counts.get(prefix, 0) + 1  # meta counts every record put
            if data is not None and self.position(key, data) is not None:
                stored.add(hash(key))
        for key, _, data in self.records("unverified"):
            if data is not None and hash(key) not in stored:
                self.problem("unverified", key, "marks a position that is not stored")
        return counts

    def sample(self, n: int, rng: random.Random) -> None:
        """Check the records of random leaf pages of each table, about ``n`` records a table."""
        self.sampled = True
        pages = self.pages
        for table in TABLES[1:]:
            seen: set[int] = set()
            for pgno in pages.sample_leaves(table, max(1, n // 16), rng.randrange):
                if pgno in seen:
                    continue
                seen.add(pgno)
                for key, value in pages.page_records(table, pgno):
                    self.counted[table] += 1
                    data = payload(table, key, value)
                    if data is None:
                        self.problem(table, key, "checksum mismatch")
                    else:
                        self._check_one(table, key, data)

    def _check_one(self, table: str, key: bytes, data: bytes) -> None:
        get = self.pages.get
        if table == "games":
            if len(key) != codec.GAME_ID_BYTES or not self._game_readable(codec.decode_game_id(key)):
                self.problem("games", key, "names games that are damaged, missing or not older")
        elif table == "game_index":
            raw = get("games", data) if len(data) == codec.GAME_ID_BYTES else None
            options = None if raw is None else payload("games", data, raw)
            if options is None or codec.index_key(options, MAX_KEY) != key:
                self.problem("game_index", key, f"names game {data.hex()}, which does not have these options")
        elif table == "positions":
            self.position(key, data)
        elif table == "unverified" and get("positions", key) is None:
            self.problem("unverified", key, "marks a position that is not stored")

    def meta(self, counts: dict[bytes, int] | None) -> dict[bytes, bytes]:
        """Every ``meta`` record; with ``counts`` also the entry counts. Returns sound payloads."""
        good: dict[bytes, bytes] = {}
        for key, _, data in self.records("meta"):
            if data is None:
                continue
            if key.startswith(COUNT) and len(data) != 8:
                self.problem("meta", key, "an entry count that is not 8 bytes")
                continue
            good[key] = data
        if counts is not None:
            for prefix in set(counts) | {k[len(COUNT):] for k in good if k.startswith(COUNT)}:
                stored = good.get(COUNT + prefix)
                actual = counts.get(prefix, 0)
                if stored is not None and int.from_bytes(stored, "big") != actual:
                    self.problem("meta", COUNT + prefix, f"counts {int.from_bytes(stored, 'big')} entries, "
                                                        f"the store holds {actual}")
        return good
