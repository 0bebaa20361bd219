"""The ``ruma.v1.Ruma`` servicer: protobuf in → engine call → protobuf out.

Two paths. **Cheap** work runs in the server's own threads: a position whose value is stored
(whole, or as a sum of stored components), ``Lookup``, capabilities and statistics. **Heavy** work —
anything that may compute: an unstored position, ``Options``, ``Sum``, ``Compare`` and the
catalog's evaluations — goes through the runner (``ruma.server.work.pool``: evaluation worker
processes with admission, time and memory budgets) as a task of ``ruma.server.work.tasks``, within the
call's ``Budget`` (``ruma.server.work.budget``). Identical evaluations in flight are computed once
(single-flight keyed by the canonical key and the position limit).

Errors are not handled here: every method is wrapped by ``ruma.server.rpc.errors.rpc_method`` (and
batch items use ``status_of``), which maps errors to status codes in one place.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Iterator, Sequence

import grpc

from ruma.engine import ENGINE_VERSION
from ruma.engine.cgt import ZERO, Game
from ruma.engine.cgt.expression import DEFAULT_LIMITS as EXPRESSION_LIMITS
from ruma.engine.errors import LimitExceededError
from ruma.engine.evaluator import ComponentValue, EvalStats, Evaluation
from ruma.engine.memo import Memo
from ruma.engine.rulesets import get_ruleset, ruleset_description, ruleset_names
from ruma.engine.rulesets.base import Position, Ruleset, State
from ruma.server.work import convert
from ruma.server.work import tasks
from ruma.server.work.budget import Budget
from ruma.server.rpc.cache import CachedMemo
from ruma.server.rpc.errors import from_wire, rpc_method, status_of
from ruma.server.rpc.inflight import SingleFlight
from ruma.server.work.limits import Limits
from ruma.server.rpc.stored_batch import Templates, answer_stored_briefs
from ruma.server.work.pool import InlineRunner
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc

SERVER_VERSION = "0.1.0"
__all__ = ["Limits", "RumaServicer", "SERVER_VERSION"]


class Counters:
    """The service's statistics since start (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.hits = self.misses = self.total = self.positions_valued = self.shared = 0

    def record(self, message: pb.Evaluation, shared: bool = False) -> None:
        """Count one answered evaluation."""
        with self.lock:
            self.total += 1
            if shared:
                self.shared += 1
            elif message.from_store:
                self.hits += 1
            else:
                self.misses += 1
                self.positions_valued += message.stats.positions_valued

    def record_hits(self, count: int) -> None:
        """Count ``count`` evaluations answered from the store."""
        with self.lock:
            self.total += count
            self.hits += count


