"""The ``Sweeps`` service's heavy work, run as tasks of ``ruma.server.work.tasks`` (worker processes).

``sweep_verify`` re-values a sample of an upload (reading the store, writing nothing to it) and
returns the values as a ``Packet`` for the servicer to compare, with the entries whose check ran
out of time or memory; ``revalue_uploads`` is the idle-time verifier's batch
(``store.provenance.revalue_marked``: marked entries re-valued and settled, the values computed on
the way stored); ``census_replies`` enumerates a
family, values its missing classes when asked (committed by the worker before it answers) and
returns the serialised ``CensusReply`` messages. Both poll the call's ``Budget``, so a census or a
verification stops at the server's time limit or the client's deadline like any evaluation.
"""

from __future__ import annotations

import time
from itertools import chain
from typing import Any, Sequence

from ruma.engine.cgt import Game
from ruma.engine.errors import CancelledError, LimitExceededError
from ruma.engine.evaluator import evaluate
from ruma.engine.families.census import Tally, values_among, wanted_values
from ruma.engine.families.classes import Family
from ruma.engine.families.packets import Packet, RecordingMemo, pack
from ruma.engine.families.stream import stream_classes
from ruma.engine.memo import capabilities
from ruma.engine.rulesets import get_ruleset
from ruma.server.store.keys import state_of_key
from ruma.server.store.provenance import Correction, revalue_marked, trusted_lookups
from ruma.server.work import convert
from ruma.server.work.tasks import Context, parse_value, position_limit, stopped, task
from ruma.server.work.worker_errors import to_wire
from ruma.v1 import ruma_pb2
from ruma.v1 import sweep_pb2 as pb

__all__ = ["census_replies", "revalue_uploads", "row_message", "sweep_verify"]


@task
def sweep_verify(ctx: Context, ruleset: str, keys: Sequence[bytes]) -> tuple[Packet, list[tuple[int, tuple[str, str]]]]:
    """The values of the positions under ``keys`` (canonical keys of ``ruleset``), computed afresh,
    and ``(index, wire error)`` of the keys whose check ran out of the call's time or of the
    memory budget (each has its own outcome; after a memory stop the rest are not checked)."""
    rules = get_ruleset(ruleset)
    # verification reads the store but writes nothing to it, and reads no upload the server has not
    # re-valued itself (store.provenance)
    persistent = capabilities(ctx.store).store if ctx.store is not None else None
    scratch = RecordingMemo(*trusted_lookups(persistent)) if persistent is not None else RecordingMemo(ctx.memo.lookup)
    limit = position_limit(ctx.limits, 0)
    budget = ctx.budget
    entries = []
    failed: list[tuple[int, tuple[str, str]]] = []
    for index, key in enumerate(keys):
        _, state = state_of_key(key)
        what = f"the check of {rules.format(state)[:60]!r}"
        if budget.reason in ("time", "memory"):
            failed.append((index, to_wire(budget.error(what))))
            continue
        try:
            value = evaluate(rules, state, scratch, should_cancel=budget.should_cancel, max_positions=limit).value
        except CancelledError as error:
            if budget.reason not in ("time", "memory"):
                raise stopped(ctx, error, "the upload's verification") from None
            failed.append((index, to_wire(budget.error(what))))
            continue
        except LimitExceededError as error:
            failed.append((index, to_wire(error)))
            continue
        entries.append((key, value))
    return pack(entries), failed


@task
def revalue_uploads(ctx: Context, keys: Sequence[bytes]) -> tuple[int, list[Correction]]:
    """The upload verifier's batch: ``revalue_marked`` of ``keys`` in this worker's store (which
    reads no marked entry), within the call's budget; how many entries were settled, and the
    corrections made."""
    persistent = capabilities(ctx.store).store if ctx.store is not None else None
    if persistent is None:
        return 0, []
    return revalue_marked(persistent, keys, keep=True, should_cancel=ctx.budget.should_cancel,
                          max_positions=position_limit(ctx.limits, 0))


