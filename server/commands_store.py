"""``ruma store stats|backup|verify|repair``: inspect, copy, check and mend an LMDB store.

* ``ruma store stats DIR`` — entries per ruleset, games, bytes used, bytes per entry.
* ``ruma store backup DIR DEST`` — a consistent, compacted copy taken while the store is in use.
* ``ruma store verify DIR [--full] [--sample N]`` — checks the records of every table (all of them
  with ``--full``, else N per table) and re-evaluates N random stored positions from scratch
  (``ruma.server.store_verify``); any problem or mismatch exits with status 1 and is listed.
* ``ruma store repair DIR [--sample N]`` — rebuilds the store from the records that pass every
  check, dropping the rest (and positions whose re-evaluated value differs) so that they are
  recomputed (``ruma.server.store_repair``); the old file is kept beside it.

A store that cannot be opened (missing, damaged) is one line on stderr and exit status 3
(``ruma.client.cli_errors.Unreachable``); problems found by ``verify`` are exit status 1.
"""

from __future__ import annotations

import argparse
import functools
import json
from typing import Any, Callable

import lmdb

from ruma.client.cli import add_json_flag
from ruma.client.cli_errors import Exit, Unreachable, WorkFailed
from ruma.client.cli_options import add_progress_option
from ruma.client.cli_output import progress
from ruma.server.store import LmdbStore
from ruma.server.store_codec import CorruptRecordError, StoreDamagedError, StoreError
from ruma.server.store_verify import VerifyReport, verify_store

__all__ = ["VerifyReport", "register", "verify_store"]

#: the hint for a damaged store
MEND = "check it with 'ruma store verify DIR --full', mend it with 'ruma store repair DIR'"


def _store_errors(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A store that cannot be opened or read is ``Unreachable`` (one line, exit status 3)."""

    @functools.wraps(run)
    def wrapper(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except (StoreError, CorruptRecordError, lmdb.Error) as error:
            what = str(error).splitlines()[0]
            damaged = isinstance(error, (StoreDamagedError, CorruptRecordError, lmdb.Error))
            raise Unreachable(what, MEND if damaged and "ruma store" not in what else None) from None

    return wrapper


@_store_errors
def run_stats(args: argparse.Namespace) -> int:
    """Print the store's statistics."""
    with LmdbStore(args.dir, create=False) as store:
        stats = store.stats()
    if args.json:
        print(json.dumps(stats))
        return 0
    print(f"store {stats['path']} (schema {stats['schema_version']}, engine {stats['engine_version']})")
    for row in stats["rulesets"]:
        name = row["name"] or f"code {row['code']}"
        print(f"  {name} v{row['version']}: {row['entries']} entries")
    per = stats["bytes_per_entry"]
    print(f"  entries {stats['entries']}, games {stats['games']}, data bytes {stats['data_bytes']}"
          + (f" ({per:.1f} per entry)" if per is not None else "")
          + f", file high-water {stats['bytes']} bytes, map {stats['map_size']}")
    return 0


@_store_errors
def run_backup(args: argparse.Namespace) -> int:
    """Write a consistent, compacted copy of the store."""
    with LmdbStore(args.dir, create=False) as store:
        target = store.backup(args.dest)
    with LmdbStore(target, create=False) as copy:
        stats = copy.stats()
    if args.json:
        print(json.dumps({"backup": str(target), "entries": stats["entries"], "bytes": stats["file_bytes"]}))
    else:
        print(f"backup {target}: {stats['entries']} entries, {stats['file_bytes']} bytes")
    return 0


@_store_errors
def run_verify(args: argparse.Namespace) -> int:
    """Check the records and re-evaluate a sample; exit status 1 on any problem or mismatch."""
    with LmdbStore(args.dir, create=False) as store, \
            progress("checking the store", unit="records", enabled=args.progress) as bar:
        report = verify_store(store, args.sample, args.seed, full=args.full, progress=bar)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        records = ", ".join(f"{table} {n}" for table, n in report.records.items())
        print(f"records checked ({'all' if report.full else 'a sample'}): {records}")
        print(f"checked {report.checked}, skipped {len(report.skipped)}, mismatches {len(report.mismatches)}, "
              f"problems {len(report.problems)}")
        for bad in report.problems:
            print(f"  PROBLEM {bad['table']} {bad['key']}: {bad['problem']}")
        for bad in report.mismatches:
            print(f"  MISMATCH {bad['ruleset']} {bad['position']}: stored {bad['stored']}, "
                  f"expected {bad['expected']} (key {bad['key']})")
    if not report.ok:
        raise WorkFailed(f"{len(report.problems)} damaged records and {len(report.mismatches)} wrong values in "
                         f"{args.dir}", f"mend with 'ruma store repair {args.dir}'"
                         + (f" --sample {args.sample}" if report.mismatches else ""))
    return Exit.OK


@_store_errors
def run_repair(args: argparse.Namespace) -> int:
    """Rebuild the store from its sound records."""
    from ruma.server.store_repair import repair_store

    report = repair_store(args.dir, args.sample, args.seed)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(f"kept {report.kept.get('games', 0)} games and {report.kept.get('positions', 0)} positions; "
              f"dropped {len(report.problems)} damaged records and {len(report.mismatches)} wrong values "
              f"(they are recomputed when next asked for); the old file is {report.damaged_copy}")
        for bad in report.problems:
            print(f"  DROPPED {bad['table']} {bad['key']}: {bad['problem']}")
        for bad in report.mismatches:
            print(f"  DROPPED {bad['ruleset']} {bad['position']}: stored {bad['stored']}, expected {bad['expected']}")
    return 0


def register(subparsers: Any) -> None:
    """Register ``ruma store`` and its subcommands."""
    store = subparsers.add_parser("store", help="inspect, back up and verify an LMDB store")
    commands = store.add_subparsers(dest="store_command", metavar="SUBCOMMAND", required=True)

    stats = commands.add_parser("stats", help="entries per ruleset, games, bytes")
    stats.add_argument("dir", metavar="DIR")
    add_json_flag(stats)
    stats.set_defaults(handler=run_stats)

    backup = commands.add_parser("backup", help="consistent compacted copy (safe while in use)")
    backup.add_argument("dir", metavar="DIR")
    backup.add_argument("dest", metavar="DEST", help="a new or empty directory")
    add_json_flag(backup)
    backup.set_defaults(handler=run_backup)

    verify = commands.add_parser("verify", help="check every table's records and re-evaluate a sample")
    verify.add_argument("dir", metavar="DIR")
    verify.add_argument("--full", action="store_true", help="check every record of every table (else N per table)")
    verify.add_argument("--sample", type=int, default=100, metavar="N",
                        help="records per table to check without --full, and positions to re-evaluate (100)")
    verify.add_argument("--seed", type=int, default=None, help="random seed for the sample")
    add_json_flag(verify)
    add_progress_option(verify)
    verify.set_defaults(handler=run_verify)

    repair = commands.add_parser("repair", help="rebuild the store from its sound records (stop the server first)")
    repair.add_argument("dir", metavar="DIR")
    repair.add_argument("--sample", type=int, default=0, metavar="N",
                        help="also re-evaluate N positions and drop those with a wrong value (0)")
    repair.add_argument("--seed", type=int, default=None, help="random seed for the sample")
    add_json_flag(repair)
    repair.set_defaults(handler=run_repair)
