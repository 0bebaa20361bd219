"""The service's heavy work: functions that may compute, run in an evaluation worker (or inline).

Each task is ``fn(ctx, *args)`` registered in ``TASKS`` by name; ``ctx`` (``Context``) holds the
memo to value through, the store, the server's ``Limits`` and the call's ``Budget``, whose
``should_cancel`` every evaluation polls. Arguments and results are plain picklable values
(protobuf messages travel serialised). A new RPC that may compute adds a task here and calls
``runner.run("name", args, budget)`` (see ``ruma.server.work.pool``): it then gets the time and
memory budgets, admission and worker isolation for free.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ruma.engine.cgt import ZERO, Game
from ruma.engine.cgt.notation import parse_game
from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError
from ruma.engine.evaluator import Evaluation, evaluate
from ruma.engine.memo import Memo
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import Ruleset, State
from ruma.server.work import convert
from ruma.server.work.budget import Budget
from ruma.server.work.limits import Limits
from ruma.server.work.worker_errors import to_wire
from ruma.v1 import ruma_pb2 as pb

TASKS: dict[str, Callable[..., Any]] = {}


@dataclass
class Context:
    """What a task works with."""

    memo: Memo
    store: Memo | None
    limits: Limits
    budget: Budget


def task(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``fn`` as a task under its name."""
    TASKS[fn.__name__] = fn
    return fn


# -- shared with the servicer's cheap paths ---------------------------------------------------
#: characters of an input a message quotes (then its length)
QUOTED = 40


def quoted(text: str, limit: int = QUOTED) -> str:
    """``text`` as a message quotes it: whole when short, else its first ``limit`` characters and
    its length (a message never carries a long input whole)."""
    if len(text) <= limit + 20:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


#: the most characters of one batch item's message
ITEM_MESSAGE = 300


def clipped(message: str, limit: int = ITEM_MESSAGE) -> str:
    """A message of one item of a batch, at most ``limit`` characters."""
    return message if len(message) <= limit else f"{message[:limit - 30]}... ({len(message):,} characters)"


def parse_position(limits: Limits, ruleset: str, text: str) -> tuple[Ruleset, State]:
    """Parse ``text`` as a position of ``ruleset`` and check it against the limits."""
    return rules_position(limits, get_ruleset(ruleset), text)


def rules_position(limits: Limits, rules: Ruleset, text: str) -> tuple[Ruleset, State]:
    """``parse_position`` with the ruleset already found (a batch finds it once)."""
    if not isinstance(text, str) or not text.strip():
        raise RumaInputError(f"empty position {text!r} for {rules.name}")
    if len(text) > limits.max_text:
        raise RumaInputError(f"position {quoted(text)} is too long for a position (at most {limits.max_text:,} "
                             f"characters)")
    try:
        state = rules.parse(text)
    except RecursionError:
        raise RumaInputError(f"position {quoted(text)} is nested too deeply") from None
    except ValueError as error:  # a parser's own ValueError that is not a RumaInputError
        if isinstance(error, RumaInputError):
            raise
        raise RumaInputError(f"cannot parse position {quoted(text)} of {rules.name}: {error}") from None
    pots, seeds = rules.size(state)
    if limits.max_pots is not None and pots > limits.max_pots:
        raise LimitExceededError(f"position {quoted(text)} has {pots} pots/heaps; this server's limit is {limits.max_pots}")
    if limits.max_seeds is not None and seeds > limits.max_seeds:
        raise LimitExceededError(f"position {quoted(text)} has {seeds} seeds/tokens; this server's limit is "
                                 f"{limits.max_seeds}")
    return rules, state


def parse_value(limits: Limits, text: str) -> Game:
    """A value expression, within the expression limits and the server's text limit."""
    if not isinstance(text, str):
        raise RumaInputError(f"a value expression must be text, not {text!r}")
    if len(text) > limits.max_text:
        raise RumaInputError(f"value expression {quoted(text)} is too long (at most {limits.max_text:,} characters)")
    return parse_game(text)


