"""The catalog's computations, apart from its tables: values of named positions, theorem checks,
searches of the store by value.

These functions touch no database, so the server runs them where it runs every heavy request
(an evaluation worker, within the call's time and memory budgets; ``ruma.server.work.tasks``), while
the local CLI runs them here through ``LocalValuer``. ``CatalogOps`` asks a *valuer*:

* ``value_fields(ruleset, position, source_value) -> dict`` — value, nim value, outcome,
  canonical position (or ``error`` when the engine refuses, e.g. a loopy game) and whether the
  source's printed value agrees;
* ``verify(ruleset, family, domain, claim, kind, up_to) -> dict`` — instances checked, positions
  valued and the first failure;
* ``search_stored(ruleset, value, limit) -> list[dict]``.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Protocol

from ruma.engine.cgt import ZERO, Game, format_value
from ruma.engine.errors import CancelledError, LimitExceededError, RumaError, RumaInputError
from ruma.engine.evaluator import Evaluation, evaluate
from ruma.engine.families.templates import claim_value, enumerate_instances, parse_domain, parse_template
from ruma.engine.memo import Memo, capabilities
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import PLUGIN_CODE, Ruleset, State
from ruma.engine.verify import claim_holds
from ruma.server.catalog.properties import check_property

MAX_VERIFY_INSTANCES = 100_000
SEARCH_NODES = 2_000_000
"""Positions the claim search may visit per instance before the instance is valued instead."""

ShouldCancel = Callable[[], bool]


class CatalogError(RumaInputError):
    """A catalog request that cannot be done as asked."""


class Valuer(Protocol):
    """Where ``CatalogOps`` gets values from (see the module docstring)."""

    def value_fields(self, ruleset: str, position: str, source_value: str | None) -> dict[str, Any]:
        """Value fields of one position."""

    def verify(self, ruleset: str, family: str, domain: str, claim: str, kind: str, up_to: int) -> dict[str, Any]:
        """Check a theorem's instances."""

    def search_stored(self, ruleset: str, value: str, limit: int) -> list[dict[str, Any]]:
        """Stored positions with a value."""

    def canonical(self, value: str) -> str:
        """The canonical form of a value expression, as ``format_value`` prints it."""


def parse_value(text: str) -> Game:
    """A value in game notation (``^*``, ``*4``, ``{1|0}``), within the expression limits."""
    from ruma.engine.cgt.notation import parse_game

    return parse_game(text)


def value_fields(value_of: Callable[[str, str], Evaluation], ruleset: str, position: str,
                 source_value: str | None, parse: Callable[[str], Game] = parse_value) -> dict[str, Any]:
    """Value, nim value, outcome and canonical text (``error`` instead when the engine refuses),
    and ``source_agrees``: whether ``source_value`` denotes the same value (``None`` if unknown)."""
    try:
        ev = value_of(ruleset, position)
    except (CancelledError, LimitExceededError):
        raise
    except RumaError as error:  # e.g. a ruleset that finds the position loopy
        return {"value": None, "nim_value": None, "outcome": None, "canonical": None, "error": str(error),
                "source_agrees": None}
    value = ev.value
    if isinstance(value, int):  # a nim value: never build *k (it builds *0 ... *(k-1) first)
        nim: int | None = value
        outcome = "P" if value == 0 else "N"
    else:
        nim = value.nim_value if value.nim_value is not None or value is not ZERO else 0
        outcome = value.outcome.value
    agrees: bool | None = None
    if source_value:
        try:
            parsed = parse(source_value)
            agrees = parsed.nim_value == value if isinstance(value, int) else parsed is value
        except RumaError:
            agrees = None
    return {"value": format_value(value, "ascii"), "nim_value": nim, "outcome": outcome,
            "canonical": str(ev.canonical), "error": None, "source_agrees": agrees}


def check_instances(memo: Memo, ruleset: str, family: str, domain: str, claim: str, kind: str, up_to: int, *,
                    should_cancel: ShouldCancel | None = None, max_positions: int | None = None,
                    parse: Callable[[str, str], tuple[Ruleset, State]] | None = None) -> dict[str, Any]:
    """Check the claim on every instance with parameters ≤ ``up_to``, in ``ruma.engine.families.templates``
    order; the first failing instance is the smallest counterexample and ends the run.

    ``parse(ruleset, text)`` checks each instance's position (the server's size limits)."""
    if not isinstance(up_to, int) or up_to < 0 or up_to > 1000:
        raise RumaInputError(f"--up-to must be an integer in 0..1000, got {up_to!r}")
    rules = get_ruleset(ruleset)
    template, dom = parse_template(family), parse_domain(domain)
    started = time.perf_counter()
    checked, valued = 0, 0
    failure: dict[str, Any] | None = None
    for values in enumerate_instances(template.parameters, dom, up_to):
        if checked >= MAX_VERIFY_INSTANCES:
            raise RumaInputError(f"more than {MAX_VERIFY_INSTANCES} instances; lower --up-to")
        if should_cancel is not None and should_cancel():
            raise CancelledError("the verification was cancelled")
        position = template.position_text(values)
        state = parse(rules.name, position)[1] if parse is not None else rules.parse(position)
        ok, computed, claimed, cost = _check(memo, rules, state, kind, claim, values, should_cancel, max_positions)
        checked += 1
        valued += cost
        if not ok:
            failure = {"parameters": values, "position": position, "value": computed, "claimed": claimed}
            break
    return {"parameters": template.parameters, "checked": checked, "valued": valued, "failure": failure,
            "ruleset_version": rules.version, "milliseconds": round((time.perf_counter() - started) * 1000)}


