"""Catalog operations: named positions, theorems and their verification, value search, seeding.

``CatalogOps(catalog, memo)`` is what the CLI (local ``--data DIR``) and the gRPC servicer both
call; every method returns plain JSON-able dicts. Values are never read from the catalog: each
named position is evaluated whenever asked, so the answer is always the engine's current one —
through a *valuer* (``ruma.server.catalog.valuing``): locally through ``memo`` (an ``LmdbStore`` or
an in-memory memo), in the server through the service's evaluation path (its limits, time and
memory budgets and workers). A write that needs a value (``add_position``) computes it before it
commits, so a failed or cancelled call commits nothing.

Claims of theorems are either a *value* in the parameters (``ruma.engine.families.templates``) or one of a
few named *properties* (``ruma.server.catalog.properties``).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Callable, Iterable

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ruma.engine.errors import RumaInputError
from ruma.engine.families.templates import claim_value, enumerate_instances, parse_domain, parse_template
from ruma.engine.memo import InMemoryMemo, Memo
from ruma.engine.rulesets import get_ruleset
from ruma.server.catalog.models import Catalog, NamedPosition, PositionTag, Theorem, VerificationRun
from ruma.server.catalog.properties import PROPERTIES, claim_kind, deuce_runs, octal_037
from ruma.server.catalog.valuing import CatalogError, LocalValuer, Valuer, parse_value

__all__ = ["CatalogOps", "CatalogError", "PROPERTIES", "octal_037", "deuce_runs", "parse_value"]

#: the most rows one list or search returns (page with filters and ``limit``)
MAX_ROWS = 1000
#: the longest notes, and source fields, a catalog entry may carry (characters)
MAX_NOTES = 10_000
MAX_FIELD = 1000
MAX_TEXT = 10_000
#: tags one named position may carry
MAX_TAGS = 64


class NameTakenError(CatalogError):
    """A name that is already in the catalog (``ALREADY_EXISTS``; also when two calls race)."""

    status_name = "ALREADY_EXISTS"


class UnknownNameError(CatalogError):
    """A name that is not in the catalog (``NOT_FOUND``)."""

    status_name = "NOT_FOUND"


def engine_version() -> str:
    """The version of ruma that computed a result (recorded with each verification run)."""
    import ruma

    return str(getattr(ruma, "__version__", "unknown"))


def _clean_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 200:
        raise RumaInputError(f"{what} name must be 1–200 characters, got {name[:60]!r}")
    return name.strip()


def _bounded(value: str | None, what: str, most: int) -> str | None:
    """``value`` if it is at most ``most`` characters (``RumaInputError`` otherwise)."""
    if value is not None and len(value) > most:
        raise RumaInputError(f"{what} of {len(value)} characters (at most {most}): {value[:40]!r}...")
    return value


def _clean_tags(tags: Iterable[str]) -> list[str]:
    out = sorted({t.strip() for t in tags if t and t.strip()})
    if len(out) > MAX_TAGS:
        raise RumaInputError(f"{len(out)} tags on one named position; at most {MAX_TAGS}")
    for t in out:
        if len(t) > 64:
            raise RumaInputError(f"tag longer than 64 characters: {t!r}")
    return out


class CatalogOps:
    """Catalog operations over an open ``Catalog`` and a memo to value positions through."""

    def __init__(self, catalog: Catalog, memo: Memo | None = None, *, store: Any = None,
                 max_positions: int | None = None, added_by: str | None = None,
                 valuer: Valuer | None = None) -> None:
        self.catalog = catalog
        self.added_by = added_by
        self.store = store
        self.memo: Memo = memo if memo is not None else (store if store is not None else InMemoryMemo())
        self.max_positions = max_positions
        self.valuer: Valuer = valuer if valuer is not None else LocalValuer(self.memo, store, max_positions)

    # -- valuing -----------------------------------------------------------------------------------
    def _valuer(self, valuer: Valuer | None, should_cancel: Callable[[], bool] | None) -> Valuer:
        """The valuer of one call: the one given, else this catalog's (with ``should_cancel``)."""
        if valuer is not None:
            return valuer
        if should_cancel is not None:
            return LocalValuer(self.memo, self.store, self.max_positions, should_cancel)
        return self.valuer

    # -- named positions ---------------------------------------------------------------------------
    def add_position(self, name: str, ruleset: str, position: str, *, tags: Iterable[str] = (),
                     notes: str | None = None, source_paper: str | None = None,
                     source_table: str | None = None, source_page: int | None = None,
                     source_value: str | None = None, added_by: str | None = None,
                     replace: bool = False, evaluate_now: bool = True,
                     session: Session | None = None,
                     existing: dict[str, NamedPosition] | None = None,
                     valuer: Valuer | None = None) -> dict[str, Any]:
        """Catalogue ``position`` of ``ruleset`` as ``name``; returns it with its value.

        ``replace`` overwrites an entry of that name (fields that did not change are left alone,
        so replacing with the same data changes nothing); ``session`` joins a caller's transaction.
        With ``evaluate_now`` the value is computed *before* anything is written: a position that
        cannot be valued within the limits, or a cancelled call, commits nothing.
        """
        name = _clean_name(name, "position")
        added_by = added_by if added_by is not None else self.added_by
        rules = get_ruleset(ruleset)
        _bounded(position, "a position", MAX_TEXT)
        for field, text in (("notes", notes), ("source value", source_value), ("source paper", source_paper),
                            ("source table", source_table)):
            _bounded(text, field, MAX_NOTES if field == "notes" else MAX_FIELD)
        state = rules.parse(position)
        key = rules.key(rules.normalise(state)[0])
        values = {"ruleset": rules.name, "position": position.strip(), "canonical_key": key,
                  "source_paper": source_paper, "source_table": source_table,
                  "source_page": source_page, "source_value": source_value, "notes": notes}
        fields = self._valuer(valuer, None).value_fields(rules.name, position.strip(), source_value) if (
            evaluate_now) else None
        if session is None:
            try:
                with self.catalog.session() as own, own.begin():
                    row = self._upsert_position(own, name, values, tags, added_by, replace)
                    out = self._position_dict(row)
            except IntegrityError as error:  # another call added the same name meanwhile
                raise NameTakenError(f"a named position {name!r} already exists (use replace)") from error
        else:
            row = self._upsert_position(session, name, values, tags, added_by, replace, existing)
            out = self._position_dict(row)
        if fields is not None:
            out.update(fields)
        return out

    @staticmethod
    def _upsert_position(session: Session, name: str, values: dict[str, Any], tags: Iterable[str],
                         added_by: str | None, replace: bool,
                         existing: dict[str, NamedPosition] | None = None) -> NamedPosition:
        if existing is not None:
            row = existing.get(name)
        else:
            row = session.scalar(select(NamedPosition).where(NamedPosition.name == name))
        if row is not None and not replace:
            raise NameTakenError(f"a named position {name!r} already exists (use replace)")
        if row is None:
            row = NamedPosition(name=name, added_by=added_by, **values)
            session.add(row)
        else:
            for field, value in values.items():
                if getattr(row, field) != value:
                    setattr(row, field, value)
        wanted = _clean_tags(tags)
        if row.tags != wanted:
            row.tag_rows = [PositionTag(tag=t) for t in wanted]
        if existing is not None:
            existing[name] = row
        else:
            session.flush()
        return row

    def remove_position(self, name: str) -> bool:
        """Delete the named position; returns whether it existed."""
        with self.catalog.session() as session, session.begin():
            row = session.scalar(select(NamedPosition).where(NamedPosition.name == name))
            if row is None:
                return False
            session.delete(row)
            return True

    def _position_dict(self, row: NamedPosition) -> dict[str, Any]:
        return {"name": row.name, "ruleset": row.ruleset, "position": row.position,
                "canonical_key": row.canonical_key.hex(), "tags": row.tags,
                "source": {"paper": row.source_paper, "table": row.source_table,
                           "page": row.source_page, "value": row.source_value},
                "notes": row.notes, "added_by": row.added_by,
                "added_at": _iso(row.added_at)}

    def _rows(self, *, name: str | None = None, tag: str | None = None, ruleset: str | None = None,
              limit: int | None = None) -> list[NamedPosition]:
        query = select(NamedPosition).order_by(NamedPosition.name)
        if name:
            query = query.where(NamedPosition.name.contains(name, autoescape=True))
        if ruleset:
            query = query.where(NamedPosition.ruleset == get_ruleset(ruleset).name)
        if tag:
            query = query.where(NamedPosition.tag_rows.any(PositionTag.tag == tag))
        query = query.limit(min(limit, MAX_ROWS) if limit and limit > 0 else MAX_ROWS)
        with self.catalog.session() as session:
            return list(session.scalars(query))

    def list_positions(self, *, name: str | None = None, tag: str | None = None,
                       ruleset: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Named positions (without values), filtered by name substring, tag and ruleset."""
        return [self._position_dict(r) for r in self._rows(name=name, tag=tag, ruleset=ruleset, limit=limit)]

    def show(self, name: str, should_cancel: Callable[[], bool] | None = None,
             valuer: Valuer | None = None) -> dict[str, Any]:
        """One named position with its value evaluated now (and whether the source agrees)."""
        rows = [r for r in self._rows(name=name) if r.name == name]
        if not rows:
            raise UnknownNameError(f"no named position {name!r}")
        out = self._position_dict(rows[0])
        out.update(self._valuer(valuer, should_cancel).value_fields(rows[0].ruleset, rows[0].position,
                                                                    rows[0].source_value))
        return out

    def search(self, *, name: str | None = None, tag: str | None = None, ruleset: str | None = None,
               value: str | None = None, limit: int | None = None,
               should_cancel: Callable[[], bool] | None = None, valuer: Valuer | None = None) -> list[dict[str, Any]]:
        """Named positions matching every given filter; ``value`` compares evaluated values."""
        chosen = self._valuer(valuer, should_cancel)
        target = chosen.canonical(value) if value else None  # canonical forms print uniquely
        found: list[dict[str, Any]] = []
        for row in self._rows(name=name, tag=tag, ruleset=ruleset):
            out = self._position_dict(row)
            fields = chosen.value_fields(row.ruleset, row.position, row.source_value)
            if target is not None and fields["value"] != target:
                continue
            out.update(fields)
            found.append(out)
            if limit and len(found) >= limit:
                break
        return found

    def search_stored(self, ruleset: str, value: str, limit: int = 20, valuer: Valuer | None = None) -> list[dict[str, Any]]:
        """Every position of ``ruleset`` in the store with value ``value``, simplest first
        (``ruma.server.catalog.valuing.search_stored``)."""
        return self._valuer(valuer, None).search_stored(ruleset, value, min(limit, MAX_ROWS) if limit > 0 else 20)

    # -- theorems ------------------------------------------------------------------------------------
    def add_theorem(self, name: str, ruleset: str, family: str, claim: str, domain: str = "", *,
                    source_paper: str | None = None, source_ref: str | None = None,
                    source_page: int | None = None, notes: str | None = None,
                    added_by: str | None = None, replace: bool = False,
                    session: Session | None = None) -> dict[str, Any]:
        """Record a theorem after checking that family, domain and claim all parse."""
        name = _clean_name(name, "theorem")
        added_by = added_by if added_by is not None else self.added_by
        rules = get_ruleset(ruleset)
        for field, text, most in (("family", family, MAX_FIELD), ("claim", claim, MAX_FIELD), ("domain", domain, MAX_FIELD),
                                  ("notes", notes, MAX_NOTES), ("source paper", source_paper, MAX_FIELD),
                                  ("source ref", source_ref, MAX_FIELD)):
            _bounded(text, field, most)
        template = parse_template(family)
        dom = parse_domain(domain or "")
        unknown = [n for n in dom.names if n not in template.parameters]
        if unknown:
            raise RumaInputError(f"domain {domain!r} names {unknown}, not parameters of {family!r}")
        kind, claim = claim_kind(claim)
        if kind == "value":  # the claim must parse at the first instance of the domain
            first = next(enumerate_instances(template.parameters, dom, 3), None)
            if first is not None:
                claim_value(claim, first)
        values = {"ruleset": rules.name, "family": family.strip(), "parameters": ",".join(template.parameters),
                  "domain": (domain or "").strip(), "claim": claim, "claim_kind": kind,
                  "source_paper": source_paper, "source_ref": source_ref, "source_page": source_page,
                  "notes": notes}
        if session is None:
            try:
                with self.catalog.session() as own, own.begin():
                    self._upsert_theorem(own, name, values, added_by, replace)
            except IntegrityError as error:  # another call added the same name meanwhile
                raise NameTakenError(f"a theorem {name!r} already exists (use replace)") from error
            return self.show_theorem(name)
        self._upsert_theorem(session, name, values, added_by, replace)
        return {"name": name, **values}

    @staticmethod
    def _upsert_theorem(session: Session, name: str, values: dict[str, Any], added_by: str | None,
                        replace: bool) -> None:
        row = session.scalar(select(Theorem).where(Theorem.name == name))
        if row is not None and not replace:
            raise NameTakenError(f"a theorem {name!r} already exists (use replace)")
        if row is None:
            session.add(Theorem(name=name, added_by=added_by, **values))
        else:
            for field, value in values.items():
                if getattr(row, field) != value:
                    setattr(row, field, value)
        session.flush()

    def _theorem(self, session: Session, name: str) -> Theorem:
        row = session.scalar(select(Theorem).where(Theorem.name == name))
        if row is None:
            raise UnknownNameError(f"no theorem {name!r}")
        return row

    @staticmethod
    def _theorem_dict(row: Theorem, last: VerificationRun | None) -> dict[str, Any]:
        return {"name": row.name, "ruleset": row.ruleset, "family": row.family,
                "parameters": [p for p in row.parameters.split(",") if p], "domain": row.domain,
                "claim": row.claim, "claim_kind": row.claim_kind,
                "source": {"paper": row.source_paper, "ref": row.source_ref, "page": row.source_page},
                "notes": row.notes, "added_by": row.added_by,
                "added_at": _iso(row.added_at),
                "last_run": _run_dict(last, row.name) if last is not None else None}

    def show_theorem(self, name: str) -> dict[str, Any]:
        """One theorem with its latest verification run."""
        with self.catalog.session() as session:
            row = self._theorem(session, name)
            return self._theorem_dict(row, row.runs[-1] if row.runs else None)

    def list_theorems(self, ruleset: str | None = None) -> list[dict[str, Any]]:
        """Every theorem (optionally of one ruleset) with its latest run."""
        query = select(Theorem).order_by(Theorem.name)
        if ruleset:
            query = query.where(Theorem.ruleset == get_ruleset(ruleset).name)
        with self.catalog.session() as session:
            return [self._theorem_dict(r, r.runs[-1] if r.runs else None) for r in session.scalars(query)]

    def runs(self, name: str) -> list[dict[str, Any]]:
        """Every verification run of a theorem, oldest first."""
        with self.catalog.session() as session:
            row = self._theorem(session, name)
            return [_run_dict(r, row.name) for r in row.runs]

    def verify(self, name: str, up_to: int, *, should_cancel: Callable[[], bool] | None = None,
               valuer: Valuer | None = None) -> dict[str, Any]:
        """Check the theorem on every instance with parameters ≤ ``up_to``; record and return the run.

        Instances are visited in ``ruma.engine.families.templates`` order; the first failing one is the
        smallest counterexample and ends the run (``catalog.valuing.check_instances``). The run is
        recorded only once the check is complete.
        """
        if not isinstance(up_to, int) or up_to < 0 or up_to > 1000:
            raise RumaInputError(f"--up-to must be an integer in 0..1000, got {up_to!r}")
        with self.catalog.session() as session:
            row = self._theorem(session, name)
            ruleset, family, domain, claim, kind = row.ruleset, row.family, row.domain, row.claim, row.claim_kind
            theorem_id = row.id
        started_at = _now()
        result = self._valuer(valuer, should_cancel).verify(ruleset, family, domain, claim, kind, up_to)
        failure = result["failure"]
        run = VerificationRun(
            theorem_id=theorem_id, up_to=up_to,
            bounds=json.dumps({p: [0, up_to] for p in result["parameters"]}),
            instances_checked=result["checked"], holds=failure is None,
            counterexample=json.dumps(failure["parameters"]) if failure else None,
            counterexample_position=failure["position"] if failure else None,
            counterexample_value=failure["value"] if failure else None,
            claimed_value=failure["claimed"] if failure else None, positions_valued=result["valued"],
            engine_version=engine_version(), ruleset_version=result["ruleset_version"],
            milliseconds=result["milliseconds"], started_at=started_at)
        with self.catalog.session() as session, session.begin():
            session.add(run)
        return _run_dict(run, name)

    # -- seeding -----------------------------------------------------------------------------------
    def seed(self, added_by: str = "seed", beyond: bool = False) -> dict[str, int]:
        """Load the seed catalog (``ruma.server.catalog.seed``) idempotently; returns counts. With
        ``beyond``, the positions found beyond the exhaustive bound too (``beyond_positions``)."""
        from ruma.server.catalog.seed import beyond_positions, seed_positions, seed_theorems

        counts = {"positions": 0, "theorems": 0}
        with self.catalog.session() as session, session.begin():
            existing = {row.name: row for row in session.scalars(select(NamedPosition))}
            for entry in [*seed_positions(), *(beyond_positions() if beyond else [])]:
                self.add_position(added_by=added_by, replace=True, evaluate_now=False, session=session,
                                  existing=existing, **entry)
                counts["positions"] += 1
            for entry in seed_theorems():
                self.add_theorem(added_by=added_by, replace=True, session=session, **entry)
                counts["theorems"] += 1
        return counts


def _now() -> Any:
    from ruma.server.catalog.models import utcnow

    return utcnow()


def _iso(moment: Any) -> str | None:
    """ISO 8601 in UTC (SQLite returns naive datetimes; they were stored as UTC)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return str(moment.astimezone(dt.UTC).isoformat())


def _run_dict(run: VerificationRun, theorem: str) -> dict[str, Any]:
    return {"theorem": theorem, "up_to": run.up_to, "bounds": json.loads(run.bounds),
            "instances_checked": run.instances_checked, "holds": run.holds,
            "counterexample": json.loads(run.counterexample) if run.counterexample else None,
            "counterexample_position": run.counterexample_position,
            "counterexample_value": run.counterexample_value, "claimed_value": run.claimed_value,
            "positions_valued": run.positions_valued, "engine_version": run.engine_version,
            "ruleset_version": run.ruleset_version, "milliseconds": run.milliseconds,
            "started_at": _iso(run.started_at)}
