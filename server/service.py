"""The ``ruma.v1.Ruma`` servicer: protobuf in → engine call → protobuf out.

Errors are not handled here: every method is wrapped by ``ruma.server.errors.rpc_method`` (and
batch items use ``status_of``), which maps engine errors to status codes in one place.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any, Callable, Iterator, Sequence

import grpc

from ruma.engine import ENGINE_VERSION
from ruma.engine.cgt import ZERO, Game
from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError
from ruma.engine.evaluator import ComponentValue, EvalStats, Evaluation, evaluate
from ruma.engine.memo import Memo
from ruma.engine.rulesets import get_ruleset, ruleset_description, ruleset_names
from ruma.engine.rulesets.base import Position, Ruleset, State
from ruma.server import convert
from ruma.server.errors import rpc_method, status_of
from ruma.server.cache import CachedMemo
from ruma.server.inflight import SingleFlight
from ruma.server.limits import Limits
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc

SERVER_VERSION = "0.1.0"
ShouldCancel = Callable[[], bool]


def cancel_check(context: grpc.ServicerContext) -> ShouldCancel:
    """A cheap ``should_cancel`` for the evaluator: the client's deadline passed or it went away."""
    remaining = context.time_remaining()
    deadline = None if remaining is None or remaining > 1e9 else time.monotonic() + remaining

    def should_cancel() -> bool:
        if deadline is not None and time.monotonic() >= deadline:
            return True
        return not context.is_active()

    return should_cancel


