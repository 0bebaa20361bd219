"""``ruma store stats|backup|verify``: inspect, copy and check an LMDB store (``ruma.server.store``).

* ``ruma store stats`` — entries per ruleset, games, bytes used, bytes per entry.
* ``ruma store backup DEST`` — a consistent, compacted copy taken while the store is in use.
* ``ruma store verify --sample N`` — re-evaluates N random stored positions from scratch (a fresh
  in-memory memo) and compares; any mismatch exits with status 1 and lists it.

The store is the one in ``--data DIR`` (default ``$RUMA_DATA`` or ``./ruma-data``); a directory
without a store is an error (exit 3), never a new empty store.
"""

from __future__ import annotations

import argparse
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ruma.client.cli_errors import Unreachable, UsageError, WorkFailed
from ruma.client.cli_options import add_data_option, add_format_option, add_progress_option, count, data_directory
from ruma.client.cli_output import Output, progress
from ruma.engine.errors import RumaError
from ruma.engine.evaluator import Value, evaluate, format_value
from ruma.engine.memo import InMemoryMemo

if TYPE_CHECKING:  # lmdb is imported when a store command runs, not for ruma --help
    from ruma.server.store import LmdbStore


@dataclass
class VerifyReport:
    """What ``verify_store`` found: how many entries were checked or skipped, and the mismatches."""

    checked: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)
    mismatches: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {"checked": self.checked, "skipped": self.skipped, "mismatches": self.mismatches,
                "ok": not self.mismatches}


def _show(value: Value) -> str:
    return format_value(value)


def verify_store(store: "LmdbStore", sample: int, seed: int | None = None,
                 advance: Callable[[], None] | None = None) -> VerifyReport:
    """Re-evaluate up to ``sample`` random stored positions from scratch and compare values
    (``advance`` is called after each entry)."""
    from ruma.server import store_codec as codec
    from ruma.server.store_keys import state_of_key

    report = VerifyReport()
    memo = InMemoryMemo()
    for key, stored in store.sample(sample, seed):
        if advance is not None:
            advance()
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
                                      "stored": _show(stored), "expected": f"error: {error}"})
            continue
        report.checked += 1
        same = (stored is expected) if not isinstance(stored, int) else (
            isinstance(expected, int) and stored == expected)
        if not same:
            report.mismatches.append({"key": key.hex(), "ruleset": ruleset.name, "position": position,
                                      "stored": _show(stored), "expected": _show(expected)})
    return report


@contextmanager
def opened(args: argparse.Namespace) -> Iterator["LmdbStore"]:
    """The store in ``--data`` (which must hold one); a store that cannot be opened is exit 3."""
    from ruma.server.store import LmdbStore, StoreError

    if getattr(args, "legacy_dir", None):
        raise UsageError(f"the data directory {args.legacy_dir!r} now goes in --data",
                         f"{args.command_prog} --data {args.legacy_dir}")
    directory = data_directory(args, create=False)
    try:
        store = LmdbStore(directory, create=False)
    except StoreError as error:
        raise Unreachable(f"cannot open the store in {args.data!r}: {error}") from None
    with store:
        yield store


def run_stats(args: argparse.Namespace) -> int:
    """Print the store's statistics."""
    with opened(args) as store:
        stats = store.stats()
    lines = [f"store {stats['path']} (schema {stats['schema_version']}, engine {stats['engine_version']})"]
    for row in stats["rulesets"]:
        name = row["name"] or f"code {row['code']}"
        lines.append(f"  {name} v{row['version']}: {row['entries']} entries")
    per = stats["bytes_per_entry"]
    lines.append(f"  entries {stats['entries']}, games {stats['games']}, data bytes {stats['data_bytes']}"
                 + (f" ({per:.1f} per entry)" if per is not None else "")
                 + f", file high-water {stats['bytes']} bytes, map {stats['map_size']}")
    with Output(args.format) as out:
        out.emit(stats, "\n".join(lines))
    return 0


def run_backup(args: argparse.Namespace) -> int:
    """Write a consistent, compacted copy of the store."""
    if len(args.paths) > 1:
        args.legacy_dir = args.paths[0]
    dest = args.paths[-1]
    from ruma.server.store import LmdbStore, StoreError

    with opened(args) as store:
        try:
            target = store.backup(dest)
        except StoreError as error:
            raise UsageError(str(error), "give a new or empty directory") from None
    with LmdbStore(target, create=False) as copy:
        stats = copy.stats()
    record = {"backup": str(target), "entries": stats["entries"], "bytes": stats["file_bytes"]}
    with Output(args.format) as out:
        out.emit(record, f"backup {target}: {record['entries']} entries, {record['bytes']} bytes")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    """Re-evaluate a random sample; exit status 1 on any mismatch."""
    with opened(args) as store, progress("verifying", total=args.sample, enabled=args.progress) as bar:
        report = verify_store(store, args.sample, args.seed, bar.advance)
    lines = [f"checked {report.checked}, skipped {len(report.skipped)}, mismatches {len(report.mismatches)}"]
    for bad in report.mismatches:
        lines.append(f"  MISMATCH {bad['ruleset']} {bad['position']}: stored {bad['stored']}, "
                     f"expected {bad['expected']} (key {bad['key']})")
    with Output(args.format) as out:
        out.emit(report.to_dict(), "\n".join(lines))
    if report.mismatches:
        raise WorkFailed(f"{len(report.mismatches)} of {report.checked} stored values differ from a fresh evaluation",
                         "ruma store backup first; the listing names the keys")
    return 0


def _legacy_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("legacy_dir", nargs="?", help=argparse.SUPPRESS)  # the old positional DIR


def register(subparsers: Any) -> None:
    """Register ``ruma store`` and its subcommands."""
    store = subparsers.add_parser("store", help="inspect, back up and verify an LMDB store", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = store.add_subparsers(dest="store_command", metavar="SUBCOMMAND", required=True)

    stats = commands.add_parser("stats", help="entries per ruleset, games, bytes")
    _legacy_dir(stats)
    add_data_option(stats)
    add_format_option(stats, lists=False)
    stats.set_defaults(handler=run_stats)

    backup = commands.add_parser("backup", help="consistent compacted copy (safe while in use)")
    backup.add_argument("paths", nargs="+", metavar="DEST", help="a new or empty directory")
    add_data_option(backup)
    add_format_option(backup, lists=False)
    backup.set_defaults(handler=run_backup)

    verify = commands.add_parser("verify", help="re-evaluate a random sample and compare")
    _legacy_dir(verify)
    add_data_option(verify)
    verify.add_argument("--sample", type=count, default=100, metavar="N", help="positions to check (100)")
    verify.add_argument("--seed", type=int, default=None, help="random seed for the sample")
    add_format_option(verify, lists=False)
    add_progress_option(verify)
    verify.set_defaults(handler=run_verify)
