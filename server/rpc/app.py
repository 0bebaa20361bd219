"""Assemble the gRPC server: the Ruma servicer, health, reflection, the catalog when present.

``create_server(data_dir, host, port, ...) -> (RumaServer, port)`` is what ``ruma serve`` and the
tests use. It refuses a damaged store (``quick_check`` after the file checks made on open), TLS
files that do not load, and a data directory it cannot use, each with a message saying which.
The server is gRPC's asyncio server on an event loop of its own thread (``ServerLoop``): a call
waiting — for its request message, a worker, an answer — is a suspended coroutine, never a
thread, so no number of slow or silent clients can use up what other calls need. Every call is
admitted first (``ruma.server.rpc.admission``: tokens, each client's share, room kept for stored
lookups, the request's arrival);
stored lookups and heavy work run in worker processes (``ruma.server.work.pool``: reader and
evaluation workers) when the store is an ``LmdbStore`` and ``limits.workers`` is not 0, else on
threads of this process. ``RumaServer.stop(grace)`` shuts down gracefully: health reports
NOT_SERVING, calls in flight get ``grace`` seconds to finish (then they are cancelled, and their
evaluations stop at the next cancellation check), the workers are stopped, and finally the
store is flushed and closed.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import ipaddress
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Coroutine, Iterable, Mapping, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from ruma.engine.errors import RumaInputError
from ruma.engine.memo import Memo, capabilities
from ruma.server.rpc.admission import MAX_CALLS, MAX_PER_CLIENT, REQUEST_SECONDS, SHARE_WAIT, Admission
from ruma.server.rpc.auth import TokenCheck, load_tokens
from ruma.server.rpc.servicer import RumaServicer
from ruma.server.work.limits import Limits
from ruma.v1 import ruma_pb2, ruma_pb2_grpc

if TYPE_CHECKING:
    from ruma.server.store.memo import LmdbStore

log = logging.getLogger(__name__)
T = TypeVar("T")

RUMA_SERVICE = ruma_pb2.DESCRIPTOR.services_by_name["Ruma"].full_name
CATALOG_MODULE = "ruma.server.rpc.catalog"
#: how long ``stop`` waits for cancelled evaluations to notice before closing the store
STOP_WAIT_SECONDS = 5.0


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ServerLoop:
    """An asyncio event loop running on a thread of its own (the server's; ``ruma-rpc-loop``)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="ruma-rpc-loop", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coroutine`` on the loop and wait for its result from this thread."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        """Stop the loop and its thread."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.loop.close()


class RumaServer:
    """A started gRPC server with its store, health servicer and event loop."""

    def __init__(self, server: grpc.aio.Server, store: Memo, health_servicer: Any,
                 servicer: RumaServicer, address: str, close_store: bool, loop: ServerLoop) -> None:
        self.warnings: list[str] = []
        self.server = server
        self.store = store
        self.health = health_servicer
        self.servicer = servicer
        self.address = address
        self.loop = loop
        self._close_store = close_store
        self.closers: list[Any] = []
        self._stopped = threading.Event()
        self._stop_lock = threading.Lock()

    def start(self) -> None:
        """Start serving."""
        self.loop.call(self.server.start())

    async def _shutdown(self, grace: float | None) -> None:
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)

    def stop(self, grace: float | None = 5.0) -> None:
        """Graceful shutdown: NOT_SERVING, finish (or after ``grace`` s cancel) calls, flush, close."""
        with self._stop_lock:
            if self._stopped.is_set():
                return
            try:
                self.loop.call(self._shutdown(grace))
                if not self.servicer.wait_idle(STOP_WAIT_SECONDS):  # cancelled evaluations notice within a second
                    log.warning("evaluations still running %s s after shutdown; closing the store anyway", STOP_WAIT_SECONDS)
                self.loop.call(self.servicer.runner.close())
                for closer in self.closers:
                    close = getattr(closer, "close", None)
                    if callable(close):
                        close()
            finally:
                try:
                    persistent = capabilities(self.store).store
                    if persistent is not None:
                        persistent.flush()
                        if self._close_store:
                            persistent.close()
                finally:
                    self.loop.close()
                    self._stopped.set()

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """Block until ``stop`` finished (or ``timeout``); True when stopped."""
        return self._stopped.wait(timeout)

    def __enter__(self) -> "RumaServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop(0)


