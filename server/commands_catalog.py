"""``ruma catalog ...``, ``ruma theorem ...`` and ``ruma db ...``: the catalog from the command line.

Every catalog/theorem command works on a local catalog (``--data DIR``, default ``./ruma-data``:
SQLite ``DIR/catalog.sqlite`` and the LMDB store in ``DIR``; or ``--catalog URL`` for any
SQLAlchemy URL such as ``postgresql+psycopg://user:pw@host/db``) or on a server
(``--server HOST:PORT [--token T]``). Values are computed through the store (``--no-store``: an
in-memory memo). ``--json`` prints one JSON object per result, one per line.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ruma.client.cli import add_json_flag
from ruma.engine.errors import RumaInputError


def _location(parser: argparse.ArgumentParser, server: bool = True) -> None:
    parser.add_argument("--data", metavar="DIR", default=None, help="data directory (default ./ruma-data)")
    parser.add_argument("--catalog", metavar="URL", default=os.environ.get("RUMA_CATALOG_URL"),
                        help="catalog database URL (default: SQLite in --data; $RUMA_CATALOG_URL)")
    if server:
        parser.add_argument("--no-store", action="store_true", help="value through an in-memory memo, not DIR's store")
        parser.add_argument("--server", metavar="ADDRESS", help="use the catalog of a ruma server (host:port)")
        parser.add_argument("--token", default=os.environ.get("RUMA_TOKEN"), help="bearer token (default $RUMA_TOKEN)")
        parser.add_argument("--tls-ca", metavar="PEM", help="CA certificate of a TLS server")
        parser.add_argument("--timeout", type=float, default=None, help="deadline of each call in seconds")
    add_json_flag(parser)


def _add(sub: Any, name: str, help_text: str, handler: Any, server: bool = True) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help_text, description=help_text)
    _location(parser, server)
    parser.set_defaults(handler=handler)
    return parser


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``catalog``, ``theorem`` and ``db``."""
    catalog = subparsers.add_parser("catalog", help="named positions: add, list, search, show, seed")
    csub = catalog.add_subparsers(dest="catalog_command", metavar="ACTION", required=True)
    p = _add(csub, "add", "catalogue a position under a unique name", _catalog_add)
    p.add_argument("name")
    p.add_argument("--ruleset", required=True)
    p.add_argument("--position", required=True)
    p.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    p.add_argument("--notes")
    p.add_argument("--paper", help="source: the paper")
    p.add_argument("--table", help="source: the table")
    p.add_argument("--page", type=int, help="source: the page")
    p.add_argument("--source-value", help="the value as printed in the source (provenance)")
    p.add_argument("--replace", action="store_true", help="overwrite an entry of that name")
    p = _add(csub, "remove", "remove a named position", _catalog_remove)
    p.add_argument("name")
    for action, text, handler in (("list", "list named positions (no values)", _catalog_list),
                                  ("search", "named positions by name, tag, ruleset and value", _catalog_search)):
        p = _add(csub, action, text, handler)
        p.add_argument("--name", help="name substring")
        p.add_argument("--tag")
        p.add_argument("--ruleset")
        p.add_argument("--limit", type=int)
        if action == "search":
            p.add_argument("--value", help="game notation, e.g. '^*' or '*4'")
            p.add_argument("--stored", action="store_true",
                           help="search every stored position of --ruleset (the store's value index)")
    p = _add(csub, "show", "one named position with its value", _catalog_show)
    p.add_argument("name")
    _add(csub, "seed", "load Erickson's tables and theorems (idempotent)", _catalog_seed)

    theorem = subparsers.add_parser("theorem", help="theorems about families of positions: add, verify, list, show")
    tsub = theorem.add_subparsers(dest="theorem_command", metavar="ACTION", required=True)
    p = _add(tsub, "add", "record a theorem", _theorem_add)
    p.add_argument("name")
    p.add_argument("--ruleset", required=True)
    p.add_argument("--family", required=True, help="e.g. '(10)^m 03 (01)^n'")
    p.add_argument("--claim", required=True, help="a value ('n+1', '{n|-m}', 'n.^') or 'property:NAME'")
    p.add_argument("--domain", default="", help="e.g. 'm>=0,n>=0,not(m=0,n=0)'")
    p.add_argument("--paper")
    p.add_argument("--ref", help="e.g. 'Theorem 2.3'")
    p.add_argument("--page", type=int)
    p.add_argument("--notes")
    p.add_argument("--replace", action="store_true")
    p = _add(tsub, "verify", "check a theorem on every instance with parameters <= K", _theorem_verify)
    p.add_argument("name")
    p.add_argument("--up-to", type=int, required=True, metavar="K")
    p = _add(tsub, "list", "theorems with their latest run", _theorem_list)
    p.add_argument("--ruleset")
    p = _add(tsub, "show", "one theorem with all its runs", _theorem_show)
    p.add_argument("name")

    db = subparsers.add_parser("db", help="catalog schema migrations: upgrade, downgrade, current")
    dsub = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    p = _add(dsub, "upgrade", "migrate the catalog to a revision (default: head)", _db_upgrade, server=False)
    p.add_argument("revision", nargs="?", default="head")
    p = _add(dsub, "downgrade", "migrate the catalog down to a revision (default: base, i.e. empty)",
             _db_downgrade, server=False)
    p.add_argument("revision", nargs="?", default="base")
    _add(dsub, "current", "the catalog's revision and the newest one", _db_current, server=False)


