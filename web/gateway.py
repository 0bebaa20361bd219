"""The gateway: the explorer's one way to the service, a gRPC client that speaks JSON-able dicts.

Every call goes through a ``ruma.client.Client`` with the gateway's token, or with the bearer
token of the HTTP request when it brings one (so the service's own tokens and per-token rights
apply to each visitor). gRPC failures become ``GatewayError`` with the HTTP status of Google's
standard mapping (``INVALID_ARGUMENT`` 400, ``DEADLINE_EXCEEDED`` 504, ``UNAVAILABLE`` 503 ...;
``RESOURCE_EXHAUSTED`` is 422, a limit the message names, or 429 when the service is busy) and the
server's message, quoted unchanged.

The explorer is read-only by default: it never changes the catalog. Asking about a position
lets the service value it (and cache the value, as any client would), within the service's limits
and the gateway's own ``max_positions`` budget per request.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import OrderedDict
from contextvars import ContextVar
from fractions import Fraction
from typing import Any, Callable, Iterable, NoReturn, TypeVar
from urllib.parse import quote

import grpc

from ruma.client import Client
from ruma.client.client import RumaRpcError
from ruma.engine.cgt.display import thermograph_svg
from ruma.engine.cgt.expression import DEFAULT_LIMITS
from ruma.engine.cgt.notation import cgsuite_text, parse_game
from ruma.engine.errors import RumaError

T = TypeVar("T")

#: gRPC status -> HTTP status (google.rpc.Code's documented HTTP mapping, as grpc-gateway uses)
HTTP_STATUS = {
    grpc.StatusCode.CANCELLED: 499, grpc.StatusCode.UNKNOWN: 500, grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504, grpc.StatusCode.NOT_FOUND: 404, grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403, grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429, grpc.StatusCode.FAILED_PRECONDITION: 400, grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400, grpc.StatusCode.UNIMPLEMENTED: 501, grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503, grpc.StatusCode.DATA_LOSS: 500,
}
#: values whose text is longer than this get no thermograph (drawn here, from the value's text: the
#: longest text a value expression may have)
MAX_SKETCH_TEXT = DEFAULT_LIMITS.max_length
#: distinct visitor tokens with an open channel
MAX_TOKEN_CLIENTS = 16
#: seconds the current HTTP request spent waiting for the service (read by the Server-Timing header;
#: unset outside a request)
GRPC_SECONDS: ContextVar[list[float]] = ContextVar("GRPC_SECONDS")


class GatewayError(Exception):
    """A failed request: the HTTP ``status``, the gRPC ``code`` name and the message to show."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        """The JSON body of the error response."""
        return {"error": {"status": self.status, "code": self.code, "message": self.message}}


def http_status(code: grpc.StatusCode, details: str = "") -> int:
    """The HTTP status of a gRPC failure: ``HTTP_STATUS``, except that ``RESOURCE_EXHAUSTED`` is
    ``422`` (a request beyond a limit of the service, which its message names) unless the service
    says to try again later (``429``: it is busy)."""
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and "try again later" not in details:
        return 422
    return HTTP_STATUS.get(code, 502)


def position_path(ruleset: str, position: str) -> str:
    """The shareable URL path of a position page: ``/sowing/(10)%5E3%2003%20(01)%5E2``."""
    return f"/{quote(ruleset, safe=':')}/{quote(position, safe='()')}"


def plain(item: Any) -> Any:
    """A catalog result as JSON-able data (dicts today; dataclasses after the client's rework)."""
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return plain(dataclasses.asdict(item))
    if isinstance(item, dict):
        return {k: plain(v) for k, v in item.items()}
    if isinstance(item, (list, tuple)):
        return [plain(v) for v in item]
    if isinstance(item, Fraction):
        return str(item)
    if isinstance(item, bytes):
        return item.hex()
    return item


def _text(x: Any) -> str | None:
    return None if x is None else str(x)


def _value(v: Any) -> dict[str, str]:
    return value_texts(v.unicode, v.ascii, v.braces)


def value_texts(unicode: str, ascii: str, braces: str) -> dict[str, str]:
    """A value's texts as the API gives them: the service's three notations and ``cgsuite``, CGSuite's
    own plain text (what the "copy as CGSuite" buttons copy), made from the ascii text."""
    return {"unicode": unicode, "ascii": ascii, "braces": braces, "cgsuite": cgsuite_text(ascii)}


def _local_game(ascii_value: str) -> Any:
    """The value as a game here (for its thermograph), or ``None`` when it is too large to draw."""
    if len(ascii_value) > MAX_SKETCH_TEXT:
        return None
    try:
        return parse_game(ascii_value)
    except (RumaError, RecursionError):  # beyond the expression limits: no drawing, never an error
        return None


def thermograph_data(ascii_value: str) -> dict[str, Any] | None:
    """The exact thermograph of a value: walls' vertices ``[x, t]`` (as text), mean, temperature."""
    g = _local_game(ascii_value)
    if g is None:
        return None
    th = g.thermograph
    return {
        "left_wall": [[str(x), str(t)] for t, x in th.left_wall.points],
        "right_wall": [[str(x), str(t)] for t, x in th.right_wall.points],
        "mean": str(th.mast), "temperature": str(th.temperature),
    }


def sketch(ascii_value: str) -> str:
    """The engine's thermograph sketch of a value (empty for huge values)."""
    g = _local_game(ascii_value)
    return "" if g is None else thermograph_svg(g)


class Gateway:
    """The service seen by the explorer (see the module doc)."""

    def __init__(self, address: str, *, token: str | None = None, timeout: float | None = 30.0,
                 max_positions: int = 0, read_only: bool = True, tls_ca: str | None = None,
                 client_factory: Callable[..., Client] = Client) -> None:
        self.address = address
        self.token = token
        self.timeout = timeout
        self.max_positions = max_positions
        self.read_only = read_only
        self._factory = client_factory
        self._tls_ca = tls_ca
        self._lock = threading.Lock()
        self._clients: OrderedDict[str | None, Client] = OrderedDict()
        self._rulesets: list[dict[str, Any]] | None = None
        self._rulesets_at = 0.0
        self.client(None)  # fail early on a malformed address

    # -- plumbing ---------------------------------------------------------------------------------
    def client(self, token: str | None) -> Client:
        """The client for a visitor's token (``None``: the gateway's own)."""
        with self._lock:
            client = self._clients.get(token)
            if client is None:
                client = self._factory(self.address, token=token if token is not None else self.token,
                                       timeout=self.timeout, tls_ca=self._tls_ca)
                self._clients[token] = client
                while len(self._clients) > MAX_TOKEN_CLIENTS:
                    _, old = self._clients.popitem(last=False)
                    old.close()
            else:
                self._clients.move_to_end(token)
            return client

    def close(self) -> None:
        """Close every channel."""
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()

    @staticmethod
    def call(function: Callable[[], T]) -> T:
        """Run one client call; gRPC and input errors become ``GatewayError``."""
        started = time.perf_counter()
        try:
            return function()
        except RumaRpcError as error:
            _raise(http_status(error.code, error.details), error.code.name, error.details or error.code.name)
        except RumaError as error:  # raised by the client before calling (bad notation, say)
            _raise(400, "INVALID_ARGUMENT", str(error))
        finally:
            spent = GRPC_SECONDS.get(None)
            if spent is not None:
                spent[0] += time.perf_counter() - started

    # -- the service --------------------------------------------------------------------------------
    def rulesets(self, token: str | None = None) -> list[dict[str, Any]]:
        """The rulesets the service offers (cached for a minute)."""
        if self._rulesets is None or time.monotonic() - self._rulesets_at > 60:
            caps = self.call(lambda: self.client(token).capabilities())
            self._rulesets = [{"name": r.name, "impartial": r.impartial, "version": r.version,
                               "description": r.description} for r in caps.rulesets]
            self._rulesets_at = time.monotonic()
        return self._rulesets

    def check_ruleset(self, ruleset: str, token: str | None = None) -> None:
        """Refuse a ruleset the service does not offer (404, naming the ones it does)."""
        names = [r["name"] for r in self.rulesets(token)]
        family, colon, _ = ruleset.partition(":")
        if ruleset not in names and not (colon and f"{family}:CODE" in names):  # octal:0.37 is of octal:CODE
            _raise(404, "NOT_FOUND", f"unknown ruleset {ruleset!r}; this service offers {', '.join(names)}")

    def position(self, ruleset: str, position: str, token: str | None = None, *, options: bool = True) -> dict[str, Any]:
        """Value, analyses, thermograph and (by default) each player's options of a position."""
        client = self.client(token)
        self.within_budget(ruleset, position, token)  # the options are then stored, or this is refused
        if options:
            reply = self.call(lambda: client.options(ruleset, position))
            evaluation = reply.evaluation
        else:
            evaluation = self.call(lambda: client.evaluate(ruleset, position))
        value = evaluation.value
        out: dict[str, Any] = {
            "ruleset": evaluation.ruleset, "position": evaluation.position, "canonical": evaluation.canonical,
            "mirrored": evaluation.mirrored, "url": position_path(evaluation.ruleset, evaluation.position),
            "value": _value(value), "outcome": evaluation.outcome, "nim_value": evaluation.nim_value,
            "analyses": {
                "left_stop": _text(evaluation.left_stop), "right_stop": _text(evaluation.right_stop),
                "mean": _text(evaluation.mean), "temperature": _text(evaluation.temperature),
                "birthday": evaluation.birthday,
                "atomic_weight": evaluation.atomic_weight.unicode if evaluation.atomic_weight else None,
            },
            "components": [{"position": c.position, "value": c.value.unicode, "from_store": c.from_store}
                           for c in evaluation.components],
            "from_store": evaluation.from_store,
            "unverified": evaluation.unverified,
            "thermograph": thermograph_data(value.ascii),
        }
        if options:
            out["left"] = [self._option(evaluation.ruleset, o, "L") for o in reply.left]
            out["right"] = [self._option(evaluation.ruleset, o, "R") for o in reply.right]
        return out

    @staticmethod
    def _option(ruleset: str, option: Any, player: str) -> dict[str, Any]:
        return {"position": option.position, "value": _value(option.value), "outcome": option.outcome,
                "nim_value": option.nim_value, "winning": option.outcome in ("P", player),
                "url": position_path(ruleset, option.position)}

    def value(self, expression: str, token: str | None = None) -> dict[str, Any]:
        """A value expression's canonical form and analyses (the service's ``Sum`` of one term)."""
        result = self.call(lambda: self.client(token).sum(expression))
        rows = {"outcome": result.outcome}
        if result.nim_value is not None:
            rows["nim_value"] = str(result.nim_value)
        for name in ("left_stop", "right_stop", "mean", "temperature", "birthday"):
            if getattr(result, name) is not None:
                rows[name] = str(getattr(result, name))
        if result.atomic_weight is not None:
            rows["atomic_weight"] = result.atomic_weight.unicode
        return {"expression": expression, "value": _value(result.value), "analyses": rows,
                "thermograph": thermograph_data(result.value.ascii)}

    def stats(self, token: str | None = None) -> dict[str, Any]:
        """The store's and the service's counters, with its limits."""
        client = self.client(token)
        stats = self.call(lambda: client.stats())
        caps = self.call(lambda: client.capabilities())
        return {"stats": plain(dataclasses.asdict(stats)),
                "limits": {"max_pots": caps.max_pots, "max_seeds": caps.max_seeds,
                           "max_positions": caps.max_positions, "max_batch_size": caps.max_batch_size},
                "server_version": caps.server_version, "engine_version": caps.engine_version,
                "services": caps.services, "gateway": {"read_only": self.read_only,
                                                       "max_positions": self.max_positions or None}}

    # -- the catalog --------------------------------------------------------------------------------
    def named_positions(self, token: str | None = None, *, name: str | None = None, tag: str | None = None,
                        ruleset: str | None = None, value: str | None = None, limit: int | None = None) -> list[Any]:
        """Named positions matching every filter (``value`` in any notation)."""
        catalog = self.client(token).catalog
        if not value or self.max_positions:
            listed = [self._named(p) for p in plain(self.call(
                lambda: catalog.list_positions(name=name, tag=tag, ruleset=ruleset, limit=None if value else limit)))]
            if not value:
                return listed
            for entry in listed:  # the search values each entry: within this explorer's budget first
                self.within_budget(entry["ruleset"], entry["position"], token)
        return [self._named(p) for p in plain(self.call(
            lambda: catalog.search(name=name, tag=tag, ruleset=ruleset, value=value, limit=limit)))]

    def within_budget(self, ruleset: str, position: str, token: str | None = None) -> None:
        """Value a position within this explorer's ``max_positions`` (if it has one) before a call
        that values it with the service's own limit: the value is then stored, or the request is
        refused (RESOURCE_EXHAUSTED, 422, the limit named) as the position page is."""
        if self.max_positions:
            client = self.client(token)
            self.call(lambda: client.evaluate(ruleset, position, max_positions=self.max_positions))

    @staticmethod
    def _named(entry: dict[str, Any]) -> dict[str, Any]:
        entry["url"] = position_path(entry["ruleset"], entry["position"])
        return entry

    def named_position(self, name: str, token: str | None = None) -> dict[str, Any]:
        """One named position with its value (valued within this explorer's budget)."""
        catalog = self.client(token).catalog
        if self.max_positions:
            for entry in plain(self.call(lambda: catalog.list_positions(name=name))):
                if entry["name"] == name:
                    self.within_budget(entry["ruleset"], entry["position"], token)
        return self._named(plain(self.call(lambda: catalog.show(name))))

    def tags(self, token: str | None = None) -> list[dict[str, Any]]:
        """Every tag with the number of named positions carrying it."""
        counts: dict[str, int] = {}
        for entry in self.named_positions(token):
            for tag in entry.get("tags") or ():
                counts[tag] = counts.get(tag, 0) + 1
        return [{"tag": t, "positions": n} for t, n in sorted(counts.items())]

    def theorems(self, token: str | None = None, ruleset: str | None = None) -> list[Any]:
        """Every theorem with its latest verification run."""
        catalog = self.client(token).catalog
        return list(plain(self.call(lambda: catalog.list_theorems(ruleset=ruleset))))

    def theorem(self, name: str, token: str | None = None) -> dict[str, Any]:
        """One theorem, its latest run and every run."""
        catalog = self.client(token).catalog
        theorem = plain(self.call(lambda: catalog.show_theorem(name)))
        theorem["runs"] = plain(self.call(lambda: catalog.runs(name)))
        return dict(theorem)

    def search_stored(self, ruleset: str, value: str, limit: int = 20, token: str | None = None) -> list[Any]:
        """Stored positions of ``ruleset`` whose value is ``value``, simplest first."""
        catalog = self.client(token).catalog
        found = plain(self.call(lambda: catalog.search_stored(ruleset, value, limit=limit)))
        for entry in found:
            entry["url"] = position_path(ruleset, entry["position"]) if entry.get("position") else None
        return list(found)

    def census(self, ruleset: str, seeds: tuple[int, int], pots: tuple[int, int] | None = None, *, by: str = "value",
               simplest: int = 3, token: str | None = None, values: Iterable[str] = (),
               timeout: float | None = None) -> dict[str, Any]:
        """The census of a family over the store's values (the service's ``Census`` RPC): rows grouped
        ``by`` value, outcome, atomic weight or temperature, each with its simplest positions, and a
        summary whose ``missing`` counts the classes not stored yet; ``values`` keeps only the
        positions of those values. Never asks the service to compute missing values (read-only).
        ``timeout``: the call's deadline (default the gateway's)."""
        client = self.client(token)
        result = self.call(lambda: client.census(ruleset, seeds, pots, by=by, simplest=simplest, values=list(values),
                                                 timeout=timeout))
        rows = plain(getattr(result, "rows", result))
        for row in rows:
            for position in row.get("simplest") or ():
                if isinstance(position, dict) and position.get("position"):
                    position["url"] = position_path(ruleset, position["position"])
        return {"ruleset": ruleset, "rows": rows, "summary": plain(getattr(result, "summary", None))}

    # -- writes (only with read_only=False) ---------------------------------------------------------
    def verify_theorem(self, name: str, up_to: int, token: str | None = None) -> dict[str, Any]:
        """Verify a theorem on its instances up to ``up_to`` (needs a write token on the service)."""
        self._writable()
        catalog = self.client(token).catalog
        return dict(plain(self.call(lambda: catalog.verify(name, up_to))))

    def add_named_position(self, name: str, ruleset: str, position: str, tags: Iterable[str] = (),
                           notes: str | None = None, token: str | None = None) -> dict[str, Any]:
        """Catalogue a position (needs a write token on the service)."""
        self._writable()
        catalog = self.client(token).catalog
        return self._named(plain(self.call(lambda: catalog.add_position(name, ruleset, position, tags=list(tags),
                                                                         notes=notes))))

    def _writable(self) -> None:
        if self.read_only:
            _raise(403, "PERMISSION_DENIED", "this explorer is read-only (start it with --allow-writes)")


def _raise(status: int, code: str, message: str) -> NoReturn:
    raise GatewayError(status, code, message)
