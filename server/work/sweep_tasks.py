"""The ``Sweeps`` service's heavy work, run as tasks of ``ruma.server.work.tasks`` (worker processes).

``sweep_verify`` re-values a sample of an upload (reading the store, writing nothing to it) and
returns the values as a ``Packet`` for the servicer to compare; ``census_replies`` enumerates a
family, values its missing classes when asked (committed by the worker before it answers) and
returns the serialised ``CensusReply`` messages. Both poll the call's ``Budget``, so a census or a
verification stops at the server's time limit or the client's deadline like any evaluation.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from ruma.engine.families.census import census
from ruma.engine.cgt import Game
from ruma.engine.errors import CancelledError
from ruma.engine.evaluator import evaluate
from ruma.engine.families.enum import Family, enumerate_family
from ruma.engine.rulesets import get_ruleset
from ruma.engine.families.packets import Packet, RecordingMemo, pack
from ruma.server.work import convert
from ruma.server.store.keys import state_of_key
from ruma.server.store.provenance import trusted_lookups
from ruma.server.work.tasks import Context, position_limit, stopped, task
from ruma.v1 import ruma_pb2
from ruma.v1 import sweep_pb2 as pb

__all__ = ["census_replies", "row_message", "sweep_verify"]


@task
def sweep_verify(ctx: Context, ruleset: str, keys: Sequence[bytes]) -> Packet:
    """The values of the positions under ``keys`` (canonical keys of ``ruleset``), computed afresh."""
    rules = get_ruleset(ruleset)
    # verification reads the store but writes nothing to it, and reads no upload the server has not
    # re-valued itself (store.provenance)
    marks = callable(getattr(ctx.store, "unverified_among", None))
    scratch = RecordingMemo(*trusted_lookups(ctx.store)) if marks else RecordingMemo(ctx.memo.lookup)
    limit = position_limit(ctx.limits, 0)
    entries = []
    try:
        for key in keys:
            _, state = state_of_key(key)
            value = evaluate(rules, state, scratch, should_cancel=ctx.budget.should_cancel, max_positions=limit).value
            entries.append((key, value))
    except CancelledError as error:
        raise stopped(ctx, error, "the upload's verification") from None
    return pack(entries)


@task
def census_replies(ctx: Context, family_args: tuple[Any, ...], by: str, simplest: int, compute_missing: bool,
                   styles: Sequence[str]) -> list[bytes]:
    """A census of the family ``Family.of(*family_args)``: its rows and summary, serialised."""
    started = time.perf_counter()
    family = Family.of(*family_args)
    rules = family.rules
    should_cancel = ctx.budget.should_cancel
    limit = position_limit(ctx.limits, 0)
    computed = 0
    read = getattr(ctx.store, "lookup_served", ctx.memo.lookup)  # (uploads not re-valued yet count as stored)
    try:
        classes = enumerate_family(family, should_cancel)
        present = []
        for entry in classes:
            if read(entry.key) is None:
                if not compute_missing:
                    continue
                evaluate(rules, entry.state, ctx.memo, should_cancel=should_cancel, max_positions=limit)
                computed += 1
            present.append(entry)
        rows = census(rules, present, read, by, simplest)
    except CancelledError as error:
        raise stopped(ctx, error, f"the census of {family.describe()}") from None
    replies = [pb.CensusReply(row=row_message(rules, by, row, tuple(styles))) for row in rows]
    replies.append(pb.CensusReply(summary=pb.CensusSummary(
        ruleset=rules.name, seeds_min=family.seeds_min, seeds_max=family.seeds_max, pots_min=family.pots_min,
        pots_max=family.pots_max, classes=len(classes), raw_positions=sum(c.raw_total for c in classes),
        rows=len(rows), computed=computed, seconds=time.perf_counter() - started,
        missing=len(classes) - len(present))))
    return [reply.SerializeToString() for reply in replies]


def row_message(rules: Any, by: str, row: Any, chosen: tuple[str, ...]) -> pb.CensusRow:
    """A ``CensusRow`` message."""
    group = row.group
    if by == "value" or (by == "atomic-weight" and isinstance(group, Game)):
        value = convert.value_message(group, chosen)
    else:
        text = row.label()
        value = ruma_pb2.Value(**{style: text for style in chosen})
    message = pb.CensusRow(by=by, group=value, classes=row.classes, raw_positions=row.raw_positions)
    nim = group if isinstance(group, int) and not isinstance(group, bool) else (
        group.nim_value if isinstance(group, Game) else None)
    if nim is not None:
        message.nim_value = nim
    for position, canonical, mirrored in row.simplest:
        pots, seeds = len(position), sum(position)
        message.simplest.add(position=rules.format(position), canonical=rules.format(canonical), seeds=seeds,
                             pots=pots, mirrored=mirrored)
    return message
