"""``CatalogClient``: typed calls of the ``ruma.v1.Catalog`` service (``client.catalog``).

Results are dataclasses — ``NamedPosition``, ``StoredPosition``, ``Theorem``, ``VerificationRun``,
``SeedCounts`` — whose ``to_dict()`` is the record ``ruma catalog ... --json`` prints, for a local
catalog and for a server alike (schemas in ``ruma/client/schemas/``); ``from_dict`` builds them
from the local ``CatalogOps`` dicts. Values are in CGSuite plain text (``value``), as the catalog
keeps them. Messages become dicts with ``google.protobuf.json_format`` and then dataclasses by
their field types. Failed calls raise ``ruma.client.client.RumaRpcError``. This module never
imports ``ruma.server``.
"""

from __future__ import annotations

import dataclasses
import json
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, TypeVar, Union, get_args, get_origin, get_type_hints

from google.protobuf import json_format
from google.protobuf.message import Message

from ruma.v1 import catalog_pb2 as pb
from ruma.v1 import catalog_pb2_grpc

if TYPE_CHECKING:
    from ruma.client.client import Client

R = TypeVar("R", bound="CatalogRecord")


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = get_type_hints(cls)
    return hints


def _coerce(hint: Any, value: Any) -> Any:
    """``value`` (from JSON, where int64 are strings and empty strings mean unset) as ``hint``."""
    args = get_args(hint)
    optional = (get_origin(hint) in (Union, types.UnionType)) and type(None) in args
    base = next((a for a in args if a is not type(None)), hint) if optional else hint
    if value is None or (optional and value == ""):
        return None if optional else base()
    if isinstance(base, type) and dataclasses.is_dataclass(base):
        return base.from_dict(value) if isinstance(value, Mapping) else value  # type: ignore[attr-defined]
    if base in (int, bool, str):
        return base(value)
    if get_origin(base) is list:
        return list(value)
    return value


class CatalogRecord:
    """Common to the catalog's records: ``to_dict``, ``from_dict`` and ``record["field"]``."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-able record."""
        data: dict[str, Any] = dataclasses.asdict(self)  # type: ignore[call-overload]
        return data

    @classmethod
    def from_dict(cls: type[R], data: Mapping[str, Any]) -> R:
        """From a record's dict (keys it does not know are ignored; missing ones are unset)."""
        hints = _hints(cls)
        return cls(**{f.name: _coerce(hints[f.name], data.get(f.name)) for f in dataclasses.fields(cls)})  # type: ignore[arg-type]

    def __getitem__(self, key: str) -> Any:
        """``record["value"]``, as when results were plain dicts."""
        if key not in {f.name for f in dataclasses.fields(self)}:  # type: ignore[arg-type]
            raise KeyError(key)
        return self.to_dict()[key]


def _fields(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = json_format.MessageToDict(message, preserving_proto_field_name=True,
                                                     always_print_fields_with_no_presence=True)
    return data


@dataclass(frozen=True)
class NamedPosition(CatalogRecord):
    """A catalogued position; the value fields are None where it was not evaluated (``list``)."""

    name: str
    ruleset: str
    position: str
    canonical_key: str
    tags: list[str] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)  # paper, table, page, value (as printed)
    notes: str | None = None
    added_by: str | None = None
    added_at: str | None = None
    value: str | None = None
    nim_value: int | None = None
    outcome: str | None = None
    source_agrees: bool | None = None
    error: str | None = None  # why the engine could not value it
    unverified: bool = False  # the value (or a component's) is an upload the server has not re-valued yet

    @classmethod
    def from_message(cls, message: pb.NamedPosition) -> "NamedPosition":
        """From a ``ruma.v1.NamedPosition``."""
        data = _fields(message)
        data["source"] = _source(message.source, ("paper", "table", "page", "value"))
        if not message.has_value:
            for name in ("value", "nim_value", "outcome", "source_agrees"):
                data.pop(name, None)
        return cls.from_dict(data)

    def __str__(self) -> str:
        value = f" = {self.value}" + (" (an unverified upload)" if self.unverified else "") if self.value is not None else ""
        return f"{self.name}: {self.ruleset} {self.position}{value}"


