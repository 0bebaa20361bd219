"""Client side of the ``ruma.v1.Sweeps`` service: uploads, key lookups, censuses, and the sink
that lets ``ruma sweep --server`` commit a sweep's values to a remote server.

``Client.upload``, ``Client.contains``, ``Client.census`` and ``Client.stream_census`` call the
functions here. This module never imports ``ruma.server``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

from ruma.engine.families.packets import Entry, pack
from ruma.v1 import sweep_pb2 as pb
from ruma.v1 import sweep_pb2_grpc

if TYPE_CHECKING:
    from ruma.client.client import Client

BY = {"value": pb.CENSUS_BY_VALUE, "outcome": pb.CENSUS_BY_OUTCOME, "atomic-weight": pb.CENSUS_BY_ATOMIC_WEIGHT,
      "temperature": pb.CENSUS_BY_TEMPERATURE}


@dataclass(frozen=True)
class UploadResult:
    """What the server did with an upload: ``rejected`` holds ``(key, reason)`` of the entries it
    did not store (a malformed key, a position beyond its limits, a check that ran out of time)."""

    stored: int
    already_stored: int
    verified: int
    rejected: tuple[tuple[bytes, str], ...] = ()


@dataclass(frozen=True)
class CensusPosition:
    """The simplest raw position of an oriented class (``position`` as a person writes it)."""

    position: str
    canonical: str
    seeds: int
    pots: int
    mirrored: bool
    unverified: bool = False
    """its value is an upload the server has not re-valued yet (it may be wrong)"""


@dataclass(frozen=True)
class CensusRow:
    """One group of a census: ``group`` maps notation names to the group's text."""

    by: str
    group: dict[str, str]
    classes: int
    raw_positions: int
    simplest: list[CensusPosition]
    nim_value: int | None = None
    unverified: int = 0
    """of ``classes``, those counted by an upload the server has not re-valued yet"""

    def label(self, style: str = "unicode") -> str:
        """The group in ``style`` (or whichever notation the server sent)."""
        return self.group.get(style) or next((text for text in self.group.values() if text), "")

    def to_dict(self, style: str = "unicode") -> dict[str, Any]:
        """The JSON record of ``ruma census`` (the same locally and from a server)."""
        return {"by": self.by, "group": self.label(style), "nim_value": self.nim_value, "classes": self.classes,
                "raw_positions": self.raw_positions,
                "simplest": [p.position for p in self.simplest],
                "simplest_canonical": [p.canonical for p in self.simplest], "unverified": self.unverified}


@dataclass(frozen=True)
class CensusSummary:
    """The census's family and totals."""

    ruleset: str
    seeds: tuple[int, int]
    pots: tuple[int, int]
    classes: int
    raw_positions: int
    rows: int
    computed: int
    seconds: float
    missing: int = 0
    """Classes left out of the rows because the store lacks their values (0: complete)."""
    unverified: int = 0
    """Classes counted by an uploaded value the server has not re-valued yet."""


@dataclass
class CensusResult:
    """Every row of a census and its summary."""

    rows: list[CensusRow] = field(default_factory=list)
    summary: CensusSummary | None = None


def _stub(client: "Client") -> sweep_pb2_grpc.SweepsStub:
    stub = getattr(client, "_sweeps_stub", None)
    if stub is None:
        stub = sweep_pb2_grpc.SweepsStub(client.channel)  # type: ignore[no-untyped-call]
        client._sweeps_stub = stub  # type: ignore[attr-defined]
    return stub


def upload(client: "Client", ruleset: str, entries: Sequence[Entry], *, timeout: float | None = None) -> UploadResult:
    """Store precomputed ``(key, value)`` entries (one call; needs a write token)."""
    keys, values, nodes = pack(entries)
    request = pb.UploadRequest(ruleset=ruleset, keys=keys, values=values,
                               games=[pb.GameNode(left=left, right=right) for left, right in nodes])
    reply = client.call(_stub(client).Upload, request, timeout)
    rejected = tuple((keys[item.index], item.status.message) for item in reply.rejected if item.index < len(keys))
    return UploadResult(reply.stored, reply.already_stored, reply.verified, rejected)


def contains(client: "Client", ruleset: str, keys: Sequence[bytes], *, timeout: float | None = None) -> list[bool]:
    """For each canonical key, whether the server's store holds it."""
    reply = client.call(_stub(client).Contains, pb.ContainsRequest(ruleset=ruleset, keys=list(keys)), timeout)
    return list(reply.found)


