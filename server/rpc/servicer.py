"""The ``ruma.v1.Ruma`` servicer: protobuf in → a task on a worker → protobuf out.

Every method is a coroutine on the server's event loop, and nothing in this process touches the
engine's values: the runner (``ruma.server.work.pool``) does. **Stored** lookups — a position whose
value is stored (whole, or as a sum of stored components), ``Lookup``, ``EvaluateBatch``'s stored
items — are read tasks (``ruma.server.work.reads``) on the reader workers, which never queue behind
computation. **Heavy** work — anything that may compute: an unstored position, ``Options``, ``Sum``,
``Compare`` and the catalog's evaluations — is a task of ``ruma.server.work.tasks`` on the
evaluation workers, admitted to a bounded queue and ended within the call's ``Budget``
(``ruma.server.work.budget``). Identical evaluations in flight are computed once (single-flight
keyed by the canonical key and the position limit).

Errors are not handled here: every method is wrapped by ``ruma.server.rpc.errors.rpc_method`` (and
batch items use ``status_of``), which maps errors to status codes in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import grpc

from ruma.engine import ENGINE_VERSION
from ruma.engine.cgt.expression import DEFAULT_LIMITS as EXPRESSION_LIMITS
from ruma.engine.errors import LimitExceededError
from ruma.engine.memo import Memo, capabilities
from ruma.engine.rulesets import ruleset_description, ruleset_names, sample_ruleset
from ruma.engine.stores import Store
from ruma.server.rpc.admission import ARRIVED, RESERVED, Undecoded
from ruma.server.rpc.errors import from_wire, rpc_method, status_of
from ruma.server.rpc.inflight import SingleFlight
from ruma.server.work import convert
from ruma.server.work.budget import Budget
from ruma.server.work.cache import CachedMemo
from ruma.server.work.disk import check_room
from ruma.server.work.inline import InlineRunner
from ruma.server.work.limits import Limits
from ruma.server.work.reads import Refusal
from ruma.server.work.tasks import check_batch, not_valued
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc

SERVER_VERSION = "0.1.0"
__all__ = ["Limits", "RumaServicer", "SERVER_VERSION"]

#: heavy tasks that never write to the store (the others are refused at once on a full disk)
READ_ONLY_TASKS = frozenset({"sum_of", "compare", "canonical_value", "catalog_search_stored", "sweep_verify"})


class Counters:
    """The service's statistics since start (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.hits = self.misses = self.total = self.positions_valued = self.shared = 0
        self.corrected = 0  # uploaded values found wrong and replaced (``store.provenance``)

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
    """The servicer over a store implementing ``Memo`` and a runner for reads and heavy work."""

    def __init__(self, store: Memo, limits: Limits | None = None, services: Sequence[str] = (), auth_required: bool = False,
                 cache_size: int = 500_000, runner: Any = None, data_dir: Path | None = None) -> None:
        self.store = store
        #: the store as a persistent ``Store`` (provenance, statistics, snapshots), else ``None``
        self.persistent: Store | None = capabilities(store).store
        self.memo = CachedMemo(store, cache_size)
        self.limits = limits or Limits()
        self.runner = runner if runner is not None else InlineRunner(self.memo, store, self.limits)
        self.data_dir = data_dir
        self.flight: SingleFlight[bytes] = SingleFlight()
        self.counters = Counters()
        self.services = list(services)
        self.auth_required = auth_required
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's event loop (set by the app)
        self._active = 0
        self._idle = threading.Condition()

    def _enter(self) -> None:
        with self._idle:
            self._active += 1

    def _leave(self) -> None:
        with self._idle:
            self._active -= 1
            if not self._active:
                self._idle.notify_all()

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """Mark work on the store in progress from a thread (``wait_idle`` waits for it to end)."""
        self._enter()
        try:
            yield
        finally:
            self._leave()

    def idle(self) -> bool:
        """Whether no engine call is running now."""
        return self._active == 0

    def mark_unverified(self, replies: Iterable[pb.Evaluation]) -> None:
        """Mark the stored replies whose value (or a component's) is an upload the server has not
        re-valued yet (``store.provenance``): one read for all of them; none, and ``replies`` not
        even gone through, when the store holds no unverified upload (the common case)."""
        if self.persistent is None or not self.persistent.provenance.unverified_count():
            return
        among = self.persistent.provenance.unverified_among
        messages = list(replies)
        keys = [[message.key, *(c.key for c in message.components)] for message in messages]
        flags = iter(among([key for group in keys for key in group]))
        for message, group in zip(messages, keys):
            if any([next(flags) for _ in group]):
                message.unverified = True

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no task is running for a call (after shutdown cancelled them); True if idle."""
        with self._idle:
            return self._idle.wait_for(lambda: self._active == 0, timeout)

    def budget(self, context: Any) -> Budget:
        """The budget of a call: its deadline, the server's time limit from its arrival, its liveness."""
        return Budget.for_call(context, self.limits.max_seconds, self.limits.memory_budget, ARRIVED.get())

    async def run(self, name: str, args: tuple[Any, ...], budget: Budget) -> Any:
        """Run a heavy task (``ruma.server.work.tasks``) on an evaluation worker (refused for a call
        admitted to the capacity kept for stored lookups: ``admission.RESERVED``)."""
        if RESERVED.get():
            raise LimitExceededError("this server is full (it has as many calls open as it takes but for those kept for "
                                     "stored lookups): only stored values are served now; try again later")
        if self.data_dir is not None and name not in READ_ONLY_TASKS:
            check_room(self.data_dir)  # a full disk is refused before anything is computed
        self._enter()
        try:
            return await self.runner.run(name, args, budget)
        finally:
            self._leave()
            if self.persistent is not None:
                self.persistent.refresh()

    async def read(self, name: str, args: tuple[Any, ...], budget: Budget, large: bool = False) -> Any:
        """Run a stored lookup (``ruma.server.work.reads``) on a reader worker (``large``: a big one,
        which leaves a reader free for the others)."""
        self._enter()
        try:
            return await self.runner.read(name, args, budget, large=large)
        finally:
            self._leave()

    def blocking(self, coroutine: Any) -> Any:
        """Run one of this servicer's coroutines from another thread (the catalog's) and wait for it."""
        assert self.loop is not None, "the servicer has no event loop yet"
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    # -- evaluations -------------------------------------------------------------------------------
    async def evaluate(self, ruleset: str, text: str, chosen: Sequence[str], brief: bool, max_positions: int,
                       budget: Budget) -> tuple[pb.Evaluation, bool]:
        """One position's reply: from the store, else computed once for all identical calls in flight."""
        found = await self.read("stored_evaluate", (ruleset, text, tuple(chosen), brief, max_positions), budget)
        if isinstance(found, bytes):
            message = pb.Evaluation.FromString(found)
            self.mark_unverified([message])
            self.counters.record(message)
            return message, False
        args = (ruleset, text, tuple(chosen), brief, max_positions)
        data, shared = await self.flight.run(tuple(found), lambda: self.run("evaluate_one", args, budget), budget)
        message = pb.Evaluation.FromString(data)
        if shared and not _fits(message, text, chosen, brief):  # another spelling: stored by now
            again = await self.read("stored_evaluate", (ruleset, text, tuple(chosen), brief, max_positions), budget)
            message = pb.Evaluation.FromString(again if isinstance(again, bytes) else
                                               await self.run("evaluate_one", args, budget))
        message.shared = shared
        self.counters.record(message, shared)
        return message, shared

    @rpc_method
    async def Evaluate(self, request: pb.EvaluateRequest, context: grpc.aio.ServicerContext) -> pb.Evaluation:
        message, _ = await self.evaluate(request.ruleset, request.position, convert.styles(request.notations), False,
                                         request.max_positions, self.budget(context))
        return message

    @rpc_method
    async def EvaluateBatch(self, request: pb.EvaluateBatchRequest | Undecoded,
                            context: grpc.aio.ServicerContext) -> pb.EvaluateBatchResponse:
        budget = self.budget(context)
        if isinstance(request, Undecoded):  # decoded, checked and looked up by a reader
            head, (data, refused, todo, hits) = await self.read("stored_batch_message", (request.raw,), budget, large=True)
            asked = pb.EvaluateBatchRequest.FromString(head)
        else:
            asked = request
            self.check_batch(asked.positions)
            data, refused, todo, hits = await self.read(
                "stored_batch", (asked.ruleset, list(asked.positions), convert.styles(asked.notations), asked.brief),
                budget, large=len(asked.positions) > LARGE_BATCH)
        chosen = convert.styles(asked.notations)
        reply: pb.EvaluateBatchResponse = pb.EvaluateBatchResponse.FromString(data)
        await _refuse(reply.items, refused, context)
        self.counters.record_hits(hits)
        self.mark_unverified(item.evaluation for item in reply.items if item.evaluation.from_store)
        args = (asked.ruleset, tuple(chosen), asked.brief, asked.max_positions, asked.max_seconds)
        retry = False
        while todo:
            done = await self.value_batch(todo, args, budget, retry)
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
            budget, retry = budget.renewed(), True  # (a worker stopped for memory: the rest go to another)
        bound_reply(reply, context)
        return reply

    async def value_batch(self, todo: list[tuple[int, str]], args: tuple[Any, ...], budget: Budget,
                          retry: bool = False) -> list[tuple[int, Any]]:
        """The ``evaluate_batch`` task on ``todo``: ``(index, message bytes, wire error or error)``
        for the items it reached. A refusal by admission fails every item of ``todo`` with it,
        unless ``retry``: then admission is asked again for up to ``ADMISSION_RETRY`` seconds
        (after a worker stopped for memory, the pool needs a moment to replace it). When the
        call's time runs out before the task answers, every item gets ``not_valued``."""
        name, chosen, brief, max_positions, seconds = args
        waited = 0.0
        while True:
            try:
                done: list[tuple[int, Any]] = await self.run(
                    "evaluate_batch", (name, todo, chosen, brief, max_positions, seconds), budget)
            except LimitExceededError as refused:
                if budget.reason is None and retry and waited < ADMISSION_RETRY:
                    await asyncio.sleep(0.25)
                    waited += 0.25
                    continue
                if budget.reason == "time":  # (waiting for a worker: no item was reached)
                    return [(index, not_valued(f"evaluation of {text[:60]!r}", refused)) for index, text in todo]
                if budget.reason is not None and budget.reason != "memory":
                    raise
                return [(index, refused) for index, _ in todo]
            if not done:  # stopped before its first item: every item gets the reason
                return [(index, budget.error(f"evaluation of {text[:60]!r}")) for index, text in todo]
            return done

    @rpc_method
    async def Lookup(self, request: pb.LookupRequest | Undecoded, context: grpc.aio.ServicerContext) -> pb.LookupResponse:
        budget = self.budget(context)
        if isinstance(request, Undecoded):  # decoded and checked by a reader
            data, refused = await self.read("lookup_message", (request.raw,), budget, large=True)
        else:
            self.check_batch(request.positions)
            data, refused = await self.read("lookup_items", (request.ruleset, list(request.positions),
                                                             convert.styles(request.notations)), budget,
                                            large=len(request.positions) > LARGE_BATCH)
        reply: pb.LookupResponse = pb.LookupResponse.FromString(data)
        await _refuse(reply.items, refused, context)
        self.mark_unverified(item.evaluation for item in reply.items if item.found)
        bound_reply(reply, context)
        return reply

    @rpc_method
    async def Compare(self, request: pb.CompareRequest, context: grpc.aio.ServicerContext) -> pb.CompareResponse:
        reply: pb.CompareResponse = pb.CompareResponse.FromString(
            await self.run("compare", (request.SerializeToString(),), self.budget(context)))
        return reply

    @rpc_method
    async def Sum(self, request: pb.SumRequest, context: grpc.aio.ServicerContext) -> pb.SumResponse:
        reply: pb.SumResponse = pb.SumResponse.FromString(
            await self.run("sum_of", (request.SerializeToString(),), self.budget(context)))
        return reply

    @rpc_method
    async def Options(self, request: pb.OptionsRequest, context: grpc.aio.ServicerContext) -> pb.OptionsResponse:
        budget = self.budget(context)
        await self.read("check_position", (request.ruleset, request.position), budget)  # refused before the queue
        data = await self.run("options", (request.ruleset, request.position, convert.styles(request.notations)), budget)
        reply: pb.OptionsResponse = pb.OptionsResponse.FromString(data)
        return reply

    # -- about the service --------------------------------------------------------------------------
    @rpc_method
    async def GetCapabilities(self, request: pb.GetCapabilitiesRequest,
                              context: grpc.aio.ServicerContext) -> pb.Capabilities:
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
            try:
                rules = sample_ruleset(name)  # (a family, octal:CODE, by a member)
            except Exception:  # noqa: BLE001 - a ruleset module not built yet is listed by name only
                continue
            info.code, info.version, info.impartial = rules.code, rules.version, rules.impartial
            info.description = ruleset_description(name)
        return reply

    @rpc_method
    async def GetStats(self, request: pb.GetStatsRequest, context: grpc.aio.ServicerContext) -> pb.Stats:
        from ruma.server.work.worker import rss

        store_stats: dict[str, Any] = {}
        if self.persistent is not None:
            stats_method = self.persistent.admin.stats
            store_stats = dict(await asyncio.get_running_loop().run_in_executor(None, stats_method))
        pool = self.runner.stats()
        counters = self.counters
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
                server_memory=rss(),
                refused=pool["refused"],
                workers_recycled=pool["recycled"],
                unverified_entries=self.persistent.provenance.unverified_count() if self.persistent is not None else 0,
                uploads_corrected=counters.corrected,
            )

    def check_batch(self, positions: Sequence[str]) -> None:
        """Refuse batches larger than the server accepts."""
        check_batch(self.limits, len(positions))