def check_batch(limits: Limits, count: int) -> None:
    """Refuse a batch of more positions than the server takes (the whole call: RESOURCE_EXHAUSTED)."""
    if count > limits.max_batch_size:
        raise LimitExceededError(f"batch of {count} positions; this server's limit is {limits.max_batch_size}")


def position_limit(limits: Limits, requested: int) -> int | None:
    """The positions one evaluation may compute: the request's, capped by the server's."""
    server = limits.max_positions
    if requested and (server is None or requested < server):
        return requested
    return server


def value(ctx: Context, ruleset: str, text: str, max_positions: int = 0) -> Evaluation:
    """Evaluate one position through the memo within the call's budget."""
    rules, state = parse_position(ctx.limits, ruleset, text)
    return evaluate(rules, state, ctx.memo, should_cancel=ctx.budget.should_cancel,
                    max_positions=position_limit(ctx.limits, max_positions))


def stopped(ctx: Context, error: CancelledError, what: str = "the request") -> BaseException:
    """The error a cancelled evaluation ends with: the budget's reason, else the cancellation."""
    return ctx.budget.error(what) if ctx.budget.reason is not None else error


# -- the tasks ---------------------------------------------------------------------------------------
@task
def evaluate_one(ctx: Context, ruleset: str, text: str, styles: Sequence[str], brief: bool, max_positions: int) -> bytes:
    """``Evaluate``: the serialised ``Evaluation`` message."""
    try:
        evaluation = value(ctx, ruleset, text, max_positions)
    except CancelledError as error:
        raise stopped(ctx, error, f"evaluation of {text[:60]!r}") from None
    return convert.evaluation_message(evaluation, styles, brief=brief).SerializeToString()  # type: ignore[no-any-return]


@task
def evaluate_batch(ctx: Context, ruleset: str, items: Sequence[tuple[int, str]], styles: Sequence[str], brief: bool,
                   max_positions: int, item_seconds: float = 0.0) -> list[tuple[int, bytes | tuple[str, str]]]:
    """``EvaluateBatch``'s positions that were not stored: ``(index, message or (kind, message))``.

    Each position has its own budget: the call's, and ``item_seconds`` (when set) from its start.
    A position that runs out of its time, or that the server's memory budget stops, gets
    RESOURCE_EXHAUSTED alone and the next one is valued. After a memory stop the task returns at
    once (this worker is over the budget and is replaced): the items it did not reach are missing
    from the answer, and the servicer gives them to another worker. When the server's time limit
    for the call runs out, the position being valued gets RESOURCE_EXHAUSTED with its true
    reason — the server's limit when it had (nearly) the whole call's time, else ``cut_short``
    (the positions before it took the time: ``SEND_ALONE``) — and the positions not started get
    ``not_started`` (``SEND_AGAIN``); the client's deadline or cancellation fails the whole call."""
    out: list[tuple[int, bytes | tuple[str, str]]] = []
    budget = ctx.budget
    began = time.monotonic()
    for index, text in items:
        what = f"evaluation of {text[:60]!r}"
        if budget.reason is not None or budget.should_cancel():
            if budget.reason == "memory":
                return out
            if budget.reason == "time":
                out.append((index, to_wire(not_started(budget, what))))
                continue
            raise budget.error()
        started = time.monotonic()
        own = item_budget(budget, item_seconds)
        try:
            rules, state = parse_position(ctx.limits, ruleset, text)
            evaluation = evaluate(rules, state, ctx.memo, should_cancel=own.should_cancel,
                                  max_positions=position_limit(ctx.limits, max_positions))
            out.append((index, convert.evaluation_message(evaluation, styles, brief=brief).SerializeToString()))
        except CancelledError as error:
            if item_time_out(budget, own):
                out.append((index, to_wire(LimitExceededError(
                    f"{what} ran longer than the {item_seconds:g} s each position may take (max_seconds)"))))
            elif own.reason in ("time", "memory"):
                budget.stop(own.reason)
                late = own.reason == "time" and began_late(budget, began, started)
                out.append((index, to_wire(cut_short(budget, what, started) if late else own.error(what))))
                if own.reason == "memory":
                    return out
            else:
                raise stopped(ctx, error) from None
        except Exception as error:  # noqa: BLE001 - one bad item must not fail the others
            out.append((index, to_wire(error)))
    return out


