"""The ``ruma.v1.Catalog`` gRPC service: ``CatalogOps`` over the wire.

``add_catalog_servicer(server, catalog=None, store=None, data_dir=None, ruma=None)`` registers it;
the catalog defaults to ``$RUMA_CATALOG_URL`` or SQLite in ``data_dir`` (migrated on open). Values
come through the Ruma servicer ``ruma`` (``ruma.server.rpc.servicer.ServiceValuer``): the same position
limits, time and memory budgets, single store and evaluation workers as ``Evaluate``; without it,
from ``store`` in this process. Writes (``WRITE_METHODS``) are declared to ``ruma.server.rpc.auth`` so
that a ``read`` token cannot call them.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import grpc

from ruma.server.rpc.auth import register_write_methods
from ruma.server.work.budget import Budget
from ruma.server.catalog.models import Catalog
from ruma.server.catalog.ops import CatalogOps
from ruma.server.rpc.errors import rpc_method
from ruma.v1 import catalog_pb2 as pb
from ruma.v1 import catalog_pb2_grpc

SERVICE = pb.DESCRIPTOR.services_by_name["Catalog"].full_name
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


def _caller(context: grpc.ServicerContext) -> str | None:
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
        self._verify_lock = threading.Lock()
        self.ruma = ruma
        self.limits = limits

    def _budget(self, context: grpc.ServicerContext) -> Budget:
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

    def close(self) -> None:
        """Release the catalog's connections if this servicer opened it (the server calls this at stop)."""
        if self._own_catalog:
            self.ops.catalog.close()

    @rpc_method
    def AddPosition(self, request: pb.AddPositionRequest, context: grpc.ServicerContext) -> pb.NamedPosition:
        s = request.source
        d = self.ops.add_position(
            request.name, request.ruleset, request.position, tags=list(request.tags), notes=_opt(request.notes),
            source_paper=_opt(s.paper), source_table=_opt(s.table),
            source_page=s.page if s.HasField("page") else None, source_value=_opt(s.value),
            added_by=_caller(context), replace=request.replace, valuer=self._valuer(self._budget(context)))
        return position_message(d)

    @rpc_method
    def RemovePosition(self, request: pb.RemovePositionRequest, context: grpc.ServicerContext) -> pb.RemovePositionResponse:
        return pb.RemovePositionResponse(removed=self.ops.remove_position(request.name))

    @rpc_method
    def ListPositions(self, request: pb.ListPositionsRequest, context: grpc.ServicerContext) -> pb.NamedPositions:
        found = self.ops.list_positions(name=_opt(request.name), tag=_opt(request.tag),
                                        ruleset=_opt(request.ruleset), limit=request.limit or None)
        return pb.NamedPositions(positions=[position_message(d) for d in found])

    @rpc_method
    def ShowPosition(self, request: pb.ShowPositionRequest, context: grpc.ServicerContext) -> pb.NamedPosition:
        return position_message(self.ops.show(request.name, valuer=self._valuer(self._budget(context))))

    @rpc_method
    def SearchPositions(self, request: pb.SearchPositionsRequest, context: grpc.ServicerContext) -> pb.NamedPositions:
        found = self.ops.search(name=_opt(request.name), tag=_opt(request.tag), ruleset=_opt(request.ruleset),
                                value=_opt(request.value), limit=request.limit or None,
                                valuer=self._valuer(self._budget(context)))
        return pb.NamedPositions(positions=[position_message(d) for d in found])

    @rpc_method
    def SearchStored(self, request: pb.SearchStoredRequest, context: grpc.ServicerContext) -> pb.StoredPositions:
        found = self.ops.search_stored(request.ruleset, request.value, min(request.limit or 20, 1000),
                                       valuer=self._valuer(self._budget(context)))
        return pb.StoredPositions(positions=[
            pb.StoredPosition(ruleset=d["ruleset"], position=d["position"] or "", key=d["key"], value=d["value"])
            for d in found])

    @rpc_method
    def AddTheorem(self, request: pb.AddTheoremRequest, context: grpc.ServicerContext) -> pb.Theorem:
        s = request.source
        d = self.ops.add_theorem(
            request.name, request.ruleset, request.family, request.claim, request.domain,
            source_paper=_opt(s.paper), source_ref=_opt(s.ref), source_page=s.page if s.HasField("page") else None,
            notes=_opt(request.notes), added_by=_caller(context), replace=request.replace)
        return theorem_message(d)

    @rpc_method
    def ListTheorems(self, request: pb.ListTheoremsRequest, context: grpc.ServicerContext) -> pb.Theorems:
        return pb.Theorems(theorems=[theorem_message(d) for d in self.ops.list_theorems(_opt(request.ruleset))])

    @rpc_method
    def ShowTheorem(self, request: pb.ShowTheoremRequest, context: grpc.ServicerContext) -> pb.Theorem:
        return theorem_message(self.ops.show_theorem(request.name))

    @rpc_method
    def VerifyTheorem(self, request: pb.VerifyTheoremRequest, context: grpc.ServicerContext) -> pb.VerificationRun:
        budget = self._budget(context)
        while not self._verify_lock.acquire(timeout=0.05):  # one verification at a time, within the budget
            if budget.should_cancel():
                raise budget.error(f"verification of {request.name!r} (waiting for another one to finish)")
        try:
            return run_message(self.ops.verify(request.name, request.up_to, valuer=self._valuer(budget)))
        finally:
            self._verify_lock.release()

    @rpc_method
    def ListRuns(self, request: pb.ListRunsRequest, context: grpc.ServicerContext) -> pb.VerificationRuns:
        return pb.VerificationRuns(runs=[run_message(d) for d in self.ops.runs(request.name)])

    @rpc_method
    def Seed(self, request: pb.SeedRequest, context: grpc.ServicerContext) -> pb.SeedResponse:
        counts = self.ops.seed(added_by="seed")
        return pb.SeedResponse(positions=counts["positions"], theorems=counts["theorems"])


def add_catalog_servicer(server: grpc.Server, catalog: Catalog | None = None, store: Any = None, *,
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