#: seconds ``EvaluateBatch`` asks admission again for the items a worker stopped for memory did not reach
ADMISSION_RETRY = 5.0
#: refused items whose status is set before other calls get the event loop
REFUSED_AT_ONCE = 1000
#: a batch of more positions than this is a large read (``read(large=True)``: it leaves a reader free)
LARGE_BATCH = 1000
#: the most bytes of one reply (gRPC's message limit, 64 MiB, less room for the message's framing)
MAX_REPLY = (64 << 20) - (64 << 10)
#: bytes a refused item of a reply takes beside its position (its status and message)
REFUSED_ITEM = 200


def _fits(message: pb.Evaluation, text: str, chosen: Sequence[str], brief: bool) -> bool:
    """Whether another call's reply is exactly the one this call asked for."""
    styles = {field.name for field, _ in message.value.ListFields()}
    return message.position == text and styles == set(chosen) and message.HasField("analysis") != brief


def _workers(runner: Any) -> int:
    return int(getattr(runner, "size", 0))


def _status(error: BaseException, context: Any) -> tuple[int, str]:
    code, message = status_of(error, context)
    return code.value[0], message


def bound_reply(reply: Any, context: Any, limit: int = MAX_REPLY) -> None:
    """Keep a batch reply (``EvaluateBatch``'s, ``Lookup``'s) within ``limit`` bytes: past it, each
    item that carries an evaluation gets RESOURCE_EXHAUSTED instead (asked again in a smaller call,
    it is answered)."""
    if reply.ByteSize() <= limit:
        return
    items = list(reply.items)
    sizes = [item.ByteSize() + 6 for item in items]  # (with its tag and length)
    refused = [len(item.position.encode()) + REFUSED_ITEM for item in items]  # what it takes refused
    rest = sum(refused)
    total = 0
    for item, size, small in zip(items, sizes, refused):
        rest -= small
        if total + size + rest > limit and item.HasField("evaluation"):
            item.ClearField("evaluation")
            if hasattr(item, "found"):
                item.found = False
            item.status.code, item.status.message = _status(LimitExceededError(
                f"the reply would pass {limit:,} bytes (the largest message this server sends); "
                f"ask for this position in a smaller batch"), context)
            size = item.ByteSize() + 6
        total += size