#: the words that end the reason of a batch item the call's time limit kept from its own time:
#: a client sends a position ``not_started`` again, and one ``cut_short`` again alone
SEND_AGAIN, SEND_ALONE = "send it again", "send it alone"
#: a position began late when the positions before it in its task had taken more than this share
#: of the time the call had left when the task began
LATE_SHARE = 0.05


def began_late(budget: Budget, began: float, started: float) -> bool:
    """Whether a position that ``started`` in a task that ``began`` had much less than the whole
    call's time (see ``LATE_SHARE``)."""
    deadline = budget.server_deadline
    return deadline is not None and started - began > LATE_SHARE * max(deadline - began, 0.0)


def not_started(budget: Budget, what: str) -> LimitExceededError:
    """The reason of a batch position the call's time limit ran out before."""
    return LimitExceededError(f"{what} was not started: its call ran out of this server's limit of "
                              f"{budget.max_seconds:g} s a request (--max-seconds) before its turn; {SEND_AGAIN}")


def not_valued(what: str, reason: BaseException) -> LimitExceededError:
    """The reason of a batch position whose call ran out of its time before a worker answered for it
    (``reason``: the call's error, such as its wait for a worker)."""
    return LimitExceededError(f"{what} was not valued: {reason}; {SEND_AGAIN}")


def cut_short(budget: Budget, what: str, started: float) -> LimitExceededError:
    """The reason of a batch position stopped by the call's time limit after the positions before it
    had taken most of that time."""
    return LimitExceededError(f"{what} was stopped after {time.monotonic() - started:.1f} s: its call ran out of "
                              f"this server's limit of {budget.max_seconds:g} s a request (--max-seconds), most of "
                              f"it taken by the positions before it; {SEND_ALONE} for its whole time")


def item_budget(budget: Budget, seconds: float) -> Budget:
    """The budget of one position of a batch: ``budget``'s deadlines and flag, and ``seconds``
    from now when given (``item_time_out`` tells that deadline from the call's)."""
    if not seconds or seconds <= 0:
        return budget
    ends = time.monotonic() + seconds
    server = budget.server_deadline
    return Budget(client_deadline=budget.client_deadline, server_deadline=ends if server is None else min(server, ends),
                  max_seconds=budget.max_seconds, is_active=budget.is_active, flag=budget.flag,
                  memory_budget=budget.memory_budget)


def item_time_out(budget: Budget, own: Budget) -> bool:
    """Whether ``own`` (an ``item_budget`` of ``budget``) stopped at its position's own deadline."""
    return own is not budget and own.reason == "time" and (
        budget.server_deadline is None or time.monotonic() < budget.server_deadline)


@task
def options(ctx: Context, ruleset: str, text: str, styles: Sequence[str]) -> bytes:
    """``Options``: the position's evaluation and each player's options with their values."""
    try:
        evaluation = value(ctx, ruleset, text)
        rules, state = evaluation.ruleset, evaluation.position.state

        def valued(moves: Any) -> list[pb.Option]:
            return [convert.option_message(rules.format(option), evaluate(
                rules, option, ctx.memo, should_cancel=ctx.budget.should_cancel,
                max_positions=ctx.limits.max_positions).value, styles) for option in moves]

        left = valued(rules.options(state) if rules.impartial else rules.left_options(state))
        right = left if rules.impartial else valued(rules.right_options(state))
    except CancelledError as error:
        raise stopped(ctx, error, f"options of {text[:60]!r}") from None
    reply = pb.OptionsResponse(evaluation=convert.evaluation_message(evaluation, styles), left=left, right=right)
    return reply.SerializeToString()  # type: ignore[no-any-return]


