"""The ``ruma.v1.Catalog`` gRPC service: ``CatalogOps`` over the wire.

``add_catalog_servicer(server, catalog=None, store=None, data_dir=None, ruma=None)`` registers it
on the server's asyncio server; the SQL runs on the catalog's own threads (``THREADS``), and a call
that may evaluate waits for one of ``HEAVY`` of them as a coroutine, within its budget;
the catalog defaults to ``$RUMA_CATALOG_URL`` or SQLite in ``data_dir`` (migrated on open). Values
come through the Ruma servicer ``ruma`` (``ruma.server.rpc.servicer.ServiceValuer``): the same position
limits, time and memory budgets, single store and evaluation workers as ``Evaluate``; without it,
from ``store`` in this process. Writes (``WRITE_METHODS``) are declared to ``ruma.server.rpc.auth`` so
that a ``read`` token cannot call them.
"""

from __future__ import annotations

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, TypeVar

import grpc

from ruma.server.catalog.models import Catalog
from ruma.server.catalog.ops import CatalogOps
from ruma.server.rpc.auth import register_write_methods
from ruma.server.rpc.errors import rpc_method
from ruma.server.work.budget import Budget
from ruma.v1 import catalog_pb2 as pb
from ruma.v1 import catalog_pb2_grpc

T = TypeVar("T")
SERVICE = pb.DESCRIPTOR.services_by_name["Catalog"].full_name
#: threads running the catalog's SQL (and waiting for its evaluations); at most ``HEAVY`` of them
#: run calls that may evaluate, so the others always serve the catalog's plain reads
THREADS, HEAVY = 8, 6
WRITE_METHODS = tuple(f"/{SERVICE}/{m}" for m in
                      ("AddPosition", "RemovePosition", "AddTheorem", "VerifyTheorem", "Seed"))
register_write_methods(*WRITE_METHODS)


def _opt(value: Any) -> Any:
    return value if value not in ("", None) else None


def source_message(source: dict[str, Any]) -> pb.CatalogSource:
    """A ``CatalogSource`` from an ops ``source`` dict."""
    msg = pb.CatalogSource(paper=source.get("paper") or "", table=source.get("table") or "",
                           ref=source.get("ref") or "", value=source.get("value") or "")
    if source.get("page") is not None:
        msg.page = int(source["page"])
    return msg


def position_message(d: dict[str, Any]) -> pb.NamedPosition:
    """A ``NamedPosition`` message from an ops dict (with or without a value)."""
    msg = pb.NamedPosition(name=d["name"], ruleset=d["ruleset"], position=d["position"],
                           canonical_key=d["canonical_key"], tags=d["tags"], source=source_message(d["source"]),
                           notes=d.get("notes") or "", added_by=d.get("added_by") or "",
                           added_at=d.get("added_at") or "")
    if d.get("value") is not None:
        msg.has_value = True
        msg.value = d["value"]
        msg.outcome = d.get("outcome") or ""
        if d.get("nim_value") is not None:
            msg.nim_value = d["nim_value"]
    if d.get("error"):
        msg.notes = (msg.notes + "; " if msg.notes else "") + f"not evaluated: {d['error']}"
    if d.get("source_agrees") is not None:
        msg.source_agrees = d["source_agrees"]
    msg.unverified = bool(d.get("unverified"))
    return msg


def run_message(d: dict[str, Any]) -> pb.VerificationRun:
    """A ``VerificationRun`` message from an ops dict."""
    return pb.VerificationRun(
        theorem=d["theorem"], up_to=d["up_to"], bounds_json=json.dumps(d["bounds"]),
        instances_checked=d["instances_checked"], holds=d["holds"],
        counterexample_json=json.dumps(d["counterexample"]) if d["counterexample"] is not None else "",
        counterexample_position=d["counterexample_position"] or "",
        counterexample_value=d["counterexample_value"] or "", claimed_value=d["claimed_value"] or "",
        positions_valued=d["positions_valued"], engine_version=d["engine_version"],
        ruleset_version=d["ruleset_version"], milliseconds=d["milliseconds"], started_at=d["started_at"] or "")


