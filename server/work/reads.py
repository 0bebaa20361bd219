"""The service's stored lookups: tasks that read the store and never compute, run on a reader worker.

Registered in ``ruma.server.work.tasks.TASKS`` like the heavy tasks, so that ``InlineRunner`` runs
them too. Each answers from the store alone: a position whose value (whole, or as a sum of stored
components) is stored gets its reply, anything else is handed back for the servicer to send to an
evaluation worker. Errors of single items travel as ``wire.to_wire`` pairs; the servicer gives
them their status.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from google.protobuf.message import DecodeError

from ruma.engine.cgt import ZERO, Game, Value
from ruma.engine.errors import RumaInputError
from ruma.engine.evaluator import ComponentValue, EvalStats, Evaluation
from ruma.engine.memo import capabilities
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import Position, Ruleset, State
from ruma.server.work import convert
from ruma.server.work.limits import Limits
from ruma.server.work.stored_batch import Refusal as Refusal  # (re-exported for the servicer)
from ruma.server.work.stored_batch import Templates, answer_stored_briefs, refusal, shorten_refused
from ruma.server.work.tasks import Context, check_batch, parse_position, parse_value, position_limit, task
from ruma.v1 import ruma_pb2 as pb

#: brief replies' templates by value (``stored_batch``), kept for the life of the reader
TEMPLATES: Templates = {}


def stored(memo: Any, rules: Ruleset, state: State) -> Evaluation | None:
    """The stored value of a position (whole, or as a sum of stored components), never computing."""
    started = time.perf_counter()
    canonical, mirrored = rules.normalise(state)
    key = rules.key(canonical)
    stats = EvalStats()
    components: list[ComponentValue] = []
    for component, component_mirrored in (rules.normalise(piece) for piece in rules.components(state)):
        component_key = rules.key(component)
        value = memo.lookup(component_key)
        if value is None:
            return None
        stats.memo_hits += 1
        signed = -value if component_mirrored and isinstance(value, Game) else value
        components.append(ComponentValue(Position(rules, component), component_key, signed, component_mirrored, True))
    total: Value = 0 if rules.impartial else ZERO
    for part in components:
        total = total ^ part.value if isinstance(total, int) else total + part.value  # type: ignore[operator]
    stats.seconds = time.perf_counter() - started
    return Evaluation(rules, Position(rules, state), total, key, Position(rules, canonical), mirrored, components, stats)


def stored_brief(ctx: Context, rules: Ruleset, state: State, text: str) -> pb.Evaluation | None:
    """The brief ASCII reply of a position whose whole canonical key is stored, else ``None``."""
    key, mirrored = rules.canonical_key(state)  # (the compiled rulesets: one C call)
    value = ctx.memo.lookup(key)
    if value is None:
        return None
    shown = -value if mirrored and isinstance(value, Game) else value
    return pb.Evaluation(ruleset=rules.name, ruleset_version=rules.version, position=text, key=key,
                         mirrored=mirrored, value=convert.value_message(shown, ("ascii",)), from_store=True)


def stored_message(ctx: Context, ruleset: str, text: str, chosen: Sequence[str], brief: bool) -> pb.Evaluation | None:
    """The reply for a stored position, or ``None`` when something must be computed."""
    rules, state = parse_position(ctx.limits, ruleset, text)
    if brief and tuple(chosen) == ("ascii",):
        return stored_brief(ctx, rules, state, text)
    found = stored(ctx.memo, rules, state)
    return None if found is None else convert.evaluation_message(found, chosen, brief=brief)


@task
def stored_evaluate(ctx: Context, ruleset: str, text: str, chosen: Sequence[str], brief: bool,
                    max_positions: int) -> bytes | tuple[bytes, int | None]:
    """``Evaluate`` from the store: the serialised reply, or the single-flight key of the evaluation
    to run (the canonical key and the position limit) when the value is not stored."""
    message = stored_message(ctx, ruleset, text, chosen, brief)
    if message is not None:
        return message.SerializeToString()  # type: ignore[no-any-return]
    rules, state = parse_position(ctx.limits, ruleset, text)
    return rules.key(rules.normalise(state)[0]), position_limit(ctx.limits, max_positions)


@task
def stored_batch(ctx: Context, ruleset: str, positions: Sequence[str], chosen: Sequence[str],
                 brief: bool) -> tuple[bytes, list[Refusal], list[tuple[int, str]], int]:
    """``EvaluateBatch`` from the store: the reply so far, the refused items, the items to compute
    and how many were answered from the store."""
    rules = get_ruleset(ruleset)  # an unknown ruleset fails the whole call
    reply = pb.EvaluateBatchResponse()
    refused: list[Refusal] = []
    if brief and tuple(chosen) == ("ascii",):  # stored items answered in bulk (ruma load)
        todo, hits = answer_stored_briefs(ctx.memo, ctx.limits, rules, positions, reply, refused, TEMPLATES)
    else:
        todo, hits = [], 0
        for index, text in enumerate(positions):
            item = reply.items.add(position=text)
            try:
                message = stored_message(ctx, ruleset, text, chosen, brief)
            except Exception as error:  # noqa: BLE001 - one bad item must not fail the others
                refused.append(refusal(index, error))
                continue
            if message is None:
                todo.append((index, text))
            else:
                hits += 1
                item.evaluation.CopyFrom(message)
    shorten_refused(reply.items, refused)
    return reply.SerializeToString(), refused, todo, hits


@task
def stored_batch_message(ctx: Context, raw: bytes) -> tuple[bytes, tuple[bytes, list[Refusal], list[tuple[int, str]], int]]:
    """``stored_batch`` of a serialised ``EvaluateBatchRequest`` too large to decode on the server's
    event loop: the request without its positions, and what ``stored_batch`` answers."""
    request = pb.EvaluateBatchRequest()
    positions = _decoded(request, raw, ctx.limits)
    chosen = convert.styles(request.notations)
    return request.SerializeToString(), stored_batch(ctx, request.ruleset, positions, chosen, request.brief)


@task
def lookup_items(ctx: Context, ruleset: str, positions: Sequence[str], chosen: Sequence[str]) -> tuple[bytes, list[Refusal]]:
    """``Lookup``: stored values only (whole, or as sums of stored components)."""
    get_ruleset(ruleset)
    reply = pb.LookupResponse()
    refused: list[Refusal] = []
    for index, text in enumerate(positions):
        item = reply.items.add(position=text)
        try:
            rules, state = parse_position(ctx.limits, ruleset, text)
            found = stored(ctx.memo, rules, state)
            if found is not None:
                item.evaluation.CopyFrom(convert.evaluation_message(found, chosen))
                item.found = True
        except Exception as error:  # noqa: BLE001
            item.ClearField("evaluation")
            item.found = False
            refused.append(refusal(index, error))
    shorten_refused(reply.items, refused)
    return reply.SerializeToString(), refused


@task
def lookup_message(ctx: Context, raw: bytes) -> tuple[bytes, list[Refusal]]:
    """``lookup_items`` of a serialised ``LookupRequest`` too large to decode on the server's event loop."""
    request = pb.LookupRequest()
    positions = _decoded(request, raw, ctx.limits)
    answer: tuple[bytes, list[Refusal]] = lookup_items(ctx, request.ruleset, positions, convert.styles(request.notations))
    return answer


