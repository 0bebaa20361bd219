"""``ruma catalog ...``, ``ruma theorem ...`` and ``ruma db ...``: the catalog from the command line.

Every catalog/theorem command works on a local catalog (``--data DIR``, default ``$RUMA_DATA`` or
``./ruma-data``: SQLite ``DIR/catalog.sqlite`` and the LMDB store in ``DIR``; or ``--catalog URL``
for any SQLAlchemy URL such as ``postgresql+psycopg://user:pw@host/db``) or on a server
(``--server ADDR [--token T]``). Commands that only read refuse a directory without a catalog or
store (exit 3); those that write create it. Values are computed through the store (``--no-store``:
an in-memory memo) and printed in ``--notation`` (default unicode); lists take ``--format
table|json|csv``, single records ``--format text|json``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ruma.client.cli.errors import UnreachableError, UsageError, WorkFailedError
from ruma.client.cli.options import (
    DEFAULT_DATA,
    add_format_option,
    add_notation_option,
    add_progress_option,
    add_server_options,
    connect,
    data_directory,
    positive,
)
from ruma.client.cli.output import Column, Output
from ruma.client.progress import progress

if TYPE_CHECKING:  # lmdb is imported when a command opens a store, not for ruma --help
    from ruma.server.store.memo import LmdbStore

POSITION_COLUMNS = [Column("name"), Column("ruleset"), Column("position"), Column("value"), Column("outcome"),
                    Column("tags")]
STORED_COLUMNS = [Column("ruleset"), Column("position"), Column("value"),  # (the key is in --json only)
                  Column("unverified")]
#: stored positions a search counts before it says "more than"
COUNT_UP_TO = 1000
THEOREM_COLUMNS = [Column("name"), Column("ruleset"), Column("family"), Column("claim"), Column("domain"),
                   Column("status")]


def _location(parser: argparse.ArgumentParser, server: bool = True, *, lists: bool = False,
              notation: bool = True) -> None:
    parser.add_argument("--data", metavar="DIR", default=os.environ.get("RUMA_DATA") or None,
                        help=f"data directory: SQLite catalog and LMDB store (default $RUMA_DATA or {DEFAULT_DATA})")
    parser.add_argument("--catalog", metavar="URL", default=os.environ.get("RUMA_CATALOG_URL"),
                        help="catalog database URL (default: SQLite in --data; $RUMA_CATALOG_URL)")
    if server:
        parser.add_argument("--no-store", action="store_true", help="value through an in-memory memo, not DIR's store")
        add_server_options(parser, optional=True)
    if notation:
        add_notation_option(parser)
    add_format_option(parser, lists=lists)


def _add(sub: Any, name: str, help_text: str, handler: Any, server: bool = True, *, write: bool = False,
         lists: bool = False, notation: bool = True) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    _location(parser, server, lists=lists, notation=notation)
    parser.set_defaults(handler=handler, writes=write)
    return parser


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``catalog``, ``theorem`` and ``db``."""
    catalog = subparsers.add_parser("catalog", help="named positions: add, list, search, show, seed")
    csub = catalog.add_subparsers(dest="catalog_command", metavar="ACTION", required=True)
    p = _add(csub, "add", "catalogue a position under a unique name", _catalog_add, write=True)
    p.add_argument("name")
    p.add_argument("--ruleset", required=True)
    p.add_argument("--position", required=True)
    p.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    p.add_argument("--notes")
    p.add_argument("--paper", help="source: the paper")
    p.add_argument("--table", help="source: the table")
    p.add_argument("--page", type=positive, help="source: the page")
    p.add_argument("--source-value", help="the value as printed in the source (provenance)")
    p.add_argument("--replace", action="store_true", help="overwrite an entry of that name")
    p = _add(csub, "remove", "remove a named position", _catalog_remove, write=True)
    p.add_argument("name")
    for action, text, handler in (("list", "list named positions (no values)", _catalog_list),
                                  ("search", "named positions by name, tag, ruleset and value", _catalog_search)):
        p = _add(csub, action, text, handler, lists=True)
        p.add_argument("--name", help="name substring")
        p.add_argument("--tag")
        p.add_argument("--ruleset")
        p.add_argument("--limit", type=positive, metavar="N")
        if action == "search":
            p.add_argument("--value", help="game notation, e.g. '^*' or '*4'")
            p.add_argument("--stored", action="store_true",
                           help="search every stored position of --ruleset (the store's value index)")
    p = _add(csub, "show", "one named position with its value", _catalog_show)
    p.add_argument("name")
    p = _add(csub, "seed", "load Erickson's tables and theorems (idempotent)", _catalog_seed, write=True, notation=False)
    p.add_argument("--beyond", action="store_true",
                   help="add the positions found beyond the exhaustive bound too (docs/data/beyond.jsonl; "
                        "heavy to value)")
    add_progress_option(p)

    theorem = subparsers.add_parser("theorem", help="theorems about families of positions: add, verify, list, show")
    tsub = theorem.add_subparsers(dest="theorem_command", metavar="ACTION", required=True)
    p = _add(tsub, "add", "record a theorem", _theorem_add, write=True)
    p.add_argument("name")
    p.add_argument("--ruleset", required=True)
    p.add_argument("--family", required=True, help="e.g. '(10)^m 03 (01)^n'")
    p.add_argument("--claim", required=True, help="a value ('n+1', '{n|-m}', 'n.^') or 'property:NAME'")
    p.add_argument("--domain", default="", help="e.g. 'm>=0,n>=0,not(m=0,n=0)'")
    p.add_argument("--paper")
    p.add_argument("--ref", help="e.g. 'Theorem 2.3'")
    p.add_argument("--page", type=positive)
    p.add_argument("--notes")
    p.add_argument("--replace", action="store_true")
    p = _add(tsub, "verify", "check a theorem on every instance with parameters <= K", _theorem_verify, write=True)
    p.add_argument("name")
    p.add_argument("--up-to", type=positive, required=True, metavar="K")
    add_progress_option(p)
    p = _add(tsub, "list", "theorems with their latest run", _theorem_list, lists=True)
    p.add_argument("--ruleset")
    p = _add(tsub, "show", "one theorem with all its runs", _theorem_show)
    p.add_argument("name")

    db = subparsers.add_parser("db", help="catalog schema migrations: upgrade, downgrade, current")
    dsub = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    p = _add(dsub, "upgrade", "migrate the catalog to a revision (default: head)", _db_upgrade, server=False,
             write=True, notation=False)
    p.add_argument("revision", nargs="?", default="head")
    p = _add(dsub, "downgrade", "migrate the catalog down to a revision (default: base, i.e. empty)",
             _db_downgrade, server=False, write=True, notation=False)
    p.add_argument("revision", nargs="?", default="base")
    _add(dsub, "current", "the catalog's revision and the newest one", _db_current, server=False, notation=False)


