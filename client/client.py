"""``Client``: the typed Python client of the ruma gRPC service.

    >>> from ruma.client import Client                       # doctest: +SKIP
    >>> with Client("127.0.0.1:50051") as client:
    ...     e = client.evaluate("sowing", "312")
    ...     print(e.value, e.value.ascii, e.outcome)

Every method raises ``RumaRpcError`` (with ``.code``, a ``grpc.StatusCode``) when the call fails.
This module never imports ``ruma.server``.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, Union

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ruma.client import results as r
from ruma.engine.errors import RumaError
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc

#: an operand of ``compare``/``sum``: a value expression, or a ``(ruleset, position)`` pair
Operand = Union[str, tuple[str, str]]

_NOTATIONS = {"ascii": pb.NOTATION_ASCII, "unicode": pb.NOTATION_UNICODE, "braces": pb.NOTATION_BRACES}


class RumaRpcError(RumaError):
    """A failed call: ``code`` is the ``grpc.StatusCode``, ``details`` the server's message."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self.code = code
        self.details = details
        super().__init__(f"{code.name}: {details}")

    @classmethod
    def from_grpc(cls, error: grpc.RpcError) -> "RumaRpcError":
        """Wrap a ``grpc.RpcError``."""
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        return cls(code, details or "")


def _notations(styles: Iterable[str] | None) -> list[int]:
    if styles is None:
        return []
    try:
        return [_NOTATIONS[s] for s in styles]
    except KeyError as error:
        raise RumaError(f"unknown notation {error.args[0]!r}; use ascii, unicode or braces") from None


def _operand(value: Operand) -> pb.Operand:
    if isinstance(value, str):
        return pb.Operand(expression=value)
    ruleset, position = value
    return pb.Operand(position=pb.PositionRef(ruleset=ruleset, position=position))


_CODE_NAMES = {status.value[0]: status.name for status in grpc.StatusCode}


def _code_name(code: int) -> str:
    return _CODE_NAMES.get(code, str(code))