class RumaServicer(ruma_pb2_grpc.RumaServicer):
    """The servicer over a store implementing ``Memo`` and a runner for heavy work."""

    def __init__(self, store: Memo, limits: Limits | None = None, services: Sequence[str] = (), auth_required: bool = False,
                 cache_size: int = 500_000, runner: Any = None) -> None:
        self.store = store
        self.memo = CachedMemo(store, cache_size)
        self.limits = limits or Limits()
        self.runner = runner if runner is not None else InlineRunner(self.memo, store, self.limits)
        self.flight: SingleFlight[bytes] = SingleFlight()
        self.templates: Templates = {}  # brief replies' templates by value (``stored_batch``)
        self.counters = Counters()
        self.services = list(services)
        self.auth_required = auth_required
        self._active = 0
        self._idle = threading.Condition()

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """Mark an engine call in progress (``wait_idle`` waits for them all to end)."""
        with self._idle:
            self._active += 1
        try:
            yield
        finally:
            with self._idle:
                self._active -= 1
                if not self._active:
                    self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no engine call is running (after shutdown cancelled them); True if idle."""
        with self._idle:
            return self._idle.wait_for(lambda: self._active == 0, timeout)

    def budget(self, context: grpc.ServicerContext | None) -> Budget:
        """The budget of a call: its deadline, the server's time limit, its liveness."""
        return Budget.for_call(context, self.limits.max_seconds, self.limits.memory_budget)

    def run(self, name: str, args: tuple[Any, ...], budget: Budget) -> Any:
        """Run a heavy task (``ruma.server.work.tasks``) through the runner; later reads see its commit."""
        with self.busy():
            try:
                return self.runner.run(name, args, budget)
            finally:
                refresh = getattr(self.store, "refresh", None)
                if callable(refresh):
                    refresh()

    # -- cheap paths ---------------------------------------------------------------------------
    def parse(self, ruleset: str, text: str) -> tuple[Ruleset, State]:
        """Parse and check a position against the limits."""
        return tasks.parse_position(self.limits, ruleset, text)

    def stored_brief(self, ruleset: str, text: str) -> pb.Evaluation | None:
        """The brief reply for a position whose whole canonical key is stored, else ``None``."""
        rules, state = self.parse(ruleset, text)
        key, mirrored = rules.canonical_key(state)  # (the compiled rulesets: one C call)
        stored = self.memo.lookup(key)
        if stored is None:
            return None
        value = -stored if mirrored and isinstance(stored, Game) else stored
        return pb.Evaluation(ruleset=rules.name, ruleset_version=rules.version, position=text, key=key,
                             mirrored=mirrored, value=convert.value_message(value, ("ascii",)), from_store=True)

    def lookup(self, ruleset: str, text: str) -> Evaluation | None:
        """The stored value of a position (whole, or as a sum of stored components), never computing."""
        rules, state = self.parse(ruleset, text)
        return self._lookup(rules, state, time.perf_counter())

    def _lookup(self, rules: Ruleset, state: State, started: float) -> Evaluation | None:
        canonical, mirrored = rules.normalise(state)
        key = rules.key(canonical)
        stats = EvalStats()
        pieces = [rules.normalise(piece) for piece in rules.components(state)]
        components: list[ComponentValue] = []
        for component, component_mirrored in pieces:
            component_key = rules.key(component)
            stored = self.memo.lookup(component_key)
            if stored is None:
                stats.memo_misses += 1
                break
            stats.memo_hits += 1
            signed = -stored if component_mirrored and isinstance(stored, Game) else stored
            components.append(ComponentValue(Position(rules, component), component_key, signed, component_mirrored, True))
        else:
            total: Game | int = 0 if rules.impartial else ZERO
            for part in components:
                total = total ^ part.value if isinstance(total, int) else total + part.value  # type: ignore[operator]
            stats.seconds = time.perf_counter() - started
            return Evaluation(rules, Position(rules, state), total, key, Position(rules, canonical), mirrored, components, stats)
        return None

    def stored_message(self, ruleset: str, text: str, chosen: Sequence[str], brief: bool) -> pb.Evaluation | None:
        """The reply for a stored position, built here, or ``None`` when something must be computed."""
        if brief and tuple(chosen) == ("ascii",):
            return self.stored_brief(ruleset, text)
        rules, state = self.parse(ruleset, text)
        stored = self._lookup(rules, state, time.perf_counter())
        return None if stored is None else convert.evaluation_message(stored, chosen, brief=brief)

    # -- heavy paths -------------------------------------------------------------------------------
    def evaluate(self, ruleset: str, text: str, chosen: Sequence[str], brief: bool, max_positions: int,
                 budget: Budget) -> tuple[pb.Evaluation, bool]:
        """One position's reply: from the store, else computed once for all identical calls in flight."""
        message = self.stored_message(ruleset, text, chosen, brief)
        if message is not None:
            self.counters.record(message)
            return message, False
        rules, state = self.parse(ruleset, text)
        key = (rules.key(rules.normalise(state)[0]), tasks.position_limit(self.limits, max_positions))
        args = (rules.name, text, tuple(chosen), brief, max_positions)
        data, shared = self.flight.run(key, lambda: self.run("evaluate_one", args, budget), budget.should_cancel)
        message = pb.Evaluation.FromString(data)
        if shared and not _fits(message, text, chosen, brief):
            again = self.stored_message(ruleset, text, chosen, brief)  # another spelling: stored by now
            message = again if again is not None else pb.Evaluation.FromString(self.run("evaluate_one", args, budget))
        message.shared = shared
        self.counters.record(message, shared)
        return message, shared

    # -- the RPCs -------------------------------------------------------------------------------
    @rpc_method
    def Evaluate(self, request: pb.EvaluateRequest, context: grpc.ServicerContext) -> pb.Evaluation:
        message, _ = self.evaluate(request.ruleset, request.position, convert.styles(request.notations), False,
                                   request.max_positions, self.budget(context))
        return message

    @rpc_method
    def EvaluateBatch(self, request: pb.EvaluateBatchRequest, context: grpc.ServicerContext) -> pb.EvaluateBatchResponse:
        self.check_batch(request.positions)
        rules = get_ruleset(request.ruleset)  # an unknown ruleset fails the whole call
        chosen = convert.styles(request.notations)
        budget = self.budget(context)
        reply = pb.EvaluateBatchResponse()
        todo: list[tuple[int, str]] = []
        if request.brief and tuple(chosen) == ("ascii",):  # stored items answered in bulk (ruma load)
            todo, answered = answer_stored_briefs(self.memo, self.limits, rules, request.positions, reply,
                                                  lambda error: _status(error, context), self.templates)
            self.counters.record_hits(answered)
        else:
            for index, text in enumerate(request.positions):
                item = reply.items.add(position=text)
                try:
                    message = self.stored_message(request.ruleset, text, chosen, request.brief)
                except Exception as error:  # noqa: BLE001 - one bad item must not fail the others
                    item.status.code, item.status.message = _status(error, context)
                    continue
                if message is None:
                    todo.append((index, text))
                else:
                    self.counters.record(message)
                    item.evaluation.CopyFrom(message)
        args = (rules.name, tuple(chosen), request.brief, request.max_positions, request.max_seconds)
        retry = False
        while todo:
            done = self.value_batch(todo, args, budget, retry)
            for index, result in done:
                item = reply.items[index]
                if isinstance(result, bytes):
                    message = pb.Evaluation.FromString(result)
                    self.counters.record(message)
                    item.evaluation.CopyFrom(message)
                else:
                    failure = result if isinstance(result, BaseException) else from_wire(*result)
                    item.status.code, item.status.message = _status(failure, context)
            reached = {index for index, _ in done}
            todo = [(index, text) for index, text in todo if index not in reached]
            budget, retry = tasks.renewed(budget), True  # (a worker stopped for memory: the rest go to another)
        return reply

    def value_batch(self, todo: list[tuple[int, str]], args: tuple[Any, ...], budget: Budget,
                    retry: bool = False) -> list[tuple[int, Any]]:
        """The ``evaluate_batch`` task on ``todo``: ``(index, message bytes, wire error or error)``
        for the items it reached. A refusal by admission fails every item of ``todo`` with it,
        unless ``retry``: then admission is asked again for up to ``ADMISSION_RETRY`` seconds
        (after a worker stopped for memory, the pool needs a moment to replace it)."""
        name, chosen, brief, max_positions, seconds = args
        waited = 0.0
        while True:
            try:
                done: list[tuple[int, Any]] = self.run(
                    "evaluate_batch", (name, todo, chosen, brief, max_positions, seconds), budget)
            except LimitExceededError as refused:
                if budget.reason is None and retry and waited < ADMISSION_RETRY:
                    time.sleep(0.25)
                    waited += 0.25
                    continue
                if budget.reason is not None and budget.reason != "memory":
                    raise
                return [(index, refused) for index, _ in todo]
            if not done:  # stopped before its first item: every item gets the reason
                return [(index, budget.error(f"evaluation of {text[:60]!r}")) for index, text in todo]
            return done

    @rpc_method
    def Lookup(self, request: pb.LookupRequest, context: grpc.ServicerContext) -> pb.LookupResponse:
        self.check_batch(request.positions)
        get_ruleset(request.ruleset)
        chosen = convert.styles(request.notations)
        reply = pb.LookupResponse()
        for text in request.positions:
            item = reply.items.add(position=text)
            try:
                evaluation = self.lookup(request.ruleset, text)
                if evaluation is not None:
                    item.evaluation.CopyFrom(convert.evaluation_message(evaluation, chosen))
                    item.found = True
            except Exception as error:  # noqa: BLE001
                item.ClearField("evaluation")
                item.found = False
                item.status.code, item.status.message = _status(error, context)
        return reply

    @rpc_method
    def Compare(self, request: pb.CompareRequest, context: grpc.ServicerContext) -> pb.CompareResponse:
        reply: pb.CompareResponse = pb.CompareResponse.FromString(
            self.run("compare", (request.SerializeToString(),), self.budget(context)))
        return reply

    @rpc_method
    def Sum(self, request: pb.SumRequest, context: grpc.ServicerContext) -> pb.SumResponse:
        reply: pb.SumResponse = pb.SumResponse.FromString(
            self.run("sum_of", (request.SerializeToString(),), self.budget(context)))
        return reply

    @rpc_method
    def Options(self, request: pb.OptionsRequest, context: grpc.ServicerContext) -> pb.OptionsResponse:
        self.parse(request.ruleset, request.position)  # bad input is refused before a worker is taken
        data = self.run("options", (request.ruleset, request.position, convert.styles(request.notations)),
                        self.budget(context))
        reply: pb.OptionsResponse = pb.OptionsResponse.FromString(data)
        return reply

    @rpc_method
    def GetCapabilities(self, request: pb.GetCapabilitiesRequest, context: grpc.ServicerContext) -> pb.Capabilities:
        limits = self.limits
        reply = pb.Capabilities(
            limits=pb.Limits(max_pots=limits.max_pots or 0, max_seeds=limits.max_seeds or 0,
                             max_positions=limits.max_positions or 0, max_seconds=limits.max_seconds or 0,
                             max_memory=limits.memory_budget or 0, eval_workers=_workers(self.runner),
                             max_queue=limits.max_queue, max_text=limits.max_text,
                             max_birthday=EXPRESSION_LIMITS.max_birthday, max_nimber=EXPRESSION_LIMITS.max_nimber,
                             max_depth=EXPRESSION_LIMITS.max_depth),
            max_batch_size=limits.max_batch_size,
            notations=[pb.NOTATION_ASCII, pb.NOTATION_UNICODE, pb.NOTATION_BRACES],
            server_version=SERVER_VERSION,
            engine_version=ENGINE_VERSION,
            auth_required=self.auth_required,
            services=self.services,
        )
        for name in ruleset_names():
            info = reply.rulesets.add(name=name)
            family, _, _ = name.partition(":")
            try:
                rules = get_ruleset(name if ":" not in name else _EXAMPLE_PARAMETER.get(family, name))
            except Exception:  # noqa: BLE001 - a ruleset module not built yet is listed by name only
                continue
            info.code, info.version, info.impartial = rules.code, rules.version, rules.impartial
            info.description = ruleset_description(name)
        return reply

    @rpc_method
    def GetStats(self, request: pb.GetStatsRequest, context: grpc.ServicerContext) -> pb.Stats:
        from ruma.server.work.pool import _rss

        counters = self.counters
        store_stats: dict[str, Any] = {}
        stats_method = getattr(self.store, "stats", None)
        if callable(stats_method):
            store_stats = dict(stats_method())
        pool = self.runner.stats()
        with counters.lock:
            return pb.Stats(
                store_entries=int(store_stats.get("entries") or 0) + int(store_stats.get("buffered") or 0),
                store_bytes=int(store_stats.get("bytes", store_stats.get("size_bytes", 0)) or 0),
                hits=counters.hits,
                misses=counters.misses,
                evaluations_in_flight=pool["busy"],
                evaluations_total=counters.total,
                positions_valued=counters.positions_valued,
                shared=counters.shared,
                uptime_seconds=time.monotonic() - counters.started,
                workers_busy=pool["busy"],
                queued=pool["queued"],
                worker_memory=pool["memory"],
                server_memory=_rss(),
                refused=pool["refused"],
                workers_recycled=pool["recycled"],
            )

    def check_batch(self, positions: Sequence[str]) -> None:
        """Refuse batches larger than the server accepts."""
        if len(positions) > self.limits.max_batch_size:
            raise LimitExceededError(f"batch of {len(positions)} positions; this server's limit is {self.limits.max_batch_size}")


