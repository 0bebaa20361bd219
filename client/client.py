"""``Client``: the typed Python client of the ruma gRPC service.

    >>> from ruma.client import Client                       # doctest: +SKIP
    >>> with Client() as client:                  # $RUMA_SERVER, else 127.0.0.1:50051
    ...     e = client.evaluate("sowing", "312")
    ...     print(e.value, e.value.ascii, e.outcome)

Every method takes the ruleset first, then the position(s), and raises ``RumaRpcError`` (with
``.code``, a ``grpc.StatusCode``) when the call fails. Calls that fail with ``UNAVAILABLE`` (server
restarting, connection refused) are retried by gRPC itself (the channel's ``retryPolicy``, a
couple of seconds in all) before the error is raised. A token travels as gRPC call credentials:
over TLS, or over a plaintext connection to a loopback address (local credentials); to another
host without TLS it is sent as plain metadata. This module never imports ``ruma.server``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, Union

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ruma.client import results as r
from ruma.client.address import is_loopback, parse_address
from ruma.engine.errors import RumaError
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc

#: an operand of ``compare``/``sum``: a value expression, or a ``(ruleset, position)`` pair
Operand = Union[str, tuple[str, str]]

_NOTATIONS = {"ascii": pb.NOTATION_ASCII, "unicode": pb.NOTATION_UNICODE, "braces": pb.NOTATION_BRACES}
_MESSAGE_BYTES = 64 * 1024 * 1024

#: gRPC retries calls that fail with UNAVAILABLE: 5 attempts, backoff 0.2 s doubling to 2 s (jittered)
RETRY_POLICY = {"maxAttempts": 5, "initialBackoff": "0.2s", "maxBackoff": "2s", "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"]}
SERVICE_CONFIG = json.dumps({"methodConfig": [{
    "name": [{"service": "ruma.v1.Ruma"}, {"service": "ruma.v1.Catalog"}, {"service": "grpc.health.v1.Health"}],
    "retryPolicy": RETRY_POLICY}]})


class RumaRpcError(RumaError):
    """A failed call: ``code`` is the ``grpc.StatusCode``, ``details`` the server's message and
    ``address`` the server called."""

    def __init__(self, code: grpc.StatusCode, details: str, address: str | None = None) -> None:
        self.code = code
        self.details = details
        self.address = address
        super().__init__(f"{code.name}: {details}")

    @classmethod
    def from_grpc(cls, error: grpc.RpcError, address: str | None = None) -> "RumaRpcError":
        """Wrap a ``grpc.RpcError``."""
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = error.details() if hasattr(error, "details") else str(error)
        return cls(code, details or "", address)


def _notations(styles: Iterable[str] | None) -> list[int]:
    if styles is None:
        return []
    if isinstance(styles, str):
        styles = [styles]
    try:
        return [_NOTATIONS[s] for s in styles]
    except KeyError as error:
        raise RumaError(f"unknown notation {error.args[0]!r}; use ascii, unicode or braces") from None


def _operand(value: Operand) -> pb.Operand:
    if isinstance(value, str):
        return pb.Operand(expression=value)
    ruleset, position = value
    return pb.Operand(position=pb.PositionRef(ruleset=ruleset, position=position))


_CODES = {status.value[0]: status for status in grpc.StatusCode}


def status_code(code: int) -> grpc.StatusCode:
    """The ``grpc.StatusCode`` of a numeric status code (``UNKNOWN`` for one gRPC does not define)."""
    return _CODES.get(code, grpc.StatusCode.UNKNOWN)


def _one_position(method: str, position: object) -> str:
    if not isinstance(position, str):
        raise TypeError(f"{method}(ruleset, position) takes one position as a string, got "
                        f"{type(position).__name__} {position!r}; for several use evaluate_batch(ruleset, positions)")
    return position


def _many_positions(method: str, positions: object) -> list[str]:
    if isinstance(positions, (str, bytes)):
        raise TypeError(f"{method}(ruleset, positions) takes a list of positions, got the string {positions!r}; "
                        f"wrap it in a list: [{positions!r}]")
    texts: list[str] = list(positions)  # type: ignore[call-overload]
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"{method}: every position is a string, got {type(text).__name__} {text!r}")
    return texts


def _ruleset(method: str, ruleset: object) -> str:
    if not isinstance(ruleset, str):
        raise TypeError(f"{method} takes the ruleset name first (a string such as 'sowing'), got "
                        f"{type(ruleset).__name__} {ruleset!r}")
    return ruleset


class Client:
    """A connection to a ruma server: ``address`` is ``host[:port]`` (port 50051 when omitted;
    by default ``$RUMA_SERVER``, else 127.0.0.1:50051)."""

    def __init__(self, address: str | None = None, token: str | None = None, tls_ca: str | Path | bytes | None = None,
                 *, timeout: float | None = None, tls: bool = False) -> None:
        self.address = parse_address(address or os.environ.get("RUMA_SERVER") or "127.0.0.1")
        self.timeout = timeout
        self.token = token
        self.tls = tls_ca is not None or tls
        options: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", _MESSAGE_BYTES), ("grpc.max_send_message_length", _MESSAGE_BYTES),
            ("grpc.enable_retries", 1), ("grpc.service_config", SERVICE_CONFIG),
            ("grpc.initial_reconnect_backoff_ms", 200), ("grpc.max_reconnect_backoff_ms", 2000),
        ]
        self.metadata: tuple[tuple[str, str], ...] = ()
        if self.tls:
            ca = tls_ca if isinstance(tls_ca, bytes) or tls_ca is None else Path(tls_ca).read_bytes()
            credentials = grpc.ssl_channel_credentials(root_certificates=ca)
            if token:
                credentials = grpc.composite_channel_credentials(credentials, grpc.access_token_call_credentials(token))
            self.channel = grpc.secure_channel(self.address, credentials, options)
        elif token and is_loopback(self.address):
            local = grpc.local_channel_credentials(grpc.LocalConnectionType.LOCAL_TCP)
            credentials = grpc.composite_channel_credentials(local, grpc.access_token_call_credentials(token))
            self.channel = grpc.secure_channel(self.address, credentials, options)
        else:
            # gRPC refuses call credentials on an insecure channel to another host; the token is
            # then plain metadata (readable on the network: use TLS there).
            self.metadata = (("authorization", f"Bearer {token}"),) if token else ()
            self.channel = grpc.insecure_channel(self.address, options)
        self.stub = ruma_pb2_grpc.RumaStub(self.channel)  # type: ignore[no-untyped-call]
        self._catalog: Any = None

    def __repr__(self) -> str:
        security = "tls" if self.tls else "plaintext"
        token = ", token=<set>" if self.token else ""
        timeout = f", timeout={self.timeout:g}" if self.timeout is not None else ""
        return f"Client({self.address!r}, {security}{token}{timeout})"

    # -- plumbing -------------------------------------------------------------------------------
    def call(self, method: Callable[..., Any], request: Any, timeout: float | None = None) -> Any:
        """Invoke a stub method with the deadline (and token); errors become ``RumaRpcError``."""
        try:
            return method(request, timeout=timeout if timeout is not None else self.timeout,
                          metadata=self.metadata or None)
        except grpc.RpcError as error:
            raise RumaRpcError.from_grpc(error, self.address) from None

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def catalog(self) -> Any:
        """The catalog client (``ruma.client.catalog_client.CatalogClient``), created on first use."""
        if self._catalog is None:
            from ruma.client.catalog_client import CatalogClient

            self._catalog = CatalogClient(self)
        return self._catalog

    # -- the service ------------------------------------------------------------------------------
    def evaluate(self, ruleset: str, position: str, *, notations: Iterable[str] | None = None,
                 max_positions: int = 0, timeout: float | None = None) -> r.Evaluation:
        """The value of one position (computed and stored by the server if needed)."""
        request = pb.EvaluateRequest(ruleset=_ruleset("evaluate", ruleset), position=_one_position("evaluate", position),
                                     notations=_notations(notations), max_positions=max_positions)  # type: ignore[arg-type]
        return r.Evaluation.from_message(self.call(self.stub.Evaluate, request, timeout))

    def evaluate_batch(self, ruleset: str, positions: Sequence[str], *, notations: Iterable[str] | None = None,
                       brief: bool = False, max_positions: int = 0, max_seconds: float = 0.0,
                       timeout: float | None = None) -> list[r.BatchItem]:
        """Many positions; each item has its own status (one bad or heavy position does not fail
        the others: ``max_seconds`` is the time each position may take, 0 the server's limit)."""
        texts = _many_positions("evaluate_batch", positions)
        request = pb.EvaluateBatchRequest(ruleset=_ruleset("evaluate_batch", ruleset), positions=texts,
                                          notations=_notations(notations), brief=brief,  # type: ignore[arg-type]
                                          max_positions=max_positions, max_seconds=max_seconds)
        reply = self.call(self.stub.EvaluateBatch, request, timeout)
        return [  # (the position as sent: the reply shortens a long one that failed)
            r.BatchItem(text, status_code(item.status.code), item.status.message,
                        r.Evaluation.from_message(item.evaluation) if item.HasField("evaluation") else None)
            for text, item in zip(texts, reply.items)
        ]

    def lookup(self, ruleset: str, positions: str | Sequence[str], *, notations: Iterable[str] | None = None,
               timeout: float | None = None) -> list[r.LookupItem]:
        """Store only, never computing: found or not per position (one position or a list)."""
        texts = [positions] if isinstance(positions, str) else _many_positions("lookup", positions)
        request = pb.LookupRequest(ruleset=_ruleset("lookup", ruleset), positions=texts,
                                   notations=_notations(notations))  # type: ignore[arg-type]
        reply = self.call(self.stub.Lookup, request, timeout)
        return [
            r.LookupItem(text, item.found, status_code(item.status.code), item.status.message,
                         r.Evaluation.from_message(item.evaluation) if item.found else None)
            for text, item in zip(texts, reply.items)
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
                           [r.GameValue.from_message(t) for t in reply.terms], mean=r._fraction(a.mean),
                           left_stop=r._fraction(a.left_stop), right_stop=r._fraction(a.right_stop),
                           birthday=a.birthday, atomic_weight=r._value_or_none(a, "atomic_weight"))

    def options(self, ruleset: str, position: str, *, timeout: float | None = None) -> r.OptionsResult:
        """Each player's options of a position, with their values."""
        request = pb.OptionsRequest(ruleset=_ruleset("options", ruleset), position=_one_position("options", position))
        reply = self.call(self.stub.Options, request, timeout)

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
            c.server_version, c.engine_version, c.auth_required, list(c.services), c.limits.max_text,
            c.limits.max_seconds,
        )

    def stats(self, *, timeout: float | None = None) -> r.Stats:
        """The server's counters."""
        s = self.call(self.stub.GetStats, pb.GetStatsRequest(), timeout)
        return r.Stats(s.store_entries, s.store_bytes, s.hits, s.misses, s.evaluations_in_flight,
                       s.evaluations_total, s.positions_valued, s.shared, s.uptime_seconds,
                       s.unverified_entries, s.uploads_corrected)

    def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """The standard health check: ``"SERVING"``, ``"NOT_SERVING"``, ..."""
        stub = health_pb2_grpc.HealthStub(self.channel)
        reply = self.call(stub.Check, health_pb2.HealthCheckRequest(service=service), timeout)
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))

    def load(self, ruleset: str, positions: Iterable[str], *, batch_size: int = 256,
             progress: bool | Callable[[int, int], None] | None = None, **kwargs: Any) -> r.LoadSummary:
        """Bulk load: value every position on the server (see ``ruma.client.loader.load``)."""
        from ruma.client.loader import load

        return load(self, _ruleset("load", ruleset), _many_positions("load", positions), batch_size=batch_size,
                    progress=progress, **kwargs)

    # -- sweeps and censuses (the ruma.v1.Sweeps service; see ruma.client.sweeps_client) -----------
    def upload(self, ruleset: str, entries: Sequence[tuple[bytes, Any]], *, timeout: float | None = None) -> Any:
        """Store precomputed ``(canonical key, value)`` entries; needs a write token. The server
        re-values a sample and rejects the whole upload on any mismatch. Returns an ``UploadResult``."""
        from ruma.client import sweeps_client as sweep_client

        return sweep_client.upload(self, ruleset, entries, timeout=timeout)

    def contains(self, ruleset: str, keys: Sequence[bytes], *, timeout: float | None = None) -> list[bool]:
        """For each canonical key, whether the server's store holds it."""
        from ruma.client import sweeps_client as sweep_client

        return sweep_client.contains(self, ruleset, keys, timeout=timeout)

    def stream_census(self, ruleset: str, seeds: tuple[int, int], pots: tuple[int, int] | None = None, *,
                      by: str = "value", simplest: int = 3, notations: Iterable[str] | None = None,
                      compute_missing: bool = False, values: Sequence[str] = (), timeout: float | None = None) -> Any:
        """The census of a family as the server streams it: ``CensusRow``s, then a ``CensusSummary``;
        ``values`` (value expressions such as ``"*3"``) keeps only the positions of those values."""
        from ruma.client import sweeps_client as sweep_client

        request = sweep_client.census_request(ruleset, seeds, pots, by, simplest, _notations(notations), compute_missing,
                                              [values] if isinstance(values, str) else list(values))
        return sweep_client.stream_census(self, request, timeout)

    def census(self, ruleset: str, seeds: tuple[int, int], pots: tuple[int, int] | None = None, **kwargs: Any) -> Any:
        """The census of a family (``CensusResult``: rows and summary); see ``stream_census``."""
        from ruma.client import sweeps_client as sweep_client

        result = sweep_client.CensusResult()
        for item in self.stream_census(ruleset, seeds, pots, **kwargs):
            if isinstance(item, sweep_client.CensusRow):
                result.rows.append(item)
            else:
                result.summary = item
        return result