def operand(ctx: Context, message: pb.Operand) -> Game:
    """The value of a position or a value expression, as a game."""
    kind = message.WhichOneof("kind")
    if kind == "expression":
        return parse_value(ctx.limits, message.expression)
    if kind == "position":
        return value(ctx, message.position.ruleset, message.position.position).game
    raise RumaInputError("an operand needs a position (ruleset and position) or a value expression")


@task
def sum_of(ctx: Context, request: bytes) -> bytes:
    """``Sum``: the disjunctive sum of the operands, with its analysis."""
    message = pb.SumRequest.FromString(request)
    if not message.terms:
        raise RumaInputError("a sum needs at least one term")
    try:
        terms = [operand(ctx, term) for term in message.terms]
    except CancelledError as error:
        raise stopped(ctx, error, "the sum") from None
    total = ZERO
    for term in terms:
        total = total + term
    chosen = convert.styles(message.notations)
    return pb.SumResponse(  # type: ignore[no-any-return]
        value=convert.value_message(total, chosen), analysis=convert.analysis_message(total),
        terms=[convert.value_message(term, chosen) for term in terms]).SerializeToString()


@task
def compare(ctx: Context, request: bytes) -> bytes:
    """``Compare``: the relation of two operands and their difference."""
    message = pb.CompareRequest.FromString(request)
    try:
        a, b = operand(ctx, message.a), operand(ctx, message.b)
    except CancelledError as error:
        raise stopped(ctx, error, "the comparison") from None
    if a == b:
        relation = pb.RELATION_EQUAL
    elif a >= b:
        relation = pb.RELATION_GREATER
    elif a <= b:
        relation = pb.RELATION_LESS
    else:
        relation = pb.RELATION_CONFUSED
    chosen = convert.styles(message.notations)
    return pb.CompareResponse(  # type: ignore[no-any-return]
        relation=relation, a=convert.value_message(a, chosen), b=convert.value_message(b, chosen),
        difference=convert.value_message(a - b, chosen)).SerializeToString()


# -- the catalog's heavy work (ruma.server.catalog.ops) -------------------------------------------
@task
def catalog_value(ctx: Context, ruleset: str, position: str, source_value: str | None) -> dict[str, Any]:
    """A named position's value fields, and whether its source's printed value agrees."""
    from ruma.server.catalog.valuing import value_fields

    try:
        return value_fields(lambda r, p: value(ctx, r, p), ruleset, position, source_value,
                            lambda text: parse_value(ctx.limits, text))
    except CancelledError as error:
        raise stopped(ctx, error, f"evaluation of {position[:60]!r}") from None


@task
def catalog_verify(ctx: Context, ruleset: str, family: str, domain: str, claim: str, kind: str,
                   up_to: int) -> dict[str, Any]:
    """Check a theorem on every instance up to ``up_to`` (recorded by the servicer)."""
    from ruma.server.catalog.valuing import check_instances

    try:
        return check_instances(ctx.memo, ruleset, family, domain, claim, kind, up_to,
                               should_cancel=ctx.budget.should_cancel, max_positions=ctx.limits.max_positions,
                               parse=lambda r, p: parse_position(ctx.limits, r, p))
    except CancelledError as error:
        raise stopped(ctx, error, "the verification") from None


@task
def canonical_value(ctx: Context, value_text: str) -> str:
    """The canonical form of a value expression, as ``format_value`` prints it."""
    from ruma.engine.cgt import format_value

    return format_value(parse_value(ctx.limits, value_text))


@task
def catalog_search_stored(ctx: Context, ruleset: str, value_text: str, limit: int) -> list[dict[str, Any]]:
    """Stored positions of ``ruleset`` with value ``value_text``."""
    from ruma.server.catalog.valuing import search_stored

    return search_stored(ctx.store, ruleset, parse_value(ctx.limits, value_text), limit)


# The Sweeps service's tasks and the stored lookups register themselves here, so every worker knows them.
from ruma.server.work import reads, sweep_tasks  # noqa: E402,F401  (imported for their registrations)