def theorem_message(d: dict[str, Any]) -> pb.Theorem:
    """A ``Theorem`` message from an ops dict."""
    msg = pb.Theorem(name=d["name"], ruleset=d["ruleset"], family=d["family"], parameters=d["parameters"],
                     domain=d["domain"], claim=d["claim"], claim_kind=d["claim_kind"],
                     source=source_message(d["source"]), notes=d.get("notes") or "",
                     added_by=d.get("added_by") or "", added_at=d.get("added_at") or "")
    if d.get("last_run"):
        msg.last_run.CopyFrom(run_message(d["last_run"]))
    return msg


def _caller(context: Any) -> str | None:
    """Who added an entry: the peer address (tokens are secrets and never recorded)."""
    try:
        return str(context.peer())[:100]
    except Exception:  # noqa: BLE001 - provenance only
        return None


class CatalogServicer(catalog_pb2_grpc.CatalogServicer):
    """Serves ``CatalogOps``; verification runs are serialised (one at a time)."""

    def __init__(self, ops: CatalogOps, own_catalog: bool = False, ruma: Any = None, limits: Any = None) -> None:
        self.ops = ops
        self._own_catalog = own_catalog
        self.ruma = ruma
        self.limits = limits
        self.threads = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="ruma-catalog")
        self._heavy: asyncio.Semaphore | None = None
        self._verify: asyncio.Lock | None = None

    def _budget(self, context: Any) -> Budget:
        if self.ruma is not None:
            return self.ruma.budget(context)  # type: ignore[no-any-return]
        return Budget.for_call(context, getattr(self.limits, "max_seconds", None))

    def _valuer(self, budget: Budget) -> Any:
        """How this call values positions: through the Ruma servicer, else in this process."""
        if self.ruma is not None:
            from ruma.server.rpc.servicer import ServiceValuer

            return ServiceValuer(self.ruma, budget)
        from ruma.server.catalog.valuing import LocalValuer

        return LocalValuer(self.ops.memo, self.ops.store, self.ops.max_positions, budget.should_cancel)

    async def _sql(self, work: Callable[[], T], budget: Budget | None = None, what: str = "") -> T:
        """Run ``work`` on a catalog thread; with a ``budget``, as a call that may evaluate (one of
        ``HEAVY`` at a time, waited for within the budget)."""
        loop = asyncio.get_running_loop()
        if budget is None:
            return await loop.run_in_executor(self.threads, work)
        if self._heavy is None:
            self._heavy = asyncio.Semaphore(HEAVY)
        try:
            await asyncio.wait_for(self._heavy.acquire(), budget.remaining())
        except TimeoutError:
            raise budget.expired(f"{what or 'the request'} (waiting for the catalog)") from None
        try:
            return await loop.run_in_executor(self.threads, work)
        finally:
            self._heavy.release()

    def close(self) -> None:
        """Release the catalog's connections if this servicer opened it (the server calls this at stop)."""
        self.threads.shutdown(wait=False)
        if self._own_catalog:
            self.ops.catalog.close()

    @rpc_method
    async def AddPosition(self, request: pb.AddPositionRequest, context: Any) -> pb.NamedPosition:
        s, budget, caller = request.source, self._budget(context), _caller(context)

        def add() -> pb.NamedPosition:
            return position_message(self.ops.add_position(
                request.name, request.ruleset, request.position, tags=list(request.tags), notes=_opt(request.notes),
                source_paper=_opt(s.paper), source_table=_opt(s.table),
                source_page=s.page if s.HasField("page") else None, source_value=_opt(s.value),
                added_by=caller, replace=request.replace, valuer=self._valuer(budget)))

        return await self._sql(add, budget, f"adding {request.name[:60]!r}")

    @rpc_method
    async def RemovePosition(self, request: pb.RemovePositionRequest, context: Any) -> pb.RemovePositionResponse:
        return pb.RemovePositionResponse(removed=await self._sql(lambda: self.ops.remove_position(request.name)))

    @rpc_method
    async def ListPositions(self, request: pb.ListPositionsRequest, context: Any) -> pb.NamedPositions:
        found = await self._sql(lambda: self.ops.list_positions(
            name=_opt(request.name), tag=_opt(request.tag), ruleset=_opt(request.ruleset), limit=request.limit or None))
        return pb.NamedPositions(positions=[position_message(d) for d in found])

    @rpc_method
    async def ShowPosition(self, request: pb.ShowPositionRequest, context: Any) -> pb.NamedPosition:
        budget = self._budget(context)
        return position_message(await self._sql(lambda: self.ops.show(request.name, valuer=self._valuer(budget)),
                                                budget))

    @rpc_method
    async def SearchPositions(self, request: pb.SearchPositionsRequest, context: Any) -> pb.NamedPositions:
        budget = self._budget(context)
        found = await self._sql(lambda: self.ops.search(
            name=_opt(request.name), tag=_opt(request.tag), ruleset=_opt(request.ruleset), value=_opt(request.value),
            limit=request.limit or None, valuer=self._valuer(budget)), budget)
        return pb.NamedPositions(positions=[position_message(d) for d in found])

    @rpc_method
    async def SearchStored(self, request: pb.SearchStoredRequest, context: Any) -> pb.StoredPositions:
        budget = self._budget(context)
        found = await self._sql(lambda: self.ops.search_stored(request.ruleset, request.value,
                                                               min(request.limit or 20, 1000),
                                                               valuer=self._valuer(budget)), budget)
        return pb.StoredPositions(positions=[
            pb.StoredPosition(ruleset=d["ruleset"], position=d["position"] or "", key=d["key"], value=d["value"],
                              unverified=bool(d.get("unverified")))
            for d in found])

    @rpc_method
    async def AddTheorem(self, request: pb.AddTheoremRequest, context: Any) -> pb.Theorem:
        s, caller = request.source, _caller(context)
        return theorem_message(await self._sql(lambda: self.ops.add_theorem(
            request.name, request.ruleset, request.family, request.claim, request.domain,
            source_paper=_opt(s.paper), source_ref=_opt(s.ref), source_page=s.page if s.HasField("page") else None,
            notes=_opt(request.notes), added_by=caller, replace=request.replace)))

    @rpc_method
    async def ListTheorems(self, request: pb.ListTheoremsRequest, context: Any) -> pb.Theorems:
        found = await self._sql(lambda: self.ops.list_theorems(_opt(request.ruleset)))
        return pb.Theorems(theorems=[theorem_message(d) for d in found])

    @rpc_method
    async def ShowTheorem(self, request: pb.ShowTheoremRequest, context: Any) -> pb.Theorem:
        return theorem_message(await self._sql(lambda: self.ops.show_theorem(request.name)))

    @rpc_method
    async def VerifyTheorem(self, request: pb.VerifyTheoremRequest, context: Any) -> pb.VerificationRun:
        budget = self._budget(context)
        if self._verify is None:
            self._verify = asyncio.Lock()
        try:  # one verification at a time, waited for within the budget
            await asyncio.wait_for(self._verify.acquire(), budget.remaining())
        except TimeoutError:
            raise budget.expired(f"verification of {request.name!r} (waiting for another one to finish)") from None
        try:
            return run_message(await self._sql(lambda: self.ops.verify(request.name, request.up_to,
                                                                       valuer=self._valuer(budget)), budget))
        finally:
            self._verify.release()

    @rpc_method
    async def ListRuns(self, request: pb.ListRunsRequest, context: Any) -> pb.VerificationRuns:
        return pb.VerificationRuns(runs=[run_message(d) for d in await self._sql(lambda: self.ops.runs(request.name))])

    @rpc_method
    async def Seed(self, request: pb.SeedRequest, context: Any) -> pb.SeedResponse:
        counts = await self._sql(lambda: self.ops.seed(added_by="seed", beyond=request.beyond))
        return pb.SeedResponse(positions=counts["positions"], theorems=counts["theorems"])


def add_catalog_servicer(server: grpc.aio.Server, catalog: Catalog | None = None, store: Any = None, *,
                         data_dir: str | Path | None = None, limits: Any = None, ruma: Any = None) -> CatalogServicer:
    """Register the catalog service on ``server``; opens (and migrates) the catalog if not given.

    Evaluations go through ``ruma`` (the server's ``RumaServicer``) when given; otherwise they run
    here, bounded by ``limits`` (the service's ``Limits``; default ``Limits()``)."""
    own = catalog is None
    if catalog is None:
        catalog = Catalog.open(data_dir, url=os.environ.get("RUMA_CATALOG_URL") or None)
    if limits is None:
        from ruma.server.work.limits import Limits

        limits = Limits()
    ops = CatalogOps(catalog, store=store, max_positions=getattr(limits, "max_positions", None))
    servicer = CatalogServicer(ops, own_catalog=own, ruma=ruma, limits=limits)
    catalog_pb2_grpc.add_CatalogServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]  # generated, unannotated
    return servicer