# -- backends ---------------------------------------------------------------------------------
class _Local:
    """``CatalogOps`` on a local catalog and store; closes both."""

    def __init__(self, args: argparse.Namespace) -> None:
        from ruma.server.catalog import Catalog
        from ruma.server.catalog_ops import CatalogOps

        self.catalog = Catalog.open(args.data, url=args.catalog)
        self.store: Any = None
        if not getattr(args, "no_store", False) and (args.data is not None or not args.catalog):
            from ruma.server.store import LmdbStore

            self.store = LmdbStore(args.data or "ruma-data")
        self.ops = CatalogOps(self.catalog, store=self.store, added_by=_user())

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        self.catalog.close()


def _user() -> str | None:
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return None


class _Remote:
    """The same operations over gRPC: ``CatalogClient`` has ``CatalogOps``'s method names."""

    def __init__(self, args: argparse.Namespace) -> None:
        from ruma.client.client import Client

        self.client = Client(args.server, args.token, args.tls_ca, timeout=args.timeout)
        self.ops = self.client.catalog

    def close(self) -> None:
        self.client.close()


class _Session:
    def __init__(self, args: argparse.Namespace) -> None:
        if getattr(args, "server", None) and args.data:
            raise RumaInputError("give either --server or a local --data, not both")
        self.backend: _Local | _Remote = _Remote(args) if getattr(args, "server", None) else _Local(args)

    def __enter__(self) -> Any:
        return self.backend.ops

    def __exit__(self, *exc: object) -> None:
        self.backend.close()


# -- printing ---------------------------------------------------------------------------------
def _emit(args: argparse.Namespace, items: Any, line: Any) -> None:
    for item in items if isinstance(items, list) else [items]:
        print(json.dumps(item, sort_keys=True, default=str) if args.json else line(item))


def _position_line(d: dict[str, Any]) -> str:
    value = f" = {d['value']}" if d.get("value") is not None else ""
    if d.get("error"):
        value = f" (not evaluated: {d['error']})"
    src = d.get("source") or {}
    where = ", ".join(str(x) for x in (src.get("table"), f"p. {src['page']}" if src.get("page") else None) if x)
    printed = f"; printed {src['value']}" if src.get("value") else ""
    agreement = d.get("source_agrees")
    agrees = "" if agreement is None else (" ✓" if agreement else " ≠ source")
    tags = f" [{', '.join(d['tags'])}]" if d.get("tags") else ""
    extra = f"  ({where}{printed}{agrees})" if where or printed else ""
    return f"{d['name']}: {d['ruleset']} {d['position']}{value}{tags}{extra}"


def _run_line(d: dict[str, Any]) -> str:
    head = f"{d['theorem']}: K={d['up_to']}, {d['instances_checked']} instances, {d['milliseconds']} ms: "
    if d["holds"]:
        return head + "holds"
    return (head + f"REFUTED at {d['counterexample']}: {d['counterexample_position']} = "
            f"{d['counterexample_value']}, claimed {d['claimed_value']}")


