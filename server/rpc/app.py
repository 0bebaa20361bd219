"""Assemble the gRPC server: the Ruma servicer, health, reflection, the catalog when present.

``create_server(data_dir, host, port, ...) -> (RumaServer, port)`` is what ``ruma serve`` and the
tests use. It refuses a damaged store (``quick_check`` after the file checks made on open), TLS
files that do not load, and a data directory it cannot use, each with a message saying which.
Heavy work runs in evaluation worker processes (``ruma.server.work.pool``) when the store is an
``LmdbStore`` and ``limits.workers`` is not 0. ``RumaServer.stop(grace)`` shuts down gracefully:
health reports NOT_SERVING, calls in flight get ``grace`` seconds to finish (then they are
cancelled, and their evaluations stop at the next cancellation check), the workers are stopped,
and finally the store is flushed and closed.
"""

from __future__ import annotations

import importlib
import inspect
import ipaddress
import logging
import os
import threading
from concurrent import futures
from pathlib import Path
from typing import Any, Iterable, Mapping

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from ruma.engine.errors import RumaInputError
from ruma.engine.memo import Memo
from ruma.server.rpc.auth import TokenInterceptor, load_tokens
from ruma.server.work.limits import Limits
from ruma.server.rpc.request_log import RequestLogInterceptor
from ruma.server.rpc.servicer import RumaServicer
from ruma.v1 import ruma_pb2, ruma_pb2_grpc

log = logging.getLogger("ruma.server")

RUMA_SERVICE = ruma_pb2.DESCRIPTOR.services_by_name["Ruma"].full_name
CATALOG_MODULE = "ruma.server.rpc.catalog"
#: how long ``stop`` waits for cancelled evaluations to notice before closing the store
STOP_WAIT_SECONDS = 5.0


def default_workers() -> int:
    """Threads serving calls. Evaluation is CPU-bound Python (one core at a time under the GIL),
    so more threads do not compute faster; they keep cheap calls (store hits, health, stats)
    answered while a few long evaluations run, and let single-flight followers wait."""
    return max(8, 4 * (os.cpu_count() or 2))


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine."""
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class RumaServer:
    """A started gRPC server with its store and health servicer."""

    def __init__(self, server: grpc.Server, store: Memo, health_servicer: health.HealthServicer,
                 servicer: RumaServicer, address: str, close_store: bool) -> None:
        self.warnings: list[str] = []
        self.server = server
        self.store = store
        self.health = health_servicer
        self.servicer = servicer
        self.address = address
        self._close_store = close_store
        self.closers: list[Any] = []
        self.executor: futures.ThreadPoolExecutor | None = None
        self._stopped = threading.Event()
        self._stop_lock = threading.Lock()

    def start(self) -> None:
        """Start serving."""
        self.server.start()

    def stop(self, grace: float | None = 5.0) -> None:
        """Graceful shutdown: NOT_SERVING, finish (or after ``grace`` s cancel) calls, flush, close."""
        with self._stop_lock:
            if self._stopped.is_set():
                return
            self.health.enter_graceful_shutdown()
            try:
                self.server.stop(grace).wait()
                if not self.servicer.wait_idle(STOP_WAIT_SECONDS):  # cancelled evaluations notice within a second
                    log.warning("evaluations still running %s s after shutdown; closing the store anyway", STOP_WAIT_SECONDS)
                if self.executor is not None:
                    self.executor.shutdown(wait=False)
                self.servicer.runner.close()
                for closer in self.closers:
                    close = getattr(closer, "close", None)
                    if callable(close):
                        close()
            finally:
                for method in ("flush", "close") if self._close_store else ("flush",):
                    call = getattr(self.store, method, None)
                    if callable(call):
                        call()
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


def _open_store(data_dir: Path) -> Memo:
    """The LMDB store in ``data_dir``, checked: a damaged one raises ``StoreDamagedError``."""
    from ruma.server.store.memo import LmdbStore
    from ruma.server.store.check import quick_check

    store = LmdbStore(data_dir)
    try:
        quick_check(store.core)
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


def _runner(store: Memo, data: Path, servicer_memo: Memo, limits: Limits) -> Any:
    """Evaluation worker processes for an ``LmdbStore`` (unless ``limits.workers`` is 0), else inline."""
    from ruma.server.store.memo import LmdbStore
    from ruma.server.work.pool import InlineRunner, WorkerPool

    if isinstance(store, LmdbStore) and limits.workers > 0:
        def freed() -> None:
            store.reader_check()  # the reader slot a killed worker left behind

        return WorkerPool(store.path, limits, limits.workers, on_kill=freed)
    return InlineRunner(servicer_memo, store, limits)


def _add_catalog(server: grpc.Server, data_dir: Path, store: Memo, closers: list[Any],
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


def _add_sweeps(server: grpc.Server, servicer: RumaServicer, verify_fraction: float | None) -> list[str]:
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
    max_workers: int | None = None,
    store: Memo | None = None,
    write_methods: Iterable[str] = (),
    catalog: bool = True,
    start: bool = True,
    verify_fraction: float | None = None,
    log_requests: bool = True,
) -> tuple[RumaServer, int]:
    """Build (and by default start) the server on ``host:port`` (0: any free port); returns it and the port.

    Without tokens (``tokens`` or ``token_file``) only a loopback ``host`` is accepted. ``store``
    defaults to the LMDB store in ``data_dir`` (flushed and closed by ``stop``). ``verify_fraction``
    is the share of every ``Sweeps.Upload`` the server re-values (default 1%). ``log_requests``
    logs one line per call (``ruma.server.rpc.request_log``).
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
    interceptors: list[grpc.ServerInterceptor] = [RequestLogInterceptor()] if log_requests else []
    if tokens:
        interceptors.append(TokenInterceptor(tokens, write_methods))
    workers = max_workers or default_workers()
    executor = futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ruma-rpc")
    server = grpc.server(
        executor,
        interceptors=interceptors,
        maximum_concurrent_rpcs=workers * 16,
        options=[
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.so_reuseport", 0),  # a second server on a port in use fails instead of sharing it
        ],
    )
    own_store = store is None
    wrapper_closers: list[Any] = []
    the_store = store if store is not None else _open_store(data)
    servicer: RumaServicer | None = None
    try:
        services = [RUMA_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME]
        servicer = RumaServicer(the_store, limits, services, auth_required=bool(tokens))
        servicer.runner = _runner(the_store, data, servicer.memo, servicer.limits)
        ruma_pb2_grpc.add_RumaServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]  # generated, unannotated
        services += _add_sweeps(server, servicer, verify_fraction)
        wrapper_closers.append(_upload_verifier(servicer))
        health_servicer = health.HealthServicer(experimental_non_blocking=True)
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
            health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        wrapper = RumaServer(server, the_store, health_servicer, servicer, address.rsplit(":", 1)[0] + f":{bound}", own_store)
        wrapper.closers = wrapper_closers
        wrapper.executor = executor
        wrapper.warnings = warnings
        if start:
            wrapper.start()
    except BaseException:
        if servicer is not None:
            servicer.runner.close()
        if own_store:
            close = getattr(the_store, "close", None)
            if callable(close):
                close()
        raise
    return wrapper, bound