def _read(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise RumaInputError(f"cannot read {str(path)!r}: {error.strerror}") from error


def _open_store(data_dir: Path) -> "LmdbStore":
    """The LMDB store in ``data_dir``, checked (a damaged one raises ``StoreDamagedError``), the
    runs a killed sweep left in it stored (``store.runs``)."""
    from ruma.server.store.check import quick_check
    from ruma.server.store.memo import LmdbStore

    store = LmdbStore(data_dir)
    try:
        quick_check(store.core)
        store.adopt_runs()
    except BaseException:
        store.close()
        raise
    return store


def _data_directory(data_dir: str | Path) -> Path:
    """``data_dir``, created if missing; a file or a path that cannot be created is a ``StoreError``."""
    from ruma.server.store.codec import StoreError

    data = Path(data_dir)
    if data.exists() and not data.is_dir():
        raise StoreError(f"--data {str(data)!r} is a file, not a directory")
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot create the data directory {str(data)!r}: {error.strerror}") from error
    if not os.access(data, os.W_OK | os.X_OK):
        raise StoreError(f"cannot write to the data directory {str(data)!r}")
    return data


def _check_tls(cert: str | Path, key: str | Path) -> tuple[bytes, bytes]:
    """The PEM certificate chain and key, after checking that they load and belong together."""
    import ssl

    cert_pem, key_pem = _read(cert), _read(key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(str(cert), str(key))
    except ssl.SSLError as error:
        raise RumaInputError(f"the TLS certificate {str(cert)!r} and key {str(key)!r} do not load: "
                             f"{error.reason or error} (need a PEM certificate chain and its matching PEM key)") from None
    return cert_pem, key_pem


def _runner(store: Memo, servicer_memo: Memo, limits: Limits, readers: int | None) -> Any:
    """Worker processes for an ``LmdbStore`` (unless ``limits.workers`` is 0), else threads here
    (call on the server's loop)."""
    from ruma.server.work.inline import InlineRunner
    from ruma.server.work.pool import READERS, WorkerPool

    persistent = capabilities(store).store
    if persistent is not None and limits.workers > 0:
        def freed() -> None:
            persistent.admin.reader_check()  # the reader slot a killed worker left behind

        return WorkerPool(persistent.path, limits, limits.workers, max(1, READERS if readers is None else readers),
                          on_kill=freed)
    return InlineRunner(servicer_memo, store, limits)


def _add_catalog(server: grpc.aio.Server, data_dir: Path, store: Memo, closers: list[Any],
                 servicer: RumaServicer | None = None) -> list[str]:
    """Register the catalog servicer if its module exists; returns its service names.

    It gets the Ruma servicer (``ruma``) so that its evaluations go through the same limits,
    budgets and workers. Whatever ``add_catalog_servicer`` returns is closed at shutdown if it
    has a ``close`` method."""
    try:
        module = importlib.import_module(CATALOG_MODULE)
    except ModuleNotFoundError as error:
        if error.name != CATALOG_MODULE:
            raise
        return []
    add = module.add_catalog_servicer
    offered: dict[str, Any] = {"data_dir": data_dir, "data": data_dir, "store": store, "ruma": servicer,
                               "limits": servicer.limits if servicer is not None else None}
    parameters = inspect.signature(add).parameters
    kwargs = {name: value for name, value in offered.items() if name in parameters}
    added = add(server, **kwargs)
    closers.append(added)
    names: list[str] = []
    try:
        catalog_pb2 = importlib.import_module("ruma.v1.catalog_pb2")
        names = [service.full_name for service in catalog_pb2.DESCRIPTOR.services_by_name.values()]
    except ModuleNotFoundError:
        pass
    return names


def _upload_verifier(servicer: RumaServicer) -> Any:
    """The thread that re-values unverified uploads when the server is idle (stopped at shutdown)."""
    from ruma.server.rpc import sweeps

    return sweeps.start_upload_verifier(servicer)


def _add_sweeps(server: grpc.aio.Server, servicer: RumaServicer, verify_fraction: float | None) -> list[str]:
    """Register the ``Sweeps`` service (uploads of precomputed values, censuses); its names."""
    from ruma.server.rpc import sweeps

    if verify_fraction is None:
        sweeps.add_sweeps_servicer(server, servicer)
    else:
        sweeps.add_sweeps_servicer(server, servicer, verify_fraction)
    return [sweeps.SERVICE]


def create_server(
    data_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    tokens: Mapping[str, str] | None = None,
    token_file: str | Path | None = None,
    tls_cert: str | Path | None = None,
    tls_key: str | Path | None = None,
    limits: Limits | None = None,
    store: Memo | None = None,
    write_methods: Iterable[str] = (),
    catalog: bool = True,
    start: bool = True,
    verify_fraction: float | None = None,
    log_requests: bool = True,
    max_per_client: int = MAX_PER_CLIENT,
    max_calls: int = MAX_CALLS,
    request_seconds: float = REQUEST_SECONDS,
    share_wait: float = SHARE_WAIT,
    readers: int | None = None,
) -> tuple[RumaServer, int]:
    """Build (and by default start) the server on ``host:port`` (0: any free port); returns it and the port.

    Without tokens (``tokens`` or ``token_file``) only a loopback ``host`` is accepted. ``store``
    defaults to the LMDB store in ``data_dir`` (flushed and closed by ``stop``). ``verify_fraction``
    is the share of every ``Sweeps.Upload`` the server re-values (default 1%). ``log_requests``
    logs one line per call (``ruma.server.rpc.request_log``). ``max_per_client``: calls one client
    (a token, else an address) may have open; ``max_calls``: calls the server takes (a quarter kept
    for stored lookups); ``request_seconds``: how long a call's request message may take to arrive;
    ``share_wait``: how long a call of a client over its share waits for one of the client's calls to
    end before it is refused; ``readers``: reader worker processes (default ``pool.READERS``).
    """
    data = _data_directory(data_dir)
    if token_file is not None:
        tokens = load_tokens(token_file)
    if not tokens and not is_loopback(host):
        raise RumaInputError(f"refusing to listen on {host!r} without a token file: only loopback addresses are allowed")
    if (tls_cert is None) != (tls_key is None):
        raise RumaInputError("TLS needs both a certificate (--tls-cert) and its key (--tls-key)")
    pem = _check_tls(tls_cert, tls_key) if tls_cert is not None and tls_key is not None else None
    warnings = []
    if tokens and pem is None and not is_loopback(host):
        warnings.append(f"tokens travel in clear text: listening on {host!r} without TLS (give --tls-cert and --tls-key)")
        log.warning(warnings[-1])
    own_store = store is None
    the_store = store if store is not None else _open_store(data)
    loop = ServerLoop()
    try:
        wrapper, bound = loop.call(_build(
            data, host, port, the_store, own_store, loop, tokens=tokens, pem=pem, limits=limits,
            write_methods=write_methods, catalog=catalog, verify_fraction=verify_fraction,
            log_requests=log_requests, max_per_client=max_per_client, max_calls=max_calls,
            request_seconds=request_seconds, share_wait=share_wait, readers=readers))
        wrapper.warnings = warnings
        if start:
            wrapper.start()
    except BaseException:
        loop.close()
        persistent = capabilities(the_store).store
        if own_store and persistent is not None:
            persistent.close()
        raise
    return wrapper, bound


async def _build(data: Path, host: str, port: int, the_store: Memo, own_store: bool, loop: ServerLoop, *,
                 tokens: Mapping[str, str] | None, pem: tuple[bytes, bytes] | None, limits: Limits | None,
                 write_methods: Iterable[str], catalog: bool, verify_fraction: float | None, log_requests: bool,
                 max_per_client: int, max_calls: int, request_seconds: float, share_wait: float,
                 readers: int | None) -> tuple[RumaServer, int]:
    """The server, on its loop (see ``create_server``)."""
    servicer = RumaServicer(the_store, limits, auth_required=bool(tokens), data_dir=data)
    servicer.loop = asyncio.get_running_loop()
    admission = Admission(TokenCheck(tokens, write_methods) if tokens else None, max_per_client=max_per_client,
                          max_calls=max_calls, request_seconds=request_seconds, share_wait=share_wait,
                          log_requests=log_requests)
    server = grpc.aio.server(
        interceptors=[admission],
        options=[
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.so_reuseport", 0),  # a second server on a port in use fails instead of sharing it
            # the backlog of calls gRPC holds before admission has picked them up, past which it refuses
            # new ones itself (its defaults, 1,000 and 3,000, let one client's burst of new calls get
            # other clients' calls cancelled, before admission could tell them apart)
            ("grpc.server.max_pending_requests", 2 * max_calls),
            ("grpc.server.max_pending_requests_hard_limit", 4 * max_calls),
        ],
    )
    wrapper_closers: list[Any] = []
    servicer.runner = _runner(the_store, servicer.memo, servicer.limits, readers)
    try:
        services = [RUMA_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME]
        servicer.services = services
        ruma_pb2_grpc.add_RumaServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]  # generated, unannotated
        services += _add_sweeps(server, servicer, verify_fraction)
        wrapper_closers.append(_upload_verifier(servicer))
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        if catalog:
            services += _add_catalog(server, data, the_store, wrapper_closers, servicer)
        servicer.services = list(services)
        reflection.enable_server_reflection(services, server)
        address = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
        try:
            if pem is not None:
                credentials = grpc.ssl_server_credentials([(pem[1], pem[0])])
                bound = server.add_secure_port(address, credentials)
            else:
                bound = server.add_insecure_port(address)
        except RuntimeError:
            bound = 0
        if bound == 0:
            raise RumaInputError(f"cannot listen on {address!r} (address in use or not available)")
        for name in ["", *services]:
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    except BaseException:
        await servicer.runner.close()
        for closer in wrapper_closers:
            close = getattr(closer, "close", None)
            if callable(close):
                close()
        raise
    wrapper = RumaServer(server, the_store, health_servicer, servicer, address.rsplit(":", 1)[0] + f":{bound}",
                         own_store, loop)
    wrapper.closers = wrapper_closers
    return wrapper, bound