def _check(memo: Memo, rules: Ruleset, state: State, kind: str, claim: str, values: dict[str, int],
           should_cancel: ShouldCancel | None, max_positions: int | None) -> tuple[bool, str, str | None, int]:
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
            stored = evaluate(rules, state, memo, max_positions=0)
            return stored.game is claimed, format_value(stored.value), format_value(claimed), 0
        except LimitExceededError:
            pass
        try:
            if claim_holds(rules, state, claimed, max_nodes=max_positions or SEARCH_NODES, should_cancel=should_cancel):
                return True, format_value(claimed), format_value(claimed), 0
        except LimitExceededError:
            pass  # the search is too large: value the instance instead
        ev = evaluate(rules, state, memo, should_cancel=should_cancel, max_positions=max_positions)
        return ev.game is claimed, format_value(ev.value), format_value(claimed), ev.stats.positions_valued
    ev = evaluate(rules, state, memo, should_cancel=should_cancel, max_positions=max_positions)
    computed, cost = format_value(ev.value), ev.stats.positions_valued

    def twin(ruleset: str, position: str) -> Evaluation:
        return evaluate(ruleset, position, memo, should_cancel=should_cancel, max_positions=max_positions)

    holds, claimed_text = check_property(claim, ev, twin)
    return holds, computed, claimed_text, cost


def search_stored(store: Memo | None, ruleset: str, game: Game, limit: int = 20) -> list[dict[str, Any]]:
    """Every position of ``ruleset`` in the store with value ``game``, simplest first, each with
    ``unverified``: its value is an upload the server has not re-valued yet (it may be wrong).

    The store keeps positions in their canonical orientation, so for a partizan ruleset the
    mirror images of the positions stored with value ``-game`` are answers too (reversing a
    row swaps the players: Erickson's rulesets are left-right symmetric).
    """
    from ruma.server.store.codec import complexity
    from ruma.server.store.keys import state_of_key

    persistent = capabilities(store).store if store is not None else None
    if persistent is None:
        raise CatalogError("searching stored positions needs a store (--data DIR with a store, or a server)")
    rules = get_ruleset(ruleset)
    wanted: list[tuple[Any, bool]] = [(game.nim_value, False)] if rules.impartial else [(game, False)]
    if not rules.impartial and -game != game:
        wanted.append((-game, True))
    found: list[tuple[bytes, bool]] = []
    for target, mirrored in wanted:
        if target is not None:
            found += [(key, mirrored) for key in persistent.positions_with_value(
                rules.code, target, limit, prefix=rules.key_prefix if rules.code == PLUGIN_CODE else None)]
    # both lists come simplest first; merge them by the store's own measure of simplicity
    found.sort(key=lambda item: complexity(item[0]))
    found = found[:limit]
    marked = persistent.provenance.unverified_among([key for key, _ in found])  # (uploads not re-valued yet)
    out = []
    for (key, mirrored), unverified in zip(found, marked):
        entry: dict[str, Any] = {"ruleset": rules.name, "key": key.hex(), "value": format_value(game),
                                 "unverified": unverified}
        try:
            _, state = state_of_key(key)
            entry["position"] = rules.format(tuple(reversed(state)) if mirrored else state)
        except ValueError:  # a key of another ruleset version, or not decodable
            entry["position"] = None
        entry["mirrored"] = mirrored
        out.append(entry)
    return out


class LocalValuer:
    """Values computed in this process through ``memo`` (the CLI's ``--data DIR``, tests)."""

    def __init__(self, memo: Memo, store: Any = None, max_positions: int | None = None,
                 should_cancel: ShouldCancel | None = None) -> None:
        self.memo, self.store, self.max_positions, self.should_cancel = memo, store, max_positions, should_cancel

    def _evaluate(self, ruleset: str, position: str) -> Evaluation:
        return evaluate(ruleset, position, self.memo, should_cancel=self.should_cancel,
                        max_positions=self.max_positions)

    def value_fields(self, ruleset: str, position: str, source_value: str | None) -> dict[str, Any]:
        """Value fields of one position, computed here."""
        return value_fields(self._evaluate, ruleset, position, source_value)

    def verify(self, ruleset: str, family: str, domain: str, claim: str, kind: str, up_to: int) -> dict[str, Any]:
        """Check a theorem's instances here."""
        return check_instances(self.memo, ruleset, family, domain, claim, kind, up_to,
                               should_cancel=self.should_cancel, max_positions=self.max_positions)

    def search_stored(self, ruleset: str, value: str, limit: int) -> list[dict[str, Any]]:
        """Stored positions with a value, read here."""
        return search_stored(self.store, ruleset, parse_value(value), limit)

    def canonical(self, value: str) -> str:
        """The canonical form of a value expression, built here."""
        return format_value(parse_value(value))