class Counters:
    """The service's statistics since start (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.hits = self.misses = self.total = self.positions_valued = self.shared = 0

    def record(self, evaluation: Evaluation | None, shared: bool = False) -> None:
        """Count one answered evaluation (``None``: a store hit answered without an ``Evaluation``)."""
        with self.lock:
            self.total += 1
            if evaluation is None:
                self.hits += 1
            elif shared:
                self.shared += 1
            elif evaluation.from_memo:
                self.hits += 1
            else:
                self.misses += 1
                self.positions_valued += evaluation.stats.positions_valued


class RumaServicer(ruma_pb2_grpc.RumaServicer):
    """Thin servicer over ``ruma.engine.evaluator`` and a store implementing ``Memo``."""

    def __init__(self, store: Memo, limits: Limits | None = None, services: Sequence[str] = (), auth_required: bool = False,
                 cache_size: int = 500_000) -> None:
        self.store = store
        self.memo = CachedMemo(store, cache_size)
        self.limits = limits or Limits()
        self.flight: SingleFlight[Evaluation] = SingleFlight()
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

    # -- the engine calls ---------------------------------------------------------------------
    def parse(self, ruleset: str, text: str) -> tuple[Ruleset, State]:
        """Parse and check a position against the limits."""
        rules = get_ruleset(ruleset)
        if not isinstance(text, str) or not text.strip():
            raise RumaInputError(f"empty position {text!r} for {rules.name}")
        state = rules.parse(text)
        pots, seeds = rules.size(state)
        limits = self.limits
        if limits.max_pots is not None and pots > limits.max_pots:
            raise LimitExceededError(f"position {text!r} has {pots} pots/heaps; this server's limit is {limits.max_pots}")
        if limits.max_seeds is not None and seeds > limits.max_seeds:
            raise LimitExceededError(f"position {text!r} has {seeds} seeds/tokens; this server's limit is {limits.max_seeds}")
        return rules, state

    def position_limit(self, requested: int) -> int | None:
        """The positions one evaluation may compute: the request's, capped by the server's."""
        server = self.limits.max_positions
        if requested and (server is None or requested < server):
            return requested
        return server

    def evaluate(self, ruleset: str, text: str, should_cancel: ShouldCancel, max_positions: int = 0) -> tuple[Evaluation, bool]:
        """Value one position through the store, coalescing identical requests in flight."""
        started = time.perf_counter()
        rules, state = self.parse(ruleset, text)
        limit = self.position_limit(max_positions)
        memo = self.memo
        with self.busy():
            stored = self._lookup(rules, state, started)  # stored already: no search, no flight
            if stored is not None:
                self.counters.record(stored, False)
                return stored, False
            canonical, _ = rules.normalise(state)
            evaluation, shared = self.flight.run(
                (rules.key(canonical), limit),
                lambda: evaluate(rules, state, memo, should_cancel=should_cancel, max_positions=limit),
                should_cancel,
            )
            if evaluation.position.state != state:  # shared with another spelling or orientation:
                evaluation = evaluate(rules, state, memo, should_cancel=should_cancel, max_positions=limit)
        self.counters.record(evaluation, shared)
        return evaluation, shared

    def stored_brief(self, ruleset: str, text: str) -> pb.Evaluation | None:
        """The brief reply for a position whose whole canonical key is stored, else ``None``."""
        rules, state = self.parse(ruleset, text)
        canonical, mirrored = rules.normalise(state)
        key = rules.key(canonical)
        stored = self.memo.lookup(key)
        if stored is None:
            return None
        value = -stored if mirrored and isinstance(stored, Game) else stored
        self.counters.record(None)
        return pb.Evaluation(ruleset=rules.name, ruleset_version=rules.version, position=text, key=key,
                             mirrored=mirrored, value=convert.value_message(value, ("ascii",)), from_store=True)

    def lookup(self, ruleset: str, text: str) -> Evaluation | None:
        """The stored value of a position (whole, or as a sum of stored components), never computing."""
        started = time.perf_counter()
        rules, state = self.parse(ruleset, text)
        with self.busy():
            return self._lookup(rules, state, started)

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

    def operand(self, operand: pb.Operand, should_cancel: ShouldCancel) -> Game:
        """The value of a position or a value expression, as a game."""
        from ruma.engine.cgt.notation import parse_game

        kind = operand.WhichOneof("kind")
        if kind == "expression":
            return parse_game(operand.expression)
        if kind == "position":
            evaluation, _ = self.evaluate(operand.position.ruleset, operand.position.position, should_cancel)
            return evaluation.game
        raise RumaInputError("an operand needs a position (ruleset and position) or a value expression")

    # -- the RPCs -------------------------------------------------------------------------------
    @rpc_method
    def Evaluate(self, request: pb.EvaluateRequest, context: grpc.ServicerContext) -> pb.Evaluation:
        evaluation, shared = self.evaluate(request.ruleset, request.position, cancel_check(context), request.max_positions)
        return convert.evaluation_message(evaluation, convert.styles(request.notations), shared=shared)

    @rpc_method
    def EvaluateBatch(self, request: pb.EvaluateBatchRequest, context: grpc.ServicerContext) -> pb.EvaluateBatchResponse:
        self.check_batch(request.positions)
        get_ruleset(request.ruleset)  # an unknown ruleset fails the whole call
        chosen = convert.styles(request.notations)
        brief_ascii = request.brief and chosen == ("ascii",)
        should_cancel = cancel_check(context)
        reply = pb.EvaluateBatchResponse()
        for text in request.positions:
            item = reply.items.add(position=text)
            try:
                if brief_ascii:
                    fast = self.stored_brief(request.ruleset, text)
                    if fast is not None:
                        item.evaluation.CopyFrom(fast)
                        continue
                evaluation, shared = self.evaluate(request.ruleset, text, should_cancel, request.max_positions)
                item.evaluation.CopyFrom(convert.evaluation_message(evaluation, chosen, shared=shared, brief=request.brief))
            except CancelledError:
                if should_cancel():
                    raise  # the whole call is over
                item.status.code, item.status.message = _status(CancelledError("cancelled"), context)
            except Exception as error:  # noqa: BLE001 - one bad item must not fail the others
                item.ClearField("evaluation")
                item.status.code, item.status.message = _status(error, context)
        return reply

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
            except Exception as error:  # noqa: BLE001
                item.status.code, item.status.message = _status(error, context)
                continue
            if evaluation is not None:
                try:
                    item.evaluation.CopyFrom(convert.evaluation_message(evaluation, chosen))
                    item.found = True
                except Exception as error:  # noqa: BLE001
                    item.ClearField("evaluation")
                    item.status.code, item.status.message = _status(error, context)
        return reply

    @rpc_method
    def Compare(self, request: pb.CompareRequest, context: grpc.ServicerContext) -> pb.CompareResponse:
        should_cancel = cancel_check(context)
        a, b = self.operand(request.a, should_cancel), self.operand(request.b, should_cancel)
        if a == b:
            relation = pb.RELATION_EQUAL
        elif a >= b:
            relation = pb.RELATION_GREATER
        elif a <= b:
            relation = pb.RELATION_LESS
        else:
            relation = pb.RELATION_CONFUSED
        chosen = convert.styles(request.notations)
        return pb.CompareResponse(
            relation=relation,
            a=convert.value_message(a, chosen),
            b=convert.value_message(b, chosen),
            difference=convert.value_message(a - b, chosen),
        )

    @rpc_method
    def Sum(self, request: pb.SumRequest, context: grpc.ServicerContext) -> pb.SumResponse:
        if not request.terms:
            raise RumaInputError("a sum needs at least one term")
        should_cancel = cancel_check(context)
        terms = [self.operand(term, should_cancel) for term in request.terms]
        total = ZERO
        for term in terms:
            total = total + term
        chosen = convert.styles(request.notations)
        return pb.SumResponse(
            value=convert.value_message(total, chosen),
            analysis=convert.analysis_message(total),
            terms=[convert.value_message(term, chosen) for term in terms],
        )

    @rpc_method
    def Options(self, request: pb.OptionsRequest, context: grpc.ServicerContext) -> pb.OptionsResponse:
        should_cancel = cancel_check(context)
        chosen = convert.styles(request.notations)
        evaluation, shared = self.evaluate(request.ruleset, request.position, should_cancel)
        rules, state = evaluation.ruleset, evaluation.position.state

        def valued(options: Any) -> list[pb.Option]:
            out = []
            for option in options:
                with self.busy():
                    value = evaluate(rules, option, self.memo, should_cancel=should_cancel,
                                     max_positions=self.limits.max_positions).value
                out.append(convert.option_message(rules.format(option), value, chosen))
            return out

        left = valued(rules.options(state) if rules.impartial else rules.left_options(state))
        right = left if rules.impartial else valued(rules.right_options(state))
        return pb.OptionsResponse(evaluation=convert.evaluation_message(evaluation, chosen, shared=shared), left=left, right=right)

    @rpc_method
    def GetCapabilities(self, request: pb.GetCapabilitiesRequest, context: grpc.ServicerContext) -> pb.Capabilities:
        limits = self.limits
        reply = pb.Capabilities(
            limits=pb.Limits(max_pots=limits.max_pots or 0, max_seeds=limits.max_seeds or 0, max_positions=limits.max_positions or 0),
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
        counters = self.counters
        store_stats: dict[str, Any] = {}
        stats_method = getattr(self.store, "stats", None)
        if callable(stats_method):
            store_stats = dict(stats_method())
        with counters.lock:
            return pb.Stats(
                store_entries=int(store_stats.get("entries") or 0) + int(store_stats.get("buffered") or 0),
                store_bytes=int(store_stats.get("bytes", store_stats.get("size_bytes", 0)) or 0),
                hits=counters.hits,
                misses=counters.misses,
                evaluations_in_flight=self.flight.in_flight(),
                evaluations_total=counters.total,
                positions_valued=counters.positions_valued,
                shared=counters.shared,
                uptime_seconds=time.monotonic() - counters.started,
            )

    def check_batch(self, positions: Sequence[str]) -> None:
        """Refuse batches larger than the server accepts."""
        if len(positions) > self.limits.max_batch_size:
            raise LimitExceededError(f"batch of {len(positions)} positions; this server's limit is {self.limits.max_batch_size}")


#: a parameter used to describe a parametrised ruleset family in GetCapabilities
_EXAMPLE_PARAMETER = {"octal": "octal:0.07"}


def _status(error: BaseException, context: grpc.ServicerContext) -> tuple[int, str]:
    code, message = status_of(error, context)
    return code.value[0], message