# -- backends ---------------------------------------------------------------------------------
def _directory(args: argparse.Namespace) -> Path:
    """The data directory: created by commands that write, required by those that read."""
    if args.data is None:
        args.data = DEFAULT_DATA
    return data_directory(args, create=args.writes)


@contextlib.contextmanager
def _database(args: argparse.Namespace, where: str) -> Iterator[None]:
    """Database errors as one line: a malformed URL is exit 2, an unreachable database exit 3."""
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    try:
        yield
    except ArgumentError as error:
        raise UsageError(f"bad --catalog URL {args.catalog!r}: {error}") from None
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise UnreachableError(f"cannot use the catalog {where!r}: {reason}") from None


class _Local:
    """``CatalogOps`` on a local catalog and store; closes both."""

    def __init__(self, args: argparse.Namespace) -> None:
        from ruma.server.catalog.models import Catalog
        from ruma.server.catalog.ops import CatalogOps

        directory = _directory(args) if (args.data is not None or not args.catalog) else None
        with _database(args, args.catalog or str(directory)):
            self.catalog = Catalog.open(directory, url=args.catalog)
        self.store: LmdbStore | None = None
        if directory is not None and not getattr(args, "no_store", False):
            self.store = _open_store(args, directory)
        self.ops = CatalogOps(self.catalog, store=self.store, added_by=_user())

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        self.catalog.close()


