"""``ruma store stats|backup|verify``: inspect, copy and check an LMDB store (``ruma.server.store``).

* ``ruma store stats DIR`` — entries per ruleset, games, bytes used, bytes per entry.
* ``ruma store backup DIR DEST`` — a consistent, compacted copy taken while the store is in use.
* ``ruma store verify DIR --sample N`` — re-evaluates N random stored positions from scratch (a
  fresh in-memory memo) and compares; any mismatch exits with status 1 and lists it.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

from ruma.client.cli import add_json_flag
from ruma.engine.errors import RumaError
from ruma.engine.evaluator import evaluate, format_value
from ruma.engine.memo import InMemoryMemo
from ruma.server import store_codec as codec
from ruma.server.store import LmdbStore, Value
from ruma.server.store_keys import state_of_key


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


def verify_store(store: LmdbStore, sample: int, seed: int | None = None) -> VerifyReport:
    """Re-evaluate up to ``sample`` random stored positions from scratch and compare values."""
    report = VerifyReport()
    memo = InMemoryMemo()
    for key, stored in store.sample(sample, seed):
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


def run_verify(args: argparse.Namespace) -> int:
    """Re-evaluate a random sample; exit status 1 on any mismatch."""
    with LmdbStore(args.dir, create=False) as store:
        report = verify_store(store, args.sample, args.seed)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(f"checked {report.checked}, skipped {len(report.skipped)}, mismatches {len(report.mismatches)}")
        for bad in report.mismatches:
            print(f"  MISMATCH {bad['ruleset']} {bad['position']}: stored {bad['stored']}, "
                  f"expected {bad['expected']} (key {bad['key']})")
    return 1 if report.mismatches else 0


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

    verify = commands.add_parser("verify", help="re-evaluate a random sample and compare")
    verify.add_argument("dir", metavar="DIR")
    verify.add_argument("--sample", type=int, default=100, metavar="N", help="positions to check (100)")
    verify.add_argument("--seed", type=int, default=None, help="random seed for the sample")
    add_json_flag(verify)
    verify.set_defaults(handler=run_verify)