def census_request(ruleset: str, seeds: tuple[int, int], pots: tuple[int, int] | None, by: str, simplest: int,
                   notations: Iterable[Any], compute_missing: bool, values: Sequence[str] = ()) -> pb.CensusRequest:
    """The ``CensusRequest`` message (``values``: only the positions of these values)."""
    if by not in BY:
        from ruma.engine.errors import RumaInputError

        raise RumaInputError(f"unknown census grouping {by!r}; use one of {', '.join(BY)}")
    low, high = pots if pots is not None else (0, 0)
    return pb.CensusRequest(ruleset=ruleset, seeds_min=seeds[0], seeds_max=seeds[1], pots_min=low, pots_max=high,
                            by=BY[by], simplest=simplest, notations=list(notations), compute_missing=compute_missing,
                            values=list(values))


def stream_census(client: "Client", request: pb.CensusRequest,
                  timeout: float | None = None) -> Iterator[CensusRow | CensusSummary]:
    """The census rows as the server streams them, then the summary."""
    import grpc

    from ruma.client.client import RumaRpcError

    try:
        for reply in _stub(client).Census(request, timeout=timeout if timeout is not None else client.timeout,
                                          metadata=client.metadata):
            if reply.HasField("row"):
                row = reply.row
                group = {name: getattr(row.group, name) for name in ("ascii", "unicode", "braces") if getattr(row.group, name)}
                yield CensusRow(row.by, group, row.classes, row.raw_positions,
                                [CensusPosition(p.position, p.canonical, p.seeds, p.pots, p.mirrored, p.unverified)
                                 for p in row.simplest],
                                row.nim_value if row.HasField("nim_value") else None, row.unverified)
            else:
                s = reply.summary
                yield CensusSummary(s.ruleset, (s.seeds_min, s.seeds_max), (s.pots_min, s.pots_max), s.classes,
                                    s.raw_positions, s.rows, s.computed, s.seconds, s.missing, s.unverified)
    except grpc.RpcError as error:
        raise RumaRpcError.from_grpc(error) from None


def documents(client: "Client", prefix: str = "", *, timeout: float | None = None) -> list[tuple[str, bytes]]:
    """``(name, content)`` of every document the server's store keeps under ``prefix``, in name
    order (``ruma tables`` keeps its tables as ``tables/NAME``, UTF-8 JSON)."""
    reply = client.call(_stub(client).Documents, pb.DocumentsRequest(prefix=prefix), timeout)
    return [(d.name, bytes(d.content)) for d in reply.documents]


class ServerSink:
    """A sweep's sink on a remote server: ``Contains`` to skip stored classes, ``Upload`` in
    batches (the server verifies a sample of each and rejects a batch whole on a mismatch; the
    entries it rejects alone are kept in ``rejected`` with their reasons)."""

    store_path: str | None = None

    def __init__(self, client: "Client", ruleset: str, batch_size: int | None = None) -> None:
        self.client, self.ruleset = client, ruleset
        self.batch_size = batch_size or max(1, client.capabilities().max_batch_size)
        self.buffer: list[Entry] = []
        self.uploaded = self.stored_new = self.verified = 0
        self.rejected: list[tuple[bytes, str]] = []  # (key, reason) of the entries the server did not store

    def stored(self, keys: Sequence[bytes]) -> list[bool]:
        """``Contains`` in batches the server accepts."""
        found: list[bool] = []
        for i in range(0, len(keys), self.batch_size):
            found += contains(self.client, self.ruleset, keys[i:i + self.batch_size])
        return found

    def put(self, entries: Sequence[Entry]) -> None:
        """Buffer entries; upload every full batch."""
        self.buffer.extend(entries)
        while len(self.buffer) >= self.batch_size:
            self._upload(self.buffer[: self.batch_size])
            del self.buffer[: self.batch_size]

    def _upload(self, entries: Sequence[Entry]) -> None:
        result = upload(self.client, self.ruleset, entries)
        self.uploaded += len(entries)
        self.stored_new += result.stored
        self.verified += result.verified
        self.rejected.extend(result.rejected)

    def local_store(self) -> None:
        """None: the store is the server's (the driver's own process values into an in-memory memo
        whose new entries it uploads)."""
        return None

    def flush(self) -> None:
        """Upload what is buffered."""
        if self.buffer:
            self._upload(self.buffer)
            self.buffer = []