def _source(message: pb.CatalogSource, names: tuple[str, ...]) -> dict[str, Any]:
    data = _fields(message)
    return {name: (int(data[name]) if name == "page" else data[name] or None) if name in data else None
            for name in names}


@dataclass(frozen=True)
class StoredPosition(CatalogRecord):
    """A position found in the store by its value."""

    ruleset: str
    position: str | None  # None when the key cannot be decoded (another ruleset version)
    key: str
    value: str
    unverified: bool = False  # an upload the server has not re-valued yet: the value may be wrong

    @classmethod
    def from_message(cls, message: pb.StoredPosition) -> "StoredPosition":
        """From a ``ruma.v1.StoredPosition``."""
        return cls.from_dict(_fields(message))


@dataclass(frozen=True)
class VerificationRun(CatalogRecord):
    """One check of a theorem on every instance with parameters ≤ ``up_to``."""

    theorem: str
    up_to: int
    bounds: dict[str, Any]
    instances_checked: int
    holds: bool
    counterexample: dict[str, Any] | None = None
    counterexample_position: str | None = None
    counterexample_value: str | None = None
    claimed_value: str | None = None
    positions_valued: int = 0
    engine_version: str = ""
    ruleset_version: int = 0
    milliseconds: int = 0
    started_at: str | None = None

    @classmethod
    def from_message(cls, message: pb.VerificationRun) -> "VerificationRun":
        """From a ``ruma.v1.VerificationRun``."""
        data = _fields(message)
        data["bounds"] = json.loads(message.bounds_json or "{}")
        data["counterexample"] = json.loads(message.counterexample_json) if message.counterexample_json else None
        return cls.from_dict(data)


@dataclass(frozen=True)
class Theorem(CatalogRecord):
    """A theorem about a family of positions, with its latest verification run."""

    name: str
    ruleset: str
    family: str
    parameters: list[str]
    domain: str
    claim: str
    claim_kind: str
    source: dict[str, Any] = field(default_factory=dict)  # paper, ref, page
    notes: str | None = None
    added_by: str | None = None
    added_at: str | None = None
    last_run: VerificationRun | None = None

    @classmethod
    def from_message(cls, message: pb.Theorem) -> "Theorem":
        """From a ``ruma.v1.Theorem``."""
        data = _fields(message)
        data["source"] = _source(message.source, ("paper", "ref", "page"))
        data["last_run"] = VerificationRun.from_message(message.last_run) if message.HasField("last_run") else None
        return cls.from_dict(data)


@dataclass(frozen=True)
class SeedCounts(CatalogRecord):
    """What ``seed`` added: named positions and theorems."""

    positions: int
    theorems: int


def _source_msg(paper: str | None, table: str | None = None, ref: str | None = None, page: int | None = None,
                value: str | None = None) -> pb.CatalogSource:
    msg = pb.CatalogSource(paper=paper or "", table=table or "", ref=ref or "", value=value or "")
    if page is not None:
        msg.page = page
    return msg


