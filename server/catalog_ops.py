"""Catalog operations: named positions, theorems and their verification, value search, seeding.

``CatalogOps(catalog, memo)`` is what the CLI (local ``--data DIR``) and the gRPC servicer both
call; every method returns plain JSON-able dicts. Values are never read from the catalog: each
named position is evaluated through ``memo`` (the server's ``LmdbStore``, or an in-memory memo),
so the answer is always the engine's current one.

Claims of theorems are either a *value* in the parameters (``ruma.engine.families``) or one of a
few named *properties* (``ruma.server.catalog_properties``).
"""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any, Callable, Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from ruma.engine.cgt import ZERO, Game
from ruma.engine.errors import CancelledError, LimitExceededError, RumaError, RumaInputError
from ruma.engine.evaluator import evaluate, format_value
from ruma.engine.families import claim_value, enumerate_instances, parse_domain, parse_family
from ruma.engine.memo import InMemoryMemo, Memo
from ruma.engine.rulesets import get_ruleset
from ruma.engine.verify import claim_holds
from ruma.server.catalog import Catalog, NamedPosition, PositionTag, Theorem, VerificationRun
from ruma.server.catalog_properties import PROPERTIES, check_property, claim_kind, deuce_runs, octal_037

__all__ = ["CatalogOps", "CatalogError", "PROPERTIES", "octal_037", "deuce_runs", "parse_value"]

MAX_VERIFY_INSTANCES = 100_000
SEARCH_NODES = 2_000_000
"""Positions the claim search may visit per instance before the instance is valued instead."""


class CatalogError(RumaInputError):
    """A catalog request naming something that does not exist, or a duplicate name."""


def engine_version() -> str:
    """The version of ruma that computed a result (recorded with each verification run)."""
    import ruma

    return str(getattr(ruma, "__version__", "unknown"))


def parse_value(text: str) -> Game:
    """A value in game notation (``^*``, ``*4``, ``{1|0}``)."""
    from ruma.engine.cgt.notation import parse_game

    return parse_game(text)


def _clean_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 200:
        raise RumaInputError(f"{what} name must be 1–200 characters, got {name!r}")
    return name.strip()


def _clean_tags(tags: Iterable[str]) -> list[str]:
    out = sorted({t.strip() for t in tags if t and t.strip()})
    for t in out:
        if len(t) > 64:
            raise RumaInputError(f"tag longer than 64 characters: {t!r}")
    return out