class Client:
    """A connection to a ruma server (``address`` is ``host:port``)."""

    def __init__(self, address: str, token: str | None = None, tls_ca: str | Path | bytes | None = None, *,
                 timeout: float | None = None, tls: bool = False) -> None:
        self.address = address
        self.timeout = timeout
        self.token = token
        options = [("grpc.max_receive_message_length", 64 * 1024 * 1024), ("grpc.max_send_message_length", 64 * 1024 * 1024)]
        if tls_ca is not None or tls:
            ca = tls_ca if isinstance(tls_ca, bytes) or tls_ca is None else Path(tls_ca).read_bytes()
            self.channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=ca), options)
        else:
            self.channel = grpc.insecure_channel(address, options)
        self.metadata: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        self.stub = ruma_pb2_grpc.RumaStub(self.channel)
        self._catalog: Any = None

    # -- plumbing -------------------------------------------------------------------------------
    def call(self, method: Callable[..., Any], request: Any, timeout: float | None = None) -> Any:
        """Invoke a stub method with the token and deadline; errors become ``RumaRpcError``."""
        try:
            return method(request, timeout=timeout if timeout is not None else self.timeout, metadata=self.metadata)
        except grpc.RpcError as error:
            raise RumaRpcError.from_grpc(error) from None

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def catalog(self) -> Any:
        """The catalog client (``ruma.client.catalog_client``), created on first use."""
        if self._catalog is None:
            from ruma.client import catalog_client

            cls = getattr(catalog_client, "CatalogClient")
            offered = {"client": self, "channel": self.channel, "metadata": self.metadata, "token": self.token,
                       "timeout": self.timeout, "address": self.address}
            parameters = inspect.signature(cls).parameters
            self._catalog = cls(**{k: v for k, v in offered.items() if k in parameters})
        return self._catalog

    # -- the service ------------------------------------------------------------------------------
    def evaluate(self, ruleset: str, position: str, *, notations: Iterable[str] | None = None,
                 max_positions: int = 0, timeout: float | None = None) -> r.Evaluation:
        """The value of one position (computed and stored by the server if needed)."""
        request = pb.EvaluateRequest(ruleset=ruleset, position=position, notations=_notations(notations),
                                     max_positions=max_positions)
        return r.Evaluation.from_message(self.call(self.stub.Evaluate, request, timeout))

    def evaluate_batch(self, ruleset: str, positions: Sequence[str], *, notations: Iterable[str] | None = None,
                       brief: bool = False, max_positions: int = 0, timeout: float | None = None) -> list[r.BatchItem]:
        """Many positions; each item has its own status (one bad position does not fail the others)."""
        request = pb.EvaluateBatchRequest(ruleset=ruleset, positions=list(positions), notations=_notations(notations),
                                          brief=brief, max_positions=max_positions)
        reply = self.call(self.stub.EvaluateBatch, request, timeout)
        return [
            r.BatchItem(item.position, _code_name(item.status.code), item.status.message,
                        r.Evaluation.from_message(item.evaluation) if item.HasField("evaluation") else None)
            for item in reply.items
        ]

    def lookup(self, ruleset: str, positions: str | Sequence[str], *, notations: Iterable[str] | None = None,
               timeout: float | None = None) -> list[r.LookupItem]:
        """Store only, never computing: found or not per position."""
        texts = [positions] if isinstance(positions, str) else list(positions)
        request = pb.LookupRequest(ruleset=ruleset, positions=texts, notations=_notations(notations))
        reply = self.call(self.stub.Lookup, request, timeout)
        return [
            r.LookupItem(item.position, item.found, _code_name(item.status.code), item.status.message,
                         r.Evaluation.from_message(item.evaluation) if item.found else None)
            for item in reply.items
        ]

    def compare(self, a: Operand, b: Operand, *, timeout: float | None = None) -> r.Comparison:
        """Compare two values: expressions (``"{1|*}"``) or ``(ruleset, position)`` pairs."""
        reply = self.call(self.stub.Compare, pb.CompareRequest(a=_operand(a), b=_operand(b)), timeout)
        return r.Comparison(r.RELATIONS[reply.relation], r.GameValue.from_message(reply.a),
                            r.GameValue.from_message(reply.b), r.GameValue.from_message(reply.difference))

    def sum(self, *terms: Operand, timeout: float | None = None) -> r.SumResult:
        """The disjunctive sum of expressions and ``(ruleset, position)`` pairs."""
        reply = self.call(self.stub.Sum, pb.SumRequest(terms=[_operand(t) for t in terms]), timeout)
        a = reply.analysis
        return r.SumResult(r.GameValue.from_message(reply.value), r.OUTCOMES[a.outcome],
                           a.nim_value if a.HasField("nim_value") else None, r._fraction(a.temperature),
                           [r.GameValue.from_message(t) for t in reply.terms])

    def options(self, ruleset: str, position: str, *, timeout: float | None = None) -> r.OptionsResult:
        """Each player's options of a position, with their values."""
        reply = self.call(self.stub.Options, pb.OptionsRequest(ruleset=ruleset, position=position), timeout)

        def options(items: Iterable[pb.Option]) -> list[r.OptionValue]:
            return [r.OptionValue(o.position, r.GameValue.from_message(o.value), r.OUTCOMES[o.outcome],
                                  o.nim_value if o.HasField("nim_value") else None) for o in items]

        return r.OptionsResult(r.Evaluation.from_message(reply.evaluation), options(reply.left), options(reply.right))

    def capabilities(self, *, timeout: float | None = None) -> r.Capabilities:
        """Rulesets, limits and batch size of the server."""
        c = self.call(self.stub.GetCapabilities, pb.GetCapabilitiesRequest(), timeout)
        return r.Capabilities(
            [r.RulesetInfo(i.name, i.code, i.version, i.impartial, i.description) for i in c.rulesets],
            c.limits.max_pots, c.limits.max_seeds, c.limits.max_positions, c.max_batch_size,
            c.server_version, c.engine_version, c.auth_required, list(c.services),
        )

    def stats(self, *, timeout: float | None = None) -> r.Stats:
        """The server's counters."""
        s = self.call(self.stub.GetStats, pb.GetStatsRequest(), timeout)
        return r.Stats(s.store_entries, s.store_bytes, s.hits, s.misses, s.evaluations_in_flight,
                       s.evaluations_total, s.positions_valued, s.shared, s.uptime_seconds)

    def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """The standard health check: ``"SERVING"``, ``"NOT_SERVING"``, ..."""
        stub = health_pb2_grpc.HealthStub(self.channel)
        reply = self.call(stub.Check, health_pb2.HealthCheckRequest(service=service), timeout)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))

    def load(self, positions: Iterable[str], ruleset: str, *, batch_size: int = 256,
             progress: bool | Callable[[int, int], None] | None = None, **kwargs: Any) -> r.LoadSummary:
        """Bulk load: value every position on the server (see ``ruma.client.loader.load``)."""
        from ruma.client.loader import load

        return load(self, positions, ruleset, batch_size=batch_size, progress=progress, **kwargs)

    # -- sweeps and censuses (the ruma.v1.Sweeps service; see ruma.client.sweep_client) -----------
    def upload(self, ruleset: str, entries: Sequence[tuple[bytes, Any]], *, timeout: float | None = None) -> Any:
        """Store precomputed ``(canonical key, value)`` entries; needs a write token. The server
        re-values a sample and rejects the whole upload on any mismatch. Returns an ``UploadResult``."""
        from ruma.client import sweep_client

        return sweep_client.upload(self, ruleset, entries, timeout=timeout)

    def contains(self, ruleset: str, keys: Sequence[bytes], *, timeout: float | None = None) -> list[bool]:
        """For each canonical key, whether the server's store holds it."""
        from ruma.client import sweep_client

        return sweep_client.contains(self, ruleset, keys, timeout=timeout)

    def stream_census(self, ruleset: str, seeds: tuple[int, int], pots: tuple[int, int] | None = None, *,
                      by: str = "value", simplest: int = 3, notations: Iterable[str] | None = None,
                      compute_missing: bool = False, timeout: float | None = None) -> Any:
        """The census of a family as the server streams it: ``CensusRow``s, then a ``CensusSummary``."""
        from ruma.client import sweep_client

        request = sweep_client.census_request(ruleset, seeds, pots, by, simplest, _notations(notations), compute_missing)
        return sweep_client.stream_census(self, request, timeout)

    def census(self, ruleset: str, seeds: tuple[int, int], pots: tuple[int, int] | None = None, **kwargs: Any) -> Any:
        """The census of a family (``CensusResult``: rows and summary); see ``stream_census``."""
        from ruma.client import sweep_client

        result = sweep_client.CensusResult()
        for item in self.stream_census(ruleset, seeds, pots, **kwargs):
            if isinstance(item, sweep_client.CensusRow):
                result.rows.append(item)
            else:
                result.summary = item
        return result