def _theorem_line(d: dict[str, Any]) -> str:
    run = d.get("last_run")
    status = "never verified" if not run else (f"holds to K={run['up_to']}" if run["holds"] else
                                               f"refuted at {run['counterexample']}")
    domain = f" for {d['domain']}" if d.get("domain") else ""
    return f"{d['name']}: {d['ruleset']} {d['family']} = {d['claim']}{domain}  ({status})"


# -- handlers ---------------------------------------------------------------------------------
def _catalog_add(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        _emit(args, ops.add_position(args.name, args.ruleset, args.position, tags=args.tag, notes=args.notes,
                                     source_paper=args.paper, source_table=args.table, source_page=args.page,
                                     source_value=args.source_value, replace=args.replace), _position_line)
    return 0


def _catalog_remove(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        removed = ops.remove_position(args.name)
    _emit(args, {"name": args.name, "removed": removed}, lambda d: f"{d['name']}: {'removed' if removed else 'not found'}")
    return 0 if removed else 1


def _catalog_list(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        _emit(args, ops.list_positions(name=args.name, tag=args.tag, ruleset=args.ruleset, limit=args.limit),
              _position_line)
    return 0


def _catalog_search(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        if args.stored:
            if not args.ruleset or not args.value:
                raise RumaInputError("--stored needs --ruleset and --value")
            found = ops.search_stored(args.ruleset, args.value, args.limit or 20)
            _emit(args, found, lambda d: f"{d['ruleset']} {d['position'] or d['key']} = {d['value']}")
        else:
            _emit(args, ops.search(name=args.name, tag=args.tag, ruleset=args.ruleset, value=args.value,
                                   limit=args.limit), _position_line)
    return 0


def _catalog_show(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        d = ops.show(args.name)
    if args.json:
        _emit(args, d, _position_line)
    else:
        print(_position_line(d))
        if d.get("notes"):
            print(f"  notes: {d['notes']}")
    return 0


def _catalog_seed(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        counts = ops.seed()
    _emit(args, counts, lambda d: f"seeded {d['positions']} named positions and {d['theorems']} theorems")
    return 0


def _theorem_add(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        _emit(args, ops.add_theorem(args.name, args.ruleset, args.family, args.claim, args.domain,
                                    source_paper=args.paper, source_ref=args.ref, source_page=args.page,
                                    notes=args.notes, replace=args.replace), _theorem_line)
    return 0


def _theorem_verify(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        run = ops.verify(args.name, args.up_to)
    _emit(args, run, _run_line)
    return 0 if run["holds"] else 1


def _theorem_list(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        _emit(args, ops.list_theorems(args.ruleset), _theorem_line)
    return 0


def _theorem_show(args: argparse.Namespace) -> int:
    with _Session(args) as ops:
        d = ops.show_theorem(args.name)
        runs = ops.runs(args.name)
    if args.json:
        _emit(args, {**d, "runs": runs}, _theorem_line)
    else:
        print(_theorem_line(d))
        for run in runs:
            print("  " + _run_line(run))
    return 0


def _db_url(args: argparse.Namespace) -> str:
    from ruma.server.catalog import catalog_url

    return catalog_url(args.data, args.catalog)


def _db_upgrade(args: argparse.Namespace) -> int:
    from ruma.migrations import current, upgrade

    url = _db_url(args)
    upgrade(url, args.revision)
    _emit(args, {"revision": current(url)}, lambda d: f"catalog at revision {d['revision']}")
    return 0


def _db_downgrade(args: argparse.Namespace) -> int:
    from ruma.migrations import current, downgrade

    url = _db_url(args)
    downgrade(url, args.revision)
    _emit(args, {"revision": current(url)}, lambda d: f"catalog at revision {d['revision'] or 'base (empty)'}")
    return 0


def _db_current(args: argparse.Namespace) -> int:
    from ruma.migrations import current, head

    url = _db_url(args)
    _emit(args, {"revision": current(url), "head": head()},
          lambda d: f"catalog at revision {d['revision'] or 'base (empty)'}; newest is {d['head']}")
    return 0
