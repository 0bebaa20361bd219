"""``ruma store stats|backup|verify|repair``: inspect, copy, check and mend an LMDB store.

* ``ruma store stats`` — entries per ruleset, games, bytes used, bytes per entry.
* ``ruma store backup DEST`` — a consistent, compacted copy taken while the store is in use.
* ``ruma store verify [--full] [--sample N] [--revalue]`` — checks the records of every table
  (all of them with ``--full``, else N per table) and re-evaluates N random stored positions from
  scratch (``ruma.server.store.verify``); any problem or mismatch exits with status 1 and is
  listed. ``--revalue`` first re-values every uploaded value not re-valued yet and replaces those
  found wrong (``ruma.server.store.provenance``).
* ``ruma store compact`` — rewrites the store into a new file with every page full (records put
  again in key order through LMDB's append path), verifies it and puts it in place
  (``ruma.server.store.rewrite``); a killed run goes on where it stopped.
* ``ruma store repair [--sample N]`` — rebuilds the store from the records that pass every check,
  dropping the rest (and positions whose re-evaluated value differs) so that they are recomputed
  (``ruma.server.store.repair``); the old file is kept beside it.

The store is the one in ``--data DIR`` (default ``$RUMA_DATA`` or ``./ruma-data``); a directory
without a store, or a store that cannot be opened or read (damaged), is an error (exit 3), never
a new empty store.
"""

from __future__ import annotations

import argparse
import functools
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ruma.client.cli.errors import UnreachableError, UsageError, WorkFailedError
from ruma.client.cli.options import add_data_option, add_format_option, add_progress_option, count, data_directory
from ruma.client.cli.output import Output
from ruma.client.progress import progress
from ruma.engine.errors import RumaInputError

if TYPE_CHECKING:  # lmdb is imported when a store command runs, not for ruma --help
    from ruma.server.store.memo import LmdbStore

#: the hint for a damaged store
MEND = "check it with 'ruma store verify --full', mend it with 'ruma store repair'"


