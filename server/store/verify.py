"""``ruma store verify``: check every table of an LMDB store, record by record, and re-evaluate.

``verify_store(store, full=..., sample=N)`` reads one snapshot of the file page by page
(``store.page_file.PageFile``: never through LMDB, which may stop the process on a damaged page) and
checks its records (``store.scan.Scan``: every record with ``full``, else those of random leaf
pages, about ``sample`` a table). Then it re-evaluates ``sample`` uniformly drawn positions from
scratch (``ruma.engine.evaluator``, a fresh in-memory memo) and compares. Every problem is
reported (table, key, what): a page that cannot be read, a record that fails its checksum, a
cross reference that does not hold. A store whose file is damaged past what LMDB can open (a
truncated file, one damaged meta page) is read all the same (``verify_directory``); only a file
with no sound meta page at all cannot be read.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ruma.engine.cgt import Game, format_value
from ruma.engine.errors import RumaError
from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.server.store import codec
from ruma.server.store.codec import StoreDamagedError
from ruma.server.store.games import rebuild_game
from ruma.server.store.keys import state_of_key
from ruma.server.store.page_file import PageError, PageFile
from ruma.server.store.scan import TABLES, Scan, payload, reservoir, sound_keys

__all__ = ["TABLES", "VerifyReport", "verify_directory", "verify_store"]

#: the problems a report lists (a store read without its trees may have one a record; all are counted)
LISTED = 1000


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
                "mismatches": self.mismatches, "problems": self.problems[:LISTED],
                "problems_total": len(self.problems), "ok": self.ok}


def open_pages(path: str | os.PathLike[str], txnid: int | None = None) -> PageFile:
    """``data.mdb`` in ``path`` as a ``PageFile`` (``StoreDamagedError`` when no meta page is sound)."""
    try:
        return PageFile(Path(path) / "data.mdb", txnid, sound_keys)
    except PageError as error:
        raise StoreDamagedError(f"store {str(path)!r} cannot be read: {error}") from error


def check_pages(pages: PageFile, sample: int, seed: int | None, full: bool,
                progress: Callable[[int], None] | None = None) -> VerifyReport:
    """The checks and re-evaluation of ``verify_store`` over one snapshot."""
    report = VerifyReport(full=full)
    scan = Scan(pages, progress)
    if full:
        scan.meta(scan.full())
    else:
        scan.sample(sample, random.Random(seed))
        scan.meta(None)
    _reevaluate(pages, sample, seed, report)
    scan.page_problems()
    report.problems = scan.problems + report.problems
    report.records = dict(scan.counted)
    return report


def verify_store(store: Any, sample: int = 100, seed: int | None = None, *, full: bool = False,
                 progress: Callable[[int], None] | None = None) -> VerifyReport:
    """Check the open store's records (all with ``full``) and re-evaluate ``sample`` positions;
    ``progress(records)`` is called as the check goes. A read transaction held meanwhile keeps
    the snapshot read from being overwritten by other processes' commits."""
    core = store.core
    core.flush()
    for _ in range(100):
        with core.lock.shared():
            txn = core.env.begin()
        try:
            pages = open_pages(core.path, txn.id())
            if pages.txnid == txn.id():  # (else two commits came between: take a newer snapshot)
                with pages:
                    return check_pages(pages, sample, seed, full, progress)
            pages.close()
        finally:
            txn.abort()
    raise StoreDamagedError(f"store {str(core.path)!r}: no snapshot could be held long enough to read it")


def verify_directory(directory: str | os.PathLike[str], sample: int = 100, seed: int | None = None, *,
                     full: bool = False, progress: Callable[[int], None] | None = None) -> VerifyReport:
    """``verify_store`` of a store LMDB cannot open (its newest sound snapshot, read from the file)."""
    with open_pages(directory) as pages:
        return check_pages(pages, sample, seed, full, progress)


def stored_value(pages: PageFile, key: bytes, data: bytes, games: dict[int, int]) -> Any:
    """The value a sound ``positions`` payload names (a ``Game`` rebuilt from ``games`` records,
    ``games`` memoising store id -> Game.id;
    ``CorruptRecordError`` when one is missing or damaged)."""
    is_game, number, _ = codec.decode_entry(data)
    if not is_game:
        return number

    def options_of(sid: int) -> tuple[list[int], list[int]]:
        gid = codec.encode_game_id(sid)
        raw = pages.get("games", gid)
        options = None if raw is None else payload("games", gid, raw)
        if options is None:
            raise codec.CorruptRecordError("games", gid, f"game {sid} is damaged or missing")
        return codec.decode_options(options)

    return Game.by_id(rebuild_game(number, options_of, games))


def _reevaluate(pages: PageFile, sample: int, seed: int | None, report: VerifyReport) -> None:
    """Value up to ``sample`` uniformly drawn stored positions from scratch and compare."""
    memo = InMemoryMemo()
    drawn = reservoir(pages.records("positions"), sample, random.Random(seed))  # (over one snapshot)
    games: dict[int, int] = {}
    for key, raw in drawn:
        data = payload("positions", key, raw)
        try:
            stored = None if data is None else stored_value(pages, key, data, games)
        except (codec.CorruptRecordError, codec.CodecError):
            stored = None
        if stored is None:
            continue  # a damaged record: the checks report it
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