#: seconds ``EvaluateBatch`` asks admission again for the items a worker stopped for memory did not reach
ADMISSION_RETRY = 5.0
#: a parameter used to describe a parametrised ruleset family in GetCapabilities
_EXAMPLE_PARAMETER = {"octal": "octal:0.07"}


def _fits(message: pb.Evaluation, text: str, chosen: Sequence[str], brief: bool) -> bool:
    """Whether another call's reply is exactly the one this call asked for."""
    styles = {field.name for field, _ in message.value.ListFields()}
    return message.position == text and styles == set(chosen) and message.HasField("analysis") != brief


def _workers(runner: Any) -> int:
    return int(getattr(runner, "size", 0))


def _status(error: BaseException, context: grpc.ServicerContext) -> tuple[int, str]:
    code, message = status_of(error, context)
    return code.value[0], message


class ServiceValuer:
    """The catalog's valuer in the server (``ruma.server.catalog.valuing``): stored values are read
    here, everything else is a task on the evaluation workers within the call's budget."""

    def __init__(self, servicer: RumaServicer, budget: Budget) -> None:
        self.servicer, self.budget = servicer, budget

    def value_fields(self, ruleset: str, position: str, source_value: str | None) -> dict[str, Any]:
        """Value fields of one position."""
        from ruma.server.catalog.valuing import value_fields

        servicer = self.servicer
        rules, state = servicer.parse(ruleset, position)
        stored = servicer._lookup(rules, state, time.perf_counter())
        if stored is not None:
            return value_fields(lambda r, p: stored, ruleset, position, source_value,
                                lambda text: tasks.parse_value(servicer.limits, text))
        return dict(servicer.run("catalog_value", (rules.name, position, source_value), self.budget))

    def verify(self, ruleset: str, family: str, domain: str, claim: str, kind: str, up_to: int) -> dict[str, Any]:
        """Check a theorem's instances on a worker."""
        return dict(self.servicer.run("catalog_verify", (ruleset, family, domain, claim, kind, up_to), self.budget))

    def search_stored(self, ruleset: str, value: str, limit: int) -> list[dict[str, Any]]:
        """Stored positions with a value, searched on a worker."""
        return list(self.servicer.run("catalog_search_stored", (ruleset, value, limit), self.budget))