def _store_errors(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A store that cannot be read (a damaged record or page) is ``UnreachableError`` (exit status 3)."""

    @functools.wraps(run)
    def wrapper(args: argparse.Namespace) -> int:
        import lmdb

        from ruma.server.store.codec import CorruptRecordError

        try:
            return run(args)
        except (CorruptRecordError, lmdb.Error) as error:
            raise UnreachableError(f"the store in {args.data!r} is damaged: {str(error).splitlines()[0]}",
                                   MEND) from None

    return wrapper


@contextmanager
def opened(args: argparse.Namespace) -> Iterator["LmdbStore"]:
    """The store in ``--data`` (which must hold one); a store that cannot be opened is exit 3."""
    from ruma.server.store.codec import StoreDamagedError
    from ruma.server.store.memo import LmdbStore, StoreError

    directory = data_directory(args, create=False)
    try:
        store = LmdbStore(directory, create=False)
    except StoreError as error:
        hint = MEND if isinstance(error, StoreDamagedError) else None
        raise UnreachableError(f"cannot open the store in {args.data!r}: {str(error).splitlines()[0]}", hint) from None
    with store:
        yield store


@_store_errors
def run_stats(args: argparse.Namespace) -> int:
    """Print the store's statistics."""
    with opened(args) as store:
        stats = store.admin.stats()
    lines = [f"store {stats['path']} (schema {stats['schema_version']}, engine {stats['engine_version']})"]
    for row in stats["rulesets"]:
        lines.append(f"  {_ruleset_label(row)}: {row['entries']} entries")
    per = stats["bytes_per_entry"]
    lines.append(f"  entries {stats['entries']}, games {stats['games']}, data bytes {stats['data_bytes']}"
                 + (f" ({per:.1f} per entry)" if per is not None else "")
                 + f", file high-water {stats['bytes']} bytes, map {stats['map_size']}")
    runs = stats["runs"]
    if runs["files"]:
        whose = ("a sweep's, running now: merged or stored when it ends" if runs["held"] else
                 "a killed sweep's: stored by the next sweep, ruma serve or ruma store compact")
        lines.append(f"  runs beside it, not in it yet: {runs['files']} files, {runs['entries']} entries ({whose})")
    with Output(args.format) as out:
        out.emit(stats, "\n".join(lines))
    return 0


def _ruleset_label(row: dict[str, Any]) -> str:
    """A ruleset of the store's statistics by name: its own, its family's (``octal:CODE``: every
    octal game), or its key code when this version knows no ruleset of that code (an installed
    ruleset's entries of a version not installed: by the name recorded and the key prefix)."""
    from ruma.engine.rulesets import family_by_code

    if row["name"] and row["version"] is None:
        return f"{row['name']} (key prefix {row['prefix']}: a version not installed here)"
    if row["name"]:
        return f"{row['name']} v{row['version']}"
    family = family_by_code(row["code"])
    if family is not None:
        return f"{family} v{row['version']} (every game of the family)"
    return f"key code {row['code']} v{row['version']} (a ruleset this version of ruma does not know)"


@_store_errors
def run_backup(args: argparse.Namespace) -> int:
    """Write a consistent, compacted copy of the store."""
    from ruma.server.store.memo import LmdbStore

    with opened(args) as store:
        try:
            target = store.admin.backup(args.dest)
        except RumaInputError as error:
            raise UsageError(str(error), "give a new or empty directory") from None
    with LmdbStore(target, create=False) as copy:
        stats = copy.admin.stats()
    record = {"backup": str(target), "entries": stats["entries"], "bytes": stats["file_bytes"]}
    with Output(args.format) as out:
        out.emit(record, f"backup {target}: {record['entries']} entries, {record['bytes']} bytes")
    return 0


@_store_errors
def run_verify(args: argparse.Namespace) -> int:
    """Check the records and re-evaluate a sample; exit status 1 on any problem or mismatch.

    A store LMDB cannot open (a truncated file, a damaged meta page) is read from its file all the
    same (``store.verify.verify_directory``): verify reports what it finds, it does not refuse."""
    from ruma.server.store.codec import StoreDamagedError
    from ruma.server.store.verify import LISTED, verify_directory

    revalued: dict[str, Any] | None = None
    with progress("checking the store", unit="records", enabled=args.progress) as bar:
        try:
            with opened(args) as store:
                if args.revalue:
                    from ruma.server.store.provenance import revalue_store

                    checked, corrections = revalue_store(store)
                    revalued = {"checked": checked, "corrected": corrections}
                report = store.admin.verify(args.sample, args.seed, full=args.full, progress=bar)
        except UnreachableError as refused:
            if not isinstance(refused.__context__, StoreDamagedError):
                raise
            try:
                report = verify_directory(data_directory(args, create=False), args.sample, args.seed,
                                          full=args.full, progress=bar)
            except StoreDamagedError as error:
                raise UnreachableError(str(error).splitlines()[0]) from None
            report.problems.insert(0, {"table": "(file)", "key": "", "problem": str(refused).splitlines()[0]})
    records = ", ".join(f"{table} {n:,}" for table, n in report.records.items())
    lines = [f"records checked ({'every record of every table' if report.full else 'a sample'}): {records}; "
             f"damaged: {len(report.problems)}",
             "values re-evaluated and compared: "
             + (f"{report.checked:,} stored positions drawn at random (--sample {args.sample})"
                if report.checked >= args.sample else f"all {report.checked:,} stored positions")
             + f", {len(report.mismatches)} differ, {len(report.skipped)} skipped"]
    for bad in report.problems[:LISTED]:
        lines.append(f"  PROBLEM {bad['table']} {bad['key']}: {bad['problem']}")
    if len(report.problems) > LISTED:
        lines.append(f"  ... and {len(report.problems) - LISTED} more problems")
    for bad in report.mismatches:
        lines.append(f"  MISMATCH {bad['ruleset']} {bad['position']}: stored {bad['stored']}, "
                     f"expected {bad['expected']} (key {bad['key']})")
    record = report.to_dict()
    if revalued is not None:
        record["revalued"] = revalued
        lines.append(f"unverified uploads re-valued: {revalued['checked']}, found wrong and replaced: "
                     f"{len(revalued['corrected'])}")
        lines += [f"  CORRECTED {c['ruleset']} {c['position']}: uploaded as {c['stored']}, is {c['value']}"
                  for c in revalued["corrected"]]
    with Output(args.format) as out:
        out.emit(record, "\n".join(lines))
    if not report.ok:
        raise WorkFailedError(f"{len(report.problems)} problems (damaged pages or records) and "
                              f"{len(report.mismatches)} of {report.checked} stored values differ from a fresh "
                              f"evaluation",
                              "ruma store repair" + (f" --sample {args.sample}" if report.mismatches else "")
                              + " drops them so that they are recomputed (ruma store backup first)")
    return 0


@_store_errors
def run_repair(args: argparse.Namespace) -> int:
    """Rebuild the store from its sound records."""
    from ruma.server.store.codec import StoreDamagedError, StoreError
    from ruma.server.store.repair import repair_store
    from ruma.server.store.verify import LISTED

    directory = data_directory(args, create=False)
    try:
        report = repair_store(directory, args.sample, args.seed)
    except StoreDamagedError as error:
        raise UnreachableError(str(error).splitlines()[0]) from None
    except StoreError as error:
        raise UnreachableError(str(error).splitlines()[0], "stop every process using the store first"
                               if "another process" in str(error) else None) from None
    lines = [f"kept {report.kept.get('games', 0)} games and {report.kept.get('positions', 0)} positions; dropped "
             f"{len(report.problems)} damaged records and {len(report.mismatches)} wrong values (they are recomputed "
             f"when next asked for); the old file is {report.damaged_copy}"]
    lines += [f"  DROPPED {bad['table']} {bad['key']}: {bad['problem']}" for bad in report.problems[:LISTED]]
    if len(report.problems) > LISTED:
        lines.append(f"  ... and {len(report.problems) - LISTED} more")
    lines += [f"  DROPPED {bad['ruleset']} {bad['position']}: stored {bad['stored']}, expected {bad['expected']}"
              for bad in report.mismatches]
    with Output(args.format) as out:
        out.emit(report.to_dict(), "\n".join(lines))
    return 0


def run_compact(args: argparse.Namespace) -> int:
    """Rewrite the store densely (``ruma.server.store.rewrite``)."""
    from ruma.server.store.codec import StoreDamagedError, StoreError
    from ruma.server.store.rewrite import compact_store

    directory = data_directory(args, create=False)
    try:
        with progress("compacting the store", unit="records", enabled=args.progress) as bar:
            report = compact_store(directory, bar)
    except StoreDamagedError as error:
        raise UnreachableError(str(error).splitlines()[0], MEND) from None
    except StoreError as error:
        raise UnreachableError(str(error).splitlines()[0], "stop every process using the store first"
                               if "another process" in str(error) else None) from None
    line = (f"compacted {sum(report.records.values())} records: {report.bytes_before} -> {report.bytes_after} bytes"
            + (" (a killed run finished)" if report.resumed else ""))
    with Output(args.format) as out:
        out.emit(report.to_dict(), line)
    return 0


def register(subparsers: Any) -> None:
    """Register ``ruma store`` and its subcommands."""
    store = subparsers.add_parser("store", help="inspect, back up, verify and repair an LMDB store", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = store.add_subparsers(dest="store_command", metavar="SUBCOMMAND", required=True)

    stats = commands.add_parser("stats", help="entries per ruleset, games, bytes")
    add_data_option(stats)
    add_format_option(stats, lists=False)
    stats.set_defaults(handler=run_stats)

    backup = commands.add_parser("backup", help="consistent compacted copy (safe while in use)")
    backup.add_argument("dest", metavar="DEST", help="a new or empty directory")
    add_data_option(backup)
    add_format_option(backup, lists=False)
    backup.set_defaults(handler=run_backup)

    verify = commands.add_parser("verify", help="check every table's records and re-evaluate a sample")
    add_data_option(verify)
    verify.add_argument("--full", action="store_true", help="check every record of every table (else N per table)")
    verify.add_argument("--sample", type=count, default=100, metavar="N",
                        help="records per table to check without --full, and positions to re-evaluate (100)")
    verify.add_argument("--seed", type=int, default=None, help="random seed for the sample")
    verify.add_argument("--revalue", action="store_true",
                        help="first re-value every uploaded value the server has not re-valued yet, replacing "
                             "those found wrong (stop the server first: it caches values)")
    add_format_option(verify, lists=False)
    add_progress_option(verify)
    verify.set_defaults(handler=run_verify)

    compact = commands.add_parser("compact", help="rewrite the store densely, full pages (stop the server first)")
    add_data_option(compact)
    add_format_option(compact, lists=False)
    add_progress_option(compact)
    compact.set_defaults(handler=run_compact)

    repair = commands.add_parser("repair", help="rebuild the store from its sound records (stop the server first)")
    add_data_option(repair)
    repair.add_argument("--sample", type=count, default=0, metavar="N",
                        help="also re-evaluate N positions and drop those with a wrong value (0)")
    repair.add_argument("--seed", type=int, default=None, help="random seed for the sample")
    add_format_option(repair, lists=False)
    repair.set_defaults(handler=run_repair)
