"""``CatalogClient``: typed calls of the ``ruma.v1.Catalog`` service (``client.catalog``).

Results are plain dicts with exactly the keys that ``ruma catalog ... --json`` prints locally
(the server's ``CatalogOps`` shape), so scripts work the same against a directory or a server:

* named position: ``name, ruleset, position, canonical_key, tags, source{paper,table,page,value},
  notes, added_by, added_at`` and, when evaluated, ``value, nim_value, outcome, source_agrees``;
* theorem: ``name, ruleset, family, parameters, domain, claim, claim_kind, source{paper,ref,page},
  notes, added_by, added_at, last_run``;
* verification run: ``theorem, up_to, bounds, instances_checked, holds, counterexample,
  counterexample_position, counterexample_value, claimed_value, positions_valued, engine_version,
  ruleset_version, milliseconds, started_at``.

Failed calls raise ``ruma.client.client.RumaRpcError``. This module never imports ``ruma.server``.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Sequence

import grpc

from ruma.v1 import catalog_pb2 as pb
from ruma.v1 import catalog_pb2_grpc


def _source(msg: pb.CatalogSource, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {"paper": msg.paper or None}
    if kind == "position":
        out["table"] = msg.table or None
    else:
        out["ref"] = msg.ref or None
    out["page"] = msg.page if msg.HasField("page") else None
    if kind == "position":
        out["value"] = msg.value or None
    return out


def position_dict(msg: pb.NamedPosition) -> dict[str, Any]:
    """The dict form of a ``NamedPosition`` message."""
    out: dict[str, Any] = {
        "name": msg.name, "ruleset": msg.ruleset, "position": msg.position, "canonical_key": msg.canonical_key,
        "tags": list(msg.tags), "source": _source(msg.source, "position"), "notes": msg.notes or None,
        "added_by": msg.added_by or None, "added_at": msg.added_at or None}
    if msg.has_value:
        out["value"] = msg.value
        out["nim_value"] = msg.nim_value if msg.HasField("nim_value") else None
        out["outcome"] = msg.outcome or None
        out["source_agrees"] = msg.source_agrees if msg.HasField("source_agrees") else None
    return out


def run_dict(msg: pb.VerificationRun) -> dict[str, Any]:
    """The dict form of a ``VerificationRun`` message."""
    return {
        "theorem": msg.theorem, "up_to": msg.up_to, "bounds": json.loads(msg.bounds_json or "{}"),
        "instances_checked": msg.instances_checked, "holds": msg.holds,
        "counterexample": json.loads(msg.counterexample_json) if msg.counterexample_json else None,
        "counterexample_position": msg.counterexample_position or None,
        "counterexample_value": msg.counterexample_value or None, "claimed_value": msg.claimed_value or None,
        "positions_valued": msg.positions_valued, "engine_version": msg.engine_version,
        "ruleset_version": msg.ruleset_version, "milliseconds": msg.milliseconds,
        "started_at": msg.started_at or None}


def theorem_dict(msg: pb.Theorem) -> dict[str, Any]:
    """The dict form of a ``Theorem`` message."""
    return {
        "name": msg.name, "ruleset": msg.ruleset, "family": msg.family, "parameters": list(msg.parameters),
        "domain": msg.domain, "claim": msg.claim, "claim_kind": msg.claim_kind,
        "source": _source(msg.source, "theorem"), "notes": msg.notes or None, "added_by": msg.added_by or None,
        "added_at": msg.added_at or None, "last_run": run_dict(msg.last_run) if msg.HasField("last_run") else None}


def _source_msg(paper: str | None, table: str | None = None, ref: str | None = None, page: int | None = None,
                value: str | None = None) -> pb.CatalogSource:
    msg = pb.CatalogSource(paper=paper or "", table=table or "", ref=ref or "", value=value or "")
    if page is not None:
        msg.page = page
    return msg


class CatalogClient:
    """The catalog service over an open channel, with the caller's metadata (token)."""

    def __init__(self, channel: grpc.Channel, metadata: Sequence[tuple[str, str]] = (),
                 timeout: float | None = None) -> None:
        self.stub = catalog_pb2_grpc.CatalogStub(channel)
        self.metadata = tuple(metadata)
        self.timeout = timeout

    def _call(self, method: Callable[..., Any], request: Any, timeout: float | None = None) -> Any:
        from ruma.client.client import RumaRpcError

        try:
            return method(request, timeout=timeout if timeout is not None else self.timeout, metadata=self.metadata)
        except grpc.RpcError as error:
            raise RumaRpcError.from_grpc(error) from None

    # -- named positions ----------------------------------------------------------------------
    def add_position(self, name: str, ruleset: str, position: str, *, tags: Iterable[str] = (), notes: str | None = None,
            source_paper: str | None = None, source_table: str | None = None, source_page: int | None = None,
            source_value: str | None = None, replace: bool = False) -> dict[str, Any]:
        """Catalogue a position (needs a write token); returns it with its value."""
        request = pb.AddPositionRequest(name=name, ruleset=ruleset, position=position, tags=list(tags),
                                        notes=notes or "", replace=replace,
                                        source=_source_msg(source_paper, source_table, None, source_page, source_value))
        return position_dict(self._call(self.stub.AddPosition, request))

    def remove_position(self, name: str) -> bool:
        """Remove a named position (needs a write token); whether it existed."""
        return bool(self._call(self.stub.RemovePosition, pb.RemovePositionRequest(name=name)).removed)

    def list_positions(self, *, name: str | None = None, tag: str | None = None, ruleset: str | None = None,
             limit: int | None = None) -> list[dict[str, Any]]:
        """Named positions (without values)."""
        request = pb.ListPositionsRequest(name=name or "", tag=tag or "", ruleset=ruleset or "", limit=limit or 0)
        return [position_dict(m) for m in self._call(self.stub.ListPositions, request).positions]

    def show(self, name: str) -> dict[str, Any]:
        """One named position with its value evaluated by the server now."""
        return position_dict(self._call(self.stub.ShowPosition, pb.ShowPositionRequest(name=name)))

    def search(self, *, name: str | None = None, tag: str | None = None, ruleset: str | None = None,
               value: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Named positions matching every filter (``value`` in game notation, e.g. ``^*``)."""
        request = pb.SearchPositionsRequest(name=name or "", tag=tag or "", ruleset=ruleset or "",
                                            value=value or "", limit=limit or 0)
        return [position_dict(m) for m in self._call(self.stub.SearchPositions, request).positions]

    def search_stored(self, ruleset: str, value: str, limit: int = 20) -> list[dict[str, Any]]:
        """Stored positions of ``ruleset`` with value ``value``, simplest first."""
        request = pb.SearchStoredRequest(ruleset=ruleset, value=value, limit=limit)
        return [{"ruleset": m.ruleset, "key": m.key, "value": m.value, "position": m.position or None}
                for m in self._call(self.stub.SearchStored, request).positions]

    def seed(self) -> dict[str, int]:
        """Load the seed catalog (needs a write token)."""
        response = self._call(self.stub.Seed, pb.SeedRequest())
        return {"positions": response.positions, "theorems": response.theorems}

    # -- theorems ----------------------------------------------------------------------------
    def add_theorem(self, name: str, ruleset: str, family: str, claim: str, domain: str = "", *,
                    source_paper: str | None = None, source_ref: str | None = None,
                    source_page: int | None = None, notes: str | None = None,
                    replace: bool = False) -> dict[str, Any]:
        """Record a theorem (needs a write token)."""
        request = pb.AddTheoremRequest(name=name, ruleset=ruleset, family=family, claim=claim, domain=domain,
                                       notes=notes or "", replace=replace,
                                       source=_source_msg(source_paper, None, source_ref, source_page))
        return theorem_dict(self._call(self.stub.AddTheorem, request))

    def list_theorems(self, ruleset: str | None = None) -> list[dict[str, Any]]:
        """Every theorem with its latest run."""
        response = self._call(self.stub.ListTheorems, pb.ListTheoremsRequest(ruleset=ruleset or ""))
        return [theorem_dict(m) for m in response.theorems]

    def show_theorem(self, name: str) -> dict[str, Any]:
        """One theorem with its latest run."""
        return theorem_dict(self._call(self.stub.ShowTheorem, pb.ShowTheoremRequest(name=name)))

    def verify(self, name: str, up_to: int, *, timeout: float | None = None) -> dict[str, Any]:
        """Verify a theorem on every instance with parameters ≤ ``up_to`` (needs a write token)."""
        request = pb.VerifyTheoremRequest(name=name, up_to=up_to)
        return run_dict(self._call(self.stub.VerifyTheorem, request, timeout))

    def runs(self, name: str) -> list[dict[str, Any]]:
        """Every verification run of a theorem, oldest first."""
        return [run_dict(m) for m in self._call(self.stub.ListRuns, pb.ListRunsRequest(name=name)).runs]