@task
def census_replies(ctx: Context, family_args: tuple[Any, ...], by: str, simplest: int, compute_missing: bool,
                   styles: Sequence[str], values: Sequence[str] = ()) -> list[bytes]:
    """A census of the family ``Family.of(*family_args)``: its rows and summary, serialised. The
    classes are streamed (``families.stream``), so memory holds the rows, not the family; with
    ``values`` only the positions of those values are counted in rows, the store's ids compared
    without building any other value (``census.values_among``)."""
    started = time.perf_counter()
    family = Family.of(*family_args)
    rules = family.rules
    should_cancel = ctx.budget.should_cancel
    limit = position_limit(ctx.limits, 0)
    wanted = wanted_values(rules, [parse_value(ctx.limits, text) for text in values]) if values else None
    values_of = values_among(ctx.store if ctx.store is not None else ctx.memo, rules, wanted) if wanted is not None \
        else _served_many(ctx)
    counted = Tally(rules, by, simplest, wanted)
    marked = _marked(ctx)
    computed = 0
    try:
        batch: list[Any] = []
        for entry in chain(stream_classes(family, should_cancel), [None]):
            if entry is not None:
                batch.append(entry)
                if len(batch) < 4096:
                    continue
            keys = [c.key for c in batch]
            for item, value, mark in zip(batch, values_of(keys), marked(keys)):
                if value is None and compute_missing:
                    value = evaluate(rules, item.state, ctx.memo, should_cancel=should_cancel, max_positions=limit).value
                    computed += 1
                counted.add(item, value, mark)
            batch = []
    except CancelledError as error:
        raise stopped(ctx, error, f"the census of {family.describe()}") from None
    rows = counted.rows()
    replies = [pb.CensusReply(row=row_message(rules, by, row, tuple(styles), counted.unverified_states)) for row in rows]
    replies.append(pb.CensusReply(summary=pb.CensusSummary(
        ruleset=rules.name, seeds_min=family.seeds_min, seeds_max=family.seeds_max, pots_min=family.pots_min,
        pots_max=family.pots_max, classes=counted.classes, raw_positions=counted.raw_positions,
        rows=len(rows), computed=computed, seconds=time.perf_counter() - started, missing=counted.missing,
        unverified=counted.unverified)))
    return [reply.SerializeToString() for reply in replies]


def _marked(ctx: Context) -> Any:
    """Which of some keys the store marks unverified (an upload not re-valued yet; one read a batch,
    none while the store holds no such upload)."""
    persistent = capabilities(ctx.store).store if ctx.store is not None else None
    if persistent is None:
        return lambda keys: [False] * len(keys)
    provenance = persistent.provenance
    return lambda keys: provenance.unverified_among(keys) if provenance.unverified_count() else [False] * len(keys)


def _served_many(ctx: Context) -> Any:
    """The values stored under many keys as a reply reads them (uploads not re-valued yet count as
    stored: the store's ``lookup_served``), else ``memo.lookup_many`` or a loop of ``lookup``."""
    persistent = capabilities(ctx.store).store if ctx.store is not None else None
    if persistent is not None:
        served = persistent.lookup_served
        return lambda keys: [served(key) for key in keys]
    return capabilities(ctx.memo).lookup_each()


def row_message(rules: Any, by: str, row: Any, chosen: tuple[str, ...],
                unverified: set[Any] | frozenset[Any] = frozenset()) -> pb.CensusRow:
    """A ``CensusRow`` message (``unverified``: the canonical states whose value is an upload not
    re-valued yet)."""
    group = row.group
    if by == "value" or (by == "atomic-weight" and isinstance(group, Game)):
        value = convert.value_message(group, chosen)
    else:
        text = row.label()
        value = ruma_pb2.Value(**{style: text for style in chosen})
    message = pb.CensusRow(by=by, group=value, classes=row.classes, raw_positions=row.raw_positions,
                           unverified=row.unverified)
    nim = group if isinstance(group, int) and not isinstance(group, bool) else (
        group.nim_value if isinstance(group, Game) else None)
    if nim is not None:
        message.nim_value = nim
    for position, canonical, mirrored in row.simplest:
        pots, seeds = len(position), sum(position)
        message.simplest.add(position=rules.format(position), canonical=rules.format(canonical), seeds=seeds,
                             pots=pots, mirrored=mirrored, unverified=canonical in unverified)
    return message