async def _refuse(items: Any, refused: list[Refusal], context: Any) -> None:
    """Set the status of the items a read task refused (a few hundred at a time: other calls are
    answered in between)."""
    statuses: dict[tuple[str, str], tuple[int, str]] = {}  # (many items fail alike)
    for number, (index, wire) in enumerate(refused, start=1):
        status = statuses.get(wire)
        if status is None:
            status = statuses[wire] = _status(from_wire(*wire), context)
        items[index].status.code, items[index].status.message = status
        if not number % REFUSED_AT_ONCE:
            await asyncio.sleep(0)


class ServiceValuer:
    """The catalog's valuer in the server (``ruma.server.catalog.valuing``), called from the catalog's
    threads: stored values are read by a reader worker, everything else is a task on the evaluation
    workers within the call's budget."""

    def __init__(self, servicer: RumaServicer, budget: Budget) -> None:
        self.servicer, self.budget = servicer, budget

    def value_fields(self, ruleset: str, position: str, source_value: str | None) -> dict[str, Any]:
        """Value fields of one position."""
        servicer = self.servicer
        found = servicer.blocking(servicer.read("stored_value_fields", (ruleset, position, source_value), self.budget))
        if found is not None:
            return dict(found)
        return dict(servicer.blocking(servicer.run("catalog_value", (ruleset, position, source_value), self.budget)))

    def verify(self, ruleset: str, family: str, domain: str, claim: str, kind: str, up_to: int) -> dict[str, Any]:
        """Check a theorem's instances on a worker."""
        servicer = self.servicer
        return dict(servicer.blocking(servicer.run("catalog_verify", (ruleset, family, domain, claim, kind, up_to),
                                                   self.budget)))

    def search_stored(self, ruleset: str, value: str, limit: int) -> list[dict[str, Any]]:
        """Stored positions with a value, searched on a worker."""
        servicer = self.servicer
        return list(servicer.blocking(servicer.run("catalog_search_stored", (ruleset, value, limit), self.budget)))

    def canonical(self, value: str) -> str:
        """The canonical form of a value expression, built on a worker (a sum can take minutes of
        compiled canonicalisation, which must not hold this process)."""
        servicer = self.servicer
        return str(servicer.blocking(servicer.run("canonical_value", (value,), self.budget)))