class CatalogClient:
    """The catalog service over a ``Client``'s channel, with its token and deadline."""

    def __init__(self, client: "Client") -> None:
        self.client = client
        self.stub = catalog_pb2_grpc.CatalogStub(client.channel)  # type: ignore[no-untyped-call]

    def __repr__(self) -> str:
        return f"CatalogClient({self.client!r})"

    def _call(self, method: Callable[..., Any], request: Any, timeout: float | None = None) -> Any:
        return self.client.call(method, request, timeout)

    # -- named positions ----------------------------------------------------------------------
    def add_position(self, name: str, ruleset: str, position: str, *, tags: Iterable[str] = (), notes: str | None = None,
                     source_paper: str | None = None, source_table: str | None = None, source_page: int | None = None,
                     source_value: str | None = None, replace: bool = False) -> NamedPosition:
        """Catalogue a position (needs a write token); returns it with its value."""
        request = pb.AddPositionRequest(name=name, ruleset=ruleset, position=position, tags=list(tags),
                                        notes=notes or "", replace=replace,
                                        source=_source_msg(source_paper, source_table, None, source_page, source_value))
        return NamedPosition.from_message(self._call(self.stub.AddPosition, request))

    def remove_position(self, name: str) -> bool:
        """Remove a named position (needs a write token); whether it existed."""
        return bool(self._call(self.stub.RemovePosition, pb.RemovePositionRequest(name=name)).removed)

    def list_positions(self, *, name: str | None = None, tag: str | None = None, ruleset: str | None = None,
                       limit: int | None = None) -> list[NamedPosition]:
        """Named positions (without values)."""
        request = pb.ListPositionsRequest(name=name or "", tag=tag or "", ruleset=ruleset or "", limit=limit or 0)
        return [NamedPosition.from_message(m) for m in self._call(self.stub.ListPositions, request).positions]

    def show(self, name: str) -> NamedPosition:
        """One named position with its value evaluated by the server now."""
        return NamedPosition.from_message(self._call(self.stub.ShowPosition, pb.ShowPositionRequest(name=name)))

    def search(self, *, name: str | None = None, tag: str | None = None, ruleset: str | None = None,
               value: str | None = None, limit: int | None = None) -> list[NamedPosition]:
        """Named positions matching every filter (``value`` in game notation, e.g. ``^*``)."""
        request = pb.SearchPositionsRequest(name=name or "", tag=tag or "", ruleset=ruleset or "",
                                            value=value or "", limit=limit or 0)
        return [NamedPosition.from_message(m) for m in self._call(self.stub.SearchPositions, request).positions]

    def search_stored(self, ruleset: str, value: str, limit: int = 20) -> list[StoredPosition]:
        """Stored positions of ``ruleset`` with value ``value``, simplest first."""
        request = pb.SearchStoredRequest(ruleset=ruleset, value=value, limit=limit)
        return [StoredPosition.from_message(m) for m in self._call(self.stub.SearchStored, request).positions]

    def seed(self, beyond: bool = False) -> SeedCounts:
        """Load the seed catalog (needs a write token); with ``beyond``, the positions ruma's
        value-directed search found beyond the exhaustive bound too."""
        response = self._call(self.stub.Seed, pb.SeedRequest(beyond=beyond))
        return SeedCounts(response.positions, response.theorems)

    # -- theorems ----------------------------------------------------------------------------
    def add_theorem(self, name: str, ruleset: str, family: str, claim: str, domain: str = "", *,
                    source_paper: str | None = None, source_ref: str | None = None,
                    source_page: int | None = None, notes: str | None = None,
                    replace: bool = False) -> Theorem:
        """Record a theorem (needs a write token)."""
        request = pb.AddTheoremRequest(name=name, ruleset=ruleset, family=family, claim=claim, domain=domain,
                                       notes=notes or "", replace=replace,
                                       source=_source_msg(source_paper, None, source_ref, source_page))
        return Theorem.from_message(self._call(self.stub.AddTheorem, request))

    def list_theorems(self, ruleset: str | None = None) -> list[Theorem]:
        """Every theorem with its latest run."""
        response = self._call(self.stub.ListTheorems, pb.ListTheoremsRequest(ruleset=ruleset or ""))
        return [Theorem.from_message(m) for m in response.theorems]

    def show_theorem(self, name: str) -> Theorem:
        """One theorem with its latest run."""
        return Theorem.from_message(self._call(self.stub.ShowTheorem, pb.ShowTheoremRequest(name=name)))

    def verify(self, name: str, up_to: int, *, timeout: float | None = None) -> VerificationRun:
        """Verify a theorem on every instance with parameters ≤ ``up_to`` (needs a write token)."""
        request = pb.VerifyTheoremRequest(name=name, up_to=up_to)
        return VerificationRun.from_message(self._call(self.stub.VerifyTheorem, request, timeout))

    def runs(self, name: str) -> list[VerificationRun]:
        """Every verification run of a theorem, oldest first."""
        return [VerificationRun.from_message(m) for m in self._call(self.stub.ListRuns, pb.ListRunsRequest(name=name)).runs]