def _open_store(args: argparse.Namespace, directory: Path) -> "LmdbStore | None":
    """The LMDB store in ``directory``; ``None`` for a reading command where there is none."""
    from ruma.server.store.memo import LmdbStore, StoreError

    if not args.writes and not (directory / "data.mdb").exists():
        return None  # a reading command on a catalog without a store values in memory
    try:
        return LmdbStore(directory)
    except StoreError as error:
        raise UnreachableError(f"cannot open the store in {str(directory)!r}: {error}") from None


def _user() -> str | None:
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return None


class _Remote:
    """The same operations over gRPC: ``CatalogClient`` has ``CatalogOps``'s method names."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.client = connect(args)
        self.ops = self.client.catalog

    def close(self) -> None:
        self.client.close()


class _Session:
    def __init__(self, args: argparse.Namespace) -> None:
        remote = getattr(args, "server", None)
        if remote and args.data:
            raise UsageError("give either --server or a local --data, not both")
        self.backend: _Local | _Remote = _Remote(args) if remote else _Local(args)

    def __enter__(self) -> Any:
        return self.backend.ops

    def __exit__(self, *exc: object) -> None:
        self.backend.close()


# -- records -----------------------------------------------------------------------------------
def _plain(item: Any) -> dict[str, Any]:
    return item.to_dict() if hasattr(item, "to_dict") else dict(item)


def _position(item: Any, notation: str) -> dict[str, Any]:
    from ruma.client.catalog_client import NamedPosition
    from ruma.client.records import renotate

    record = NamedPosition.from_dict(_plain(item)).to_dict()
    record["value"] = renotate(record["value"], notation)
    return record


def _stored(item: Any, notation: str) -> dict[str, Any]:
    from ruma.client.catalog_client import StoredPosition
    from ruma.client.records import renotate

    record = StoredPosition.from_dict(_plain(item)).to_dict()
    record["value"] = renotate(record["value"], notation)
    return record


def _run(item: Any, notation: str) -> dict[str, Any]:
    from ruma.client.catalog_client import VerificationRun
    from ruma.client.records import renotate

    record = VerificationRun.from_dict(_plain(item)).to_dict()
    for name in ("counterexample_value", "claimed_value"):
        record[name] = renotate(record[name], notation)
    return record


def _theorem(item: Any, notation: str) -> dict[str, Any]:
    from ruma.client.catalog_client import Theorem

    record = Theorem.from_dict(_plain(item)).to_dict()
    if record["last_run"] is not None:
        record["last_run"] = _run(record["last_run"], notation)
    run = record["last_run"]
    record["status"] = "never verified" if not run else (
        f"holds to K={run['up_to']}" if run["holds"] else f"refuted at {run['counterexample']}")
    return record


def _emit(args: argparse.Namespace, records: Iterable[dict[str, Any]], line: Callable[[dict[str, Any]], str],
          columns: list[Column] | None = None, *, drop: tuple[str, ...] = ()) -> int:
    count = 0
    with Output(args.format, columns or ()) as out:
        for record in records:
            count += 1
            out.emit({k: v for k, v in record.items() if k not in drop} if args.format == "json" else record,
                     line(record))
    return count


# -- printing ---------------------------------------------------------------------------------
def _position_line(d: dict[str, Any]) -> str:
    value = f" = {d['value']}" if d.get("value") is not None else ""
    if value and d.get("unverified"):
        value += " (an unverified upload)"
    if d.get("error"):
        value = f" (not evaluated: {d['error']})"
    src = d.get("source") or {}
    where = ", ".join(str(x) for x in (src.get("table"), f"p. {src['page']}" if src.get("page") else None) if x)
    printed = f"; printed {src['value']}" if src.get("value") else ""
    agreement = d.get("source_agrees")
    agrees = "" if agreement is None else (" ✓" if agreement else " ≠ source")
    tags = f" [{', '.join(d['tags'])}]" if d.get("tags") else ""
    extra = f"  ({where}{printed}{agrees})" if where or printed else ""
    notes = f"\n  notes: {d['notes']}" if d.get("notes") else ""
    return f"{d['name']}: {d['ruleset']} {d['position']}{value}{tags}{extra}{notes}"


def _run_line(d: dict[str, Any]) -> str:
    head = f"{d['theorem']}: K={d['up_to']}, {d['instances_checked']} instances, {d['milliseconds']} ms: "
    if d["holds"]:
        return head + "holds"
    return (head + f"REFUTED at {d['counterexample']}: {d['counterexample_position']} = "
            f"{d['counterexample_value']}, claimed {d['claimed_value']}")


def _theorem_line(d: dict[str, Any]) -> str:
    domain = f" for {d['domain']}" if d.get("domain") else ""
    runs = "".join("\n  " + _run_line(run) for run in d.get("runs") or [])
    return f"{d['name']}: {d['ruleset']} {d['family']} = {d['claim']}{domain}  ({d['status']}){runs}"


def _say_more(args: argparse.Namespace, shown: int, found: int, asked: int) -> None:
    """One line on stderr when a search lists fewer results than there are: how many more (exactly,
    up to ``asked``) and how to see them."""
    if found <= shown:
        return
    more = f"{found - shown:,} more ({found:,} in all)" if found < asked else f"more than {asked - shown:,} more"
    print(f"{args.command_prog}: {shown} shown, the simplest first; {more}: --limit {min(found, asked)} lists "
          + ("them" if found < asked else f"the first {asked:,}"), file=sys.stderr)


def _nothing_found(count: int, what: str, hint: str = "check the filters, or load the seed catalog: ruma catalog seed") -> int:
    """Searches that find nothing say so (on stderr; stdout stays a valid empty list) and exit 1."""
    if count:
        return 0
    raise WorkFailedError(f"no {what} found", hint)


# -- handlers ---------------------------------------------------------------------------------
def _catalog_add(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        added = ops.add_position(args.name, args.ruleset, args.position, tags=args.tag, notes=args.notes,
                                 source_paper=args.paper, source_table=args.table, source_page=args.page,
                                 source_value=args.source_value, replace=args.replace)
    _emit(args, [_position(added, args.notation)], _position_line)
    return 0


def _catalog_remove(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        removed = ops.remove_position(args.name)
    _emit(args, [{"name": args.name, "removed": removed}],
          lambda d: f"{d['name']}: {'removed' if removed else 'not found'}")
    if not removed:
        raise WorkFailedError(f"no named position {args.name!r} to remove", "ruma catalog list shows the names")
    return 0


def _catalog_list(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        found = ops.list_positions(name=args.name, tag=args.tag, ruleset=args.ruleset, limit=args.limit)
        count = _emit(args, (_position(d, args.notation) for d in found), _position_line, POSITION_COLUMNS)
    return _nothing_found(count, "named positions")


def _catalog_search(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        if args.stored:
            if not args.ruleset or not args.value:
                raise UsageError("--stored needs --ruleset and --value", "e.g. --stored --ruleset impartial-sowing --value '*4'")
            limit = args.limit or 20
            found = ops.search_stored(args.ruleset, args.value, max(limit, COUNT_UP_TO))
            count = _emit(args, (_stored(d, args.notation) for d in found[:limit]),
                          lambda d: f"{d['ruleset']} {d['position'] or '(another version of the ruleset)'} = {d['value']}"
                                    + (" (an unverified upload)" if d["unverified"] else ""),
                          STORED_COLUMNS)
            _say_more(args, limit, len(found), max(limit, COUNT_UP_TO))
            return _nothing_found(count, f"stored positions of {args.ruleset} with value {args.value}",
                                  "only positions valued through this store are searched: ruma eval --data, ruma load")
        found = ops.search(name=args.name, tag=args.tag, ruleset=args.ruleset, value=args.value, limit=args.limit)
        count = _emit(args, (_position(d, args.notation) for d in found), _position_line, POSITION_COLUMNS)
    return _nothing_found(count, "named positions")


def _catalog_show(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        shown = ops.show(args.name)
    _emit(args, [_position(shown, args.notation)], _position_line)
    return 0


def _catalog_seed(args: argparse.Namespace) -> int:
    with _Session(args) as ops, progress("seeding the catalog", enabled=args.progress):
        counts = _plain(ops.seed(beyond=args.beyond))
    _emit(args, [counts], lambda d: f"seeded {d['positions']} named positions and {d['theorems']} theorems")
    return 0


def _theorem_add(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        added = ops.add_theorem(args.name, args.ruleset, args.family, args.claim, args.domain,
                                source_paper=args.paper, source_ref=args.ref, source_page=args.page,
                                notes=args.notes, replace=args.replace)
    _emit(args, [_theorem(added, args.notation)], _theorem_line, drop=("status",))
    return 0


def _theorem_verify(args: argparse.Namespace) -> int:
    with _Session(args) as ops, progress(f"verifying {args.name} up to {args.up_to}", enabled=args.progress):
        run = _run(ops.verify(args.name, args.up_to), args.notation)
    _emit(args, [run], _run_line)
    if not run["holds"]:
        raise WorkFailedError(f"{args.name!r} is refuted at {run['counterexample']}: "
                              f"{run['counterexample_position']} = {run['counterexample_value']}, "
                              f"claimed {run['claimed_value']}")
    return 0


def _theorem_list(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        found = [_theorem(t, args.notation) for t in ops.list_theorems(args.ruleset)]
    count = _emit(args, found, _theorem_line, THEOREM_COLUMNS, drop=("status",))
    return _nothing_found(count, "theorems")


def _theorem_show(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        record = _theorem(ops.show_theorem(args.name), args.notation)
        record["runs"] = [_run(run, args.notation) for run in ops.runs(args.name)]
    _emit(args, [record], _theorem_line, drop=("status",))
    return 0


def _db_url(args: argparse.Namespace) -> str:
    from ruma.server.catalog.models import catalog_url

    if args.catalog:
        return catalog_url(None, args.catalog)
    return catalog_url(_directory(args), None)


def _db_upgrade(args: argparse.Namespace) -> int:
    from ruma.migrations import current, upgrade

    url = _db_url(args)
    with _database(args, args.catalog or str(args.data)):
        upgrade(url, args.revision)
        revision = current(url)
    _emit(args, [{"revision": revision}], lambda d: f"catalog at revision {d['revision']}")
    return 0


def _db_downgrade(args: argparse.Namespace) -> int:
    from ruma.migrations import current, downgrade

    url = _db_url(args)
    with _database(args, args.catalog or str(args.data)):
        downgrade(url, args.revision)
        revision = current(url)
    _emit(args, [{"revision": revision}], lambda d: f"catalog at revision {d['revision'] or 'base (empty)'}")
    return 0


def _db_current(args: argparse.Namespace) -> int:
    from ruma.migrations import current, head

    url = _db_url(args)
    with _database(args, args.catalog or str(args.data)):
        revision = current(url)
    _emit(args, [{"revision": revision, "head": head()}],
          lambda d: f"catalog at revision {d['revision'] or 'base (empty)'}; newest is {d['head']}")
    return 0