class CatalogOps:
    """Catalog operations over an open ``Catalog`` and a memo to value positions through."""

    def __init__(self, catalog: Catalog, memo: Memo | None = None, *, store: Any = None,
                 max_positions: int | None = None, added_by: str | None = None) -> None:
        self.catalog = catalog
        self.added_by = added_by
        self.store = store
        self.memo: Memo = memo if memo is not None else (store if store is not None else InMemoryMemo())
        self.max_positions = max_positions

    # -- valuing -----------------------------------------------------------------------------------
    def _evaluate(self, ruleset: str, position: str, should_cancel: Callable[[], bool] | None = None) -> Any:
        return evaluate(ruleset, position, self.memo, should_cancel=should_cancel,
                        max_positions=self.max_positions)

    def _value_fields(self, ruleset: str, position: str,
                      should_cancel: Callable[[], bool] | None = None) -> dict[str, Any]:
        """Value, nim value, outcome and canonical text; ``error`` instead when the engine refuses."""
        try:
            ev = self._evaluate(ruleset, position, should_cancel)
        except (CancelledError, LimitExceededError):
            raise
        except RumaError as error:  # e.g. a ruleset that finds the position loopy
            return {"value": None, "nim_value": None, "outcome": None, "canonical": None, "error": str(error)}
        game = ev.game
        nim = ev.nim_value if ev.nim_value is not None or game is not ZERO else 0
        return {"value": format_value(ev.value), "nim_value": nim,
                "outcome": game.outcome.value, "canonical": str(ev.canonical), "error": None}

    # -- named positions ---------------------------------------------------------------------------
    def add_position(self, name: str, ruleset: str, position: str, *, tags: Iterable[str] = (),
                     notes: str | None = None, source_paper: str | None = None,
                     source_table: str | None = None, source_page: int | None = None,
                     source_value: str | None = None, added_by: str | None = None,
                     replace: bool = False, evaluate_now: bool = True,
                     session: Session | None = None,
                     existing: dict[str, NamedPosition] | None = None) -> dict[str, Any]:
        """Catalogue ``position`` of ``ruleset`` as ``name``; returns it with its value.

        ``replace`` overwrites an entry of that name (fields that did not change are left alone,
        so replacing with the same data changes nothing); ``session`` joins a caller's transaction.
        """
        name = _clean_name(name, "position")
        added_by = added_by if added_by is not None else self.added_by
        rules = get_ruleset(ruleset)
        state = rules.parse(position)
        key = rules.key(rules.normalise(state)[0])
        values = {"ruleset": rules.name, "position": position.strip(), "canonical_key": key,
                  "source_paper": source_paper, "source_table": source_table,
                  "source_page": source_page, "source_value": source_value, "notes": notes}
        if session is None:
            with self.catalog.session() as own, own.begin():
                row = self._upsert_position(own, name, values, tags, added_by, replace)
        else:
            row = self._upsert_position(session, name, values, tags, added_by, replace, existing)
        return self.show(name) if evaluate_now else self._position_dict(row)

    @staticmethod
    def _upsert_position(session: Session, name: str, values: dict[str, Any], tags: Iterable[str],
                         added_by: str | None, replace: bool,
                         existing: dict[str, NamedPosition] | None = None) -> NamedPosition:
        if existing is not None:
            row = existing.get(name)
        else:
            row = session.scalar(select(NamedPosition).where(NamedPosition.name == name))
        if row is not None and not replace:
            raise CatalogError(f"a named position {name!r} already exists (use replace)")
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
        if limit:
            query = query.limit(limit)
        with self.catalog.session() as session:
            return list(session.scalars(query))

    def list_positions(self, *, name: str | None = None, tag: str | None = None,
                       ruleset: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Named positions (without values), filtered by name substring, tag and ruleset."""
        return [self._position_dict(r) for r in self._rows(name=name, tag=tag, ruleset=ruleset, limit=limit)]

    def show(self, name: str, should_cancel: Callable[[], bool] | None = None) -> dict[str, Any]:
        """One named position with its value evaluated now (and whether the source agrees)."""
        rows = [r for r in self._rows(name=name) if r.name == name]
        if not rows:
            raise CatalogError(f"no named position {name!r}")
        out = self._position_dict(rows[0])
        out.update(self._value_fields(rows[0].ruleset, rows[0].position, should_cancel))
        out["source_agrees"] = self._agrees(rows[0].source_value, out["value"]) if out["value"] else None
        return out

    @staticmethod
    def _agrees(source_value: str | None, value: str) -> bool | None:
        if not source_value:
            return None
        try:
            return parse_value(source_value) is parse_value(value)
        except RumaInputError:
            return None

    def search(self, *, name: str | None = None, tag: str | None = None, ruleset: str | None = None,
               value: str | None = None, limit: int | None = None,
               should_cancel: Callable[[], bool] | None = None) -> list[dict[str, Any]]:
        """Named positions matching every given filter; ``value`` compares evaluated values."""
        target = parse_value(value) if value else None
        found: list[dict[str, Any]] = []
        for row in self._rows(name=name, tag=tag, ruleset=ruleset):
            out = self._position_dict(row)
            fields = self._value_fields(row.ruleset, row.position, should_cancel)
            if target is not None and (fields["value"] is None or parse_value(fields["value"]) is not target):
                continue
            out.update(fields)
            found.append(out)
            if limit and len(found) >= limit:
                break
        return found

    def search_stored(self, ruleset: str, value: str, limit: int = 20) -> list[dict[str, Any]]:
        """Every position of ``ruleset`` in the store with value ``value``, simplest first.

        The store keeps positions in their canonical orientation, so for a partizan ruleset the
        mirror images of the positions stored with value ``-value`` are answers too (reversing a
        row swaps the players: Erickson's rulesets are left-right symmetric).
        """
        if self.store is None or not hasattr(self.store, "positions_with_value"):
            raise CatalogError("searching stored positions needs a store (--data DIR with a store, or a server)")
        from ruma.server.store_codec import complexity
        from ruma.server.store_keys import state_of_key

        rules = get_ruleset(ruleset)
        game = parse_value(value)
        wanted: list[tuple[Any, bool]] = [(game.nim_value, False)] if rules.impartial else [(game, False)]
        if not rules.impartial and -game != game:
            wanted.append((-game, True))
        found: list[tuple[bytes, bool]] = []
        for target, mirrored in wanted:
            if target is not None:
                found += [(key, mirrored) for key in self.store.positions_with_value(rules.code, target, limit)]
        # both lists come simplest first; merge them by the store's own measure of simplicity
        found.sort(key=lambda item: complexity(item[0]))
        out = []
        for key, mirrored in found[:limit]:
            entry: dict[str, Any] = {"ruleset": rules.name, "key": key.hex(), "value": format_value(game)}
            try:
                _, state = state_of_key(key)
                entry["position"] = rules.format(tuple(reversed(state)) if mirrored else state)
            except ValueError:  # a key of another ruleset version, or not decodable
                entry["position"] = None
            entry["mirrored"] = mirrored
            out.append(entry)
        return out

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
        fam = parse_family(family)
        dom = parse_domain(domain or "")
        unknown = [n for n in dom.names if n not in fam.parameters]
        if unknown:
            raise RumaInputError(f"domain {domain!r} names {unknown}, not parameters of {family!r}")
        kind, claim = claim_kind(claim)
        if kind == "value":  # the claim must parse at the first instance of the domain
            first = next(enumerate_instances(fam.parameters, dom, 3), None)
            if first is not None:
                claim_value(claim, first)
        values = {"ruleset": rules.name, "family": family.strip(), "parameters": ",".join(fam.parameters),
                  "domain": (domain or "").strip(), "claim": claim, "claim_kind": kind,
                  "source_paper": source_paper, "source_ref": source_ref, "source_page": source_page,
                  "notes": notes}
        if session is None:
            with self.catalog.session() as own, own.begin():
                self._upsert_theorem(own, name, values, added_by, replace)
            return self.show_theorem(name)
        self._upsert_theorem(session, name, values, added_by, replace)
        return {"name": name, **values}

    @staticmethod
    def _upsert_theorem(session: Session, name: str, values: dict[str, Any], added_by: str | None,
                        replace: bool) -> None:
        row = session.scalar(select(Theorem).where(Theorem.name == name))
        if row is not None and not replace:
            raise CatalogError(f"a theorem {name!r} already exists (use replace)")
        if row is None:
            session.add(Theorem(name=name, added_by=added_by, **values))
        else:
            for field, value in values.items():
                if getattr(row, field) != value:
                    setattr(row, field, value)
        session.flush()

    def _theorem(self, session: Any, name: str) -> Theorem:
        row = session.scalar(select(Theorem).where(Theorem.name == name))
        if row is None:
            raise CatalogError(f"no theorem {name!r}")
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

    def verify(self, name: str, up_to: int, *, should_cancel: Callable[[], bool] | None = None) -> dict[str, Any]:
        """Check the theorem on every instance with parameters ≤ ``up_to``; record and return the run.

        Instances are visited in ``ruma.engine.families`` order; the first failing one is the
        smallest counterexample and ends the run.
        """
        if not isinstance(up_to, int) or up_to < 0 or up_to > 1000:
            raise RumaInputError(f"--up-to must be an integer in 0..1000, got {up_to!r}")
        with self.catalog.session() as session:
            row = self._theorem(session, name)
            ruleset, family, domain, claim, kind = row.ruleset, row.family, row.domain, row.claim, row.claim_kind
            theorem_id = row.id
        rules = get_ruleset(ruleset)
        fam, dom = parse_family(family), parse_domain(domain)
        started_at, started = _now(), time.perf_counter()
        checked, valued = 0, 0
        failure: dict[str, Any] | None = None
        for values in enumerate_instances(fam.parameters, dom, up_to):
            if checked >= MAX_VERIFY_INSTANCES:
                raise RumaInputError(f"more than {MAX_VERIFY_INSTANCES} instances; lower --up-to")
            position = fam.position_text(values)
            ok, computed, claimed, cost = self._check(rules.name, position, kind, claim, values, should_cancel)
            checked += 1
            valued += cost
            if not ok:
                failure = {"parameters": values, "position": position, "value": computed, "claimed": claimed}
                break
        run = VerificationRun(
            theorem_id=theorem_id, up_to=up_to,
            bounds=json.dumps({p: [0, up_to] for p in fam.parameters}), instances_checked=checked,
            holds=failure is None,
            counterexample=json.dumps(failure["parameters"]) if failure else None,
            counterexample_position=failure["position"] if failure else None,
            counterexample_value=failure["value"] if failure else None,
            claimed_value=failure["claimed"] if failure else None, positions_valued=valued,
            engine_version=engine_version(), ruleset_version=rules.version,
            milliseconds=round((time.perf_counter() - started) * 1000), started_at=started_at)
        with self.catalog.session() as session, session.begin():
            session.add(run)
        return _run_dict(run, name)

    def _check(self, ruleset: str, position: str, kind: str, claim: str, values: dict[str, int],
               should_cancel: Callable[[], bool] | None) -> tuple[bool, str, str | None, int]:
        """(holds, computed value text, claimed text, positions valued) for one instance.

        A value claim is decided from the memo when the instance is stored; otherwise by searching
        ``position − claim`` for winning first moves (``ruma.engine.verify``: equal iff that is a
        second-player win), which for theorem families with short proofs visits a handful of
        positions where the canonical form would need exponentially many. Only a refuted instance
        is valued in full, so that the run records its computed value.
        """
        if kind == "value":
            claimed = claim_value(claim, values)
            try:  # a pure memo lookup: computing even one position raises
                stored = evaluate(ruleset, position, self.memo, max_positions=0)
                return stored.game is claimed, format_value(stored.value), format_value(claimed), 0
            except LimitExceededError:
                pass
            try:
                if claim_holds(ruleset, position, claimed, max_nodes=self.max_positions or SEARCH_NODES):
                    return True, format_value(claimed), format_value(claimed), 0
            except LimitExceededError:
                pass  # the search is too large: value the instance instead
            ev = evaluate(ruleset, position, self.memo, should_cancel=should_cancel, max_positions=self.max_positions)
            return ev.game is claimed, format_value(ev.value), format_value(claimed), ev.stats.positions_valued
        ev = evaluate(ruleset, position, self.memo, should_cancel=should_cancel, max_positions=self.max_positions)
        computed, cost = format_value(ev.value), ev.stats.positions_valued
        holds, claimed_text = check_property(claim, ev, self._twin_evaluator(should_cancel))
        return holds, computed, claimed_text, cost

    def _twin_evaluator(self, should_cancel: Callable[[], bool] | None) -> Callable[[str, str], Any]:
        def value(ruleset: str, position: str) -> Any:
            return evaluate(ruleset, position, self.memo, should_cancel=should_cancel, max_positions=self.max_positions)

        return value

    # -- seeding -----------------------------------------------------------------------------------
    def seed(self, added_by: str = "seed") -> dict[str, int]:
        """Load the seed catalog (``ruma.server.catalog_seed``) idempotently; returns counts."""
        from ruma.server.catalog_seed import seed_positions, seed_theorems

        counts = {"positions": 0, "theorems": 0}
        with self.catalog.session() as session, session.begin():
            existing = {row.name: row for row in session.scalars(select(NamedPosition))}
            for entry in seed_positions():
                self.add_position(added_by=added_by, replace=True, evaluate_now=False, session=session,
                                  existing=existing, **entry)
                counts["positions"] += 1
            for entry in seed_theorems():
                self.add_theorem(added_by=added_by, replace=True, session=session, **entry)
                counts["theorems"] += 1
        return counts


def _now() -> Any:
    from ruma.server.catalog import utcnow

    return utcnow()


def _iso(moment: Any) -> str | None:
    """ISO 8601 in UTC (SQLite returns naive datetimes; they were stored as UTC)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return str(moment.astimezone(dt.timezone.utc).isoformat())


def _run_dict(run: VerificationRun, theorem: str) -> dict[str, Any]:
    return {"theorem": theorem, "up_to": run.up_to, "bounds": json.loads(run.bounds),
            "instances_checked": run.instances_checked, "holds": run.holds,
            "counterexample": json.loads(run.counterexample) if run.counterexample else None,
            "counterexample_position": run.counterexample_position,
            "counterexample_value": run.counterexample_value, "claimed_value": run.claimed_value,
            "positions_valued": run.positions_valued, "engine_version": run.engine_version,
            "ruleset_version": run.ruleset_version, "milliseconds": run.milliseconds,
            "started_at": _iso(run.started_at)}