def _decoded(request: Any, raw: bytes, limits: Limits) -> list[str]:
    """Decode ``raw`` into ``request`` and take its positions out of it (a batch larger than the
    server takes is refused whole)."""
    try:
        request.ParseFromString(raw)
    except DecodeError as error:
        raise RumaInputError(f"malformed request message ({len(raw):,} bytes): {error}") from None
    positions = list(request.positions)
    check_batch(limits, len(positions))
    del request.positions[:]
    return positions


@task
def contains(ctx: Context, keys: Sequence[bytes]) -> list[bool]:
    """Whether each key is stored."""
    lookup = ctx.memo.lookup
    return [lookup(key) is not None for key in keys]


@task
def check_position(ctx: Context, ruleset: str, text: str) -> None:
    """Parse a position and check it against the limits (bad input is refused before a worker is taken)."""
    parse_position(ctx.limits, ruleset, text)


@task
def stored_value_fields(ctx: Context, ruleset: str, position: str, source_value: str | None) -> dict[str, Any] | None:
    """A named position's value fields from the store (``catalog.valuing.value_fields``, and
    ``unverified``), or ``None``."""
    from ruma.server.catalog.valuing import value_fields

    rules, state = parse_position(ctx.limits, ruleset, position)
    found = stored(ctx.memo, rules, state)
    if found is None:
        return None
    fields = value_fields(lambda r, p: found, ruleset, position, source_value, lambda text: parse_value(ctx.limits, text))
    persistent = capabilities(ctx.store).store if ctx.store is not None else None
    if persistent is not None:  # (an upload the server has not re-valued yet, for the position or a component)
        fields["unverified"] = any(persistent.provenance.unverified_among([found.key, *(c.key for c in found.components)]))
    return fields
