"""The cheap path of ``EvaluateBatch`` for brief ASCII replies (what ``ruma load`` asks for): every
position whose whole canonical key is stored is answered here, on a reader worker.

Per item only what differs is done: parse and check the text, its canonical key (one compiled
call each on the compiled rulesets), and the item of the reply. The rest is done once per batch
(the ruleset, the store lookups: one ``lookup_many``, the counters) or once per distinct value of
the batch (the value's text, its message, the reply's common fields: a *template* evaluation
merged into each item by protobuf's C code). A batch of stored Sowing positions has a handful of
distinct values, so formatting values drops out of the per-item cost.
"""

from __future__ import annotations

from typing import Any, Sequence

from ruma.engine.cgt import Game, Value
from ruma.engine.rulesets.base import Ruleset
from ruma.server.store.codec import CorruptRecordError
from ruma.server.work import convert, tasks
from ruma.server.work.limits import Limits
from ruma.server.work.worker_errors import to_wire
from ruma.v1 import ruma_pb2 as pb

#: an item refused, with its error as ``wire.to_wire`` carries it: ``(index, (kind, message))``
Refusal = tuple[int, tuple[str, str]]
#: a refused item's position longer than this is sent back shortened (its first characters and its length)
ECHO = 100


def refusal(index: int, error: BaseException) -> Refusal:
    """Item ``index`` refused with ``error`` (its message clipped: a batch's reply stays small)."""
    kind, message = to_wire(error)
    return index, (kind, tasks.clipped(message))


def shorten_refused(items: Any, refused: list[Refusal]) -> None:
    """Send back the long positions of refused items shortened (the client knows what it sent)."""
    for index, _ in refused:
        item = items[index]
        if len(item.position) > ECHO:
            item.position = f"{item.position[:tasks.QUOTED]}... ({len(item.position):,} characters)"


TEMPLATES = 65536
"""Distinct (ruleset, value, mirrored) templates a servicer keeps between batches."""

Templates = dict[tuple[str, int, type, Value, bool], pb.Evaluation]


def answer_stored_briefs(memo: Any, limits: Limits, rules: Ruleset, texts: Sequence[str],
                         reply: pb.EvaluateBatchResponse, refused: list[Refusal],
                         templates: Templates) -> tuple[list[tuple[int, str]], int]:
    """Add one item per text to ``reply``: its brief ASCII evaluation when its key is stored; the
    items refused go to ``refused`` (their status is set by the servicer); returns ``(index,
    text)`` of the items still to compute and how many were answered from the store.
    ``templates`` is the caller's map of reply templates by value, kept between batches (values
    recur: a load meets the same few thousand values)."""
    add = reply.items.add
    items = [add(position=text) for text in texts]
    parsed: list[tuple[int, bytes, bool]] = []
    check, canonical_key = tasks.rules_position, rules.canonical_key
    for index, text in enumerate(texts):
        try:
            key, mirrored = canonical_key(check(limits, rules, text)[1])
        except Exception as error:  # noqa: BLE001 - one bad item must not fail the others
            refused.append(refusal(index, error))
            continue
        parsed.append((index, key, mirrored))
    stored = _lookup_all(memo, [key for _, key, _ in parsed])
    name, version = rules.name, rules.version
    todo: list[tuple[int, str]] = []
    answered = 0
    for (index, key, mirrored), value in zip(parsed, stored):
        if value is None:
            todo.append((index, texts[index]))
            continue
        if isinstance(value, BaseException):
            refused.append(refusal(index, value))
            continue
        tag = (name, version, type(value), value, mirrored)  # (the type: a number Game equals its int, 0 == ZERO)
        template = templates.get(tag)
        if template is None:
            shown = -value if mirrored and isinstance(value, Game) else value
            template = pb.Evaluation(ruleset=name, ruleset_version=version, mirrored=mirrored,
                                     value=convert.value_message(shown, ("ascii",)), from_store=True)
            if len(templates) >= TEMPLATES:  # (a dict's get and set are atomic: threads may share it)
                templates.clear()
            templates[tag] = template
        evaluation = items[index].evaluation
        evaluation.MergeFrom(template)
        evaluation.position = texts[index]
        evaluation.key = key
        answered += 1
    return todo, answered


def _lookup_all(memo: Any, keys: list[bytes]) -> list[Value | BaseException | None]:
    """The stored values of ``keys`` in one batch; if the batch meets a damaged record, each key
    alone, so that only the damaged one fails (with its ``CorruptRecordError``: ``DATA_LOSS``)."""
    try:
        return list(memo.lookup_many(keys))
    except CorruptRecordError:
        pass
    out: list[Value | BaseException | None] = []
    for key in keys:
        try:
            out.append(memo.lookup(key))
        except CorruptRecordError as error:
            out.append(error)
    return out
