"""Bearer tokens: no token, a bad token, a read-only token on a write method; loopback-only binding."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import grpc
import pytest

from ruma.client import RumaRpcError
from ruma.engine.errors import RumaInputError
from ruma.server.rpc.auth import WRITE_METHODS, TokenFileError, load_tokens, register_write_methods
from tests.support.grpc_harness import connect, running_server

READ_TOKEN = "r3ad-0nly-t0ken"
WRITE_TOKEN = "wr1te-t0ken"
#: a method this test server treats as a write (the catalog registers its own writes the same way)
WRITE_METHOD = "/ruma.v1.Ruma/GetStats"


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("auth")
    token_file = data / "tokens"
    token_file.write_text(f"# who may call\n{READ_TOKEN} read\n\n{WRITE_TOKEN}   write  # the loader\n")
    with running_server(data, token_file=token_file, write_methods=[WRITE_METHOD], catalog=True) as (_, address):
        yield address


def test_no_token_is_unauthenticated(address: str) -> None:
    with connect(address) as client, pytest.raises(RumaRpcError) as error:
        client.evaluate("sowing", "312")
    assert error.value.code == grpc.StatusCode.UNAUTHENTICATED and "Bearer" in error.value.details


@pytest.mark.parametrize("token", ["wrong", READ_TOKEN + "x", READ_TOKEN[:-1]])
def test_bad_token_is_unauthenticated(address: str, token: str) -> None:
    with connect(address, token=token) as client, pytest.raises(RumaRpcError) as error:
        client.capabilities()
    assert error.value.code == grpc.StatusCode.UNAUTHENTICATED and "unknown token" in error.value.details


def test_wrong_scheme_is_unauthenticated(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        from ruma.v1 import ruma_pb2 as pb
        from ruma.v1 import ruma_pb2_grpc

        stub = ruma_pb2_grpc.RumaStub(channel)
        with pytest.raises(grpc.RpcError) as error:
            stub.GetCapabilities(pb.GetCapabilitiesRequest(), metadata=(("authorization", f"Basic {READ_TOKEN}"),), timeout=10)
    assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_read_token_reads_but_cannot_write(address: str) -> None:
    with connect(address, token=READ_TOKEN) as client:
        assert client.evaluate("sowing", "312").value.ascii
        assert client.capabilities().auth_required
        catalog, pb = _catalog(client)
        client.call(catalog.ListPositions, pb.ListPositionsRequest())  # catalog reads are allowed
        with pytest.raises(RumaRpcError) as error:  # a catalog write (registered by the catalog servicer)
            client.call(catalog.AddPosition, pb.AddPositionRequest(name="worked-example", ruleset="sowing", position="312"))
        assert error.value.code == grpc.StatusCode.PERMISSION_DENIED and "read-only" in error.value.details
        with pytest.raises(RumaRpcError) as error:  # a method this server was configured to treat as a write
            client.stats()
        assert error.value.code == grpc.StatusCode.PERMISSION_DENIED and "AddPosition" not in error.value.details


def test_write_token_may_call_everything(address: str) -> None:
    with connect(address, token=WRITE_TOKEN) as client:
        assert client.evaluate("sowing", "312").from_store  # valued by the read test
        assert client.stats().evaluations_total >= 1
        catalog, pb = _catalog(client)
        added = client.call(catalog.AddPosition,
                            pb.AddPositionRequest(name="worked-example-312", ruleset="sowing", position="312"))
        assert added.name == "worked-example-312"
        assert client.catalog is client.catalog  # the typed catalog client, created once


def test_health_needs_no_token_but_reflection_does(address: str) -> None:
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    with connect(address) as client:
        assert client.health() == "SERVING"
    with grpc.insecure_channel(address) as channel:
        with pytest.raises(grpc.RpcError) as error:
            list(ProtoReflectionDescriptorDatabase(channel).get_services())
        assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]


def test_without_tokens_only_loopback(tmp_path: Path) -> None:
    from ruma.server.rpc.app import create_server

    with pytest.raises(RumaInputError, match="token file"):
        create_server(tmp_path, host="0.0.0.0", port=0)


def test_token_file_errors_quote_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "tokens"
    bad.write_text("abc read\nxyz admin\n")
    with pytest.raises(TokenFileError, match="line 2.*'xyz admin'"):
        load_tokens(bad)
    bad.write_text("# nothing\n")
    with pytest.raises(TokenFileError, match="no tokens"):
        load_tokens(bad)
    with pytest.raises(TokenFileError, match="cannot read"):
        load_tokens(tmp_path / "missing")
    assert load_tokens(_write(tmp_path / "ok", "a read\nb WRITE\n")) == {"a": "read", "b": "write"}


def test_write_methods_can_be_registered() -> None:
    register_write_methods("/ruma.v1.Example/Write")
    try:
        assert "/ruma.v1.Example/Write" in WRITE_METHODS
        with pytest.raises(ValueError):
            register_write_methods("Write")
    finally:
        WRITE_METHODS.discard("/ruma.v1.Example/Write")


def _catalog(client: object) -> tuple[object, object]:
    """The raw catalog stub on the client's channel, and the catalog's messages."""
    from ruma.v1 import catalog_pb2, catalog_pb2_grpc

    return catalog_pb2_grpc.CatalogStub(client.channel), catalog_pb2  # type: ignore[attr-defined]


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_tls_with_a_token(tmp_path: Path) -> None:
    import shutil
    import subprocess

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: cannot make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    tokens = {WRITE_TOKEN: "write"}
    with running_server(tmp_path / "data", tokens=tokens, tls_cert=cert, tls_key=key) as (_, address):
        with connect(address, token=WRITE_TOKEN, tls_ca=cert) as client:
            assert client.evaluate("sowing", "312").value.ascii == "{0|-2}"  # Erickson §2
        with connect(address, token=WRITE_TOKEN, timeout=5) as plaintext, pytest.raises(RumaRpcError) as error:
            plaintext.capabilities()
        assert error.value.code == grpc.StatusCode.UNAVAILABLE


def test_port_in_use_and_missing_tls_files_are_clear_errors(tmp_path: Path) -> None:
    from ruma.server.rpc.app import create_server

    with running_server(tmp_path / "a") as (_, address):
        port = int(address.rsplit(":", 1)[1])
        with pytest.raises(RumaInputError, match="cannot listen"):
            create_server(tmp_path / "b", port=port, catalog=False)
    with pytest.raises(RumaInputError, match="cannot read .*missing.pem"):
        create_server(tmp_path / "c", tls_cert=tmp_path / "missing.pem", tls_key=tmp_path / "missing.pem", catalog=False)


def test_tokens_travel_as_call_credentials_where_grpc_allows(tmp_path: Path) -> None:
    from ruma.client import Client

    with Client("127.0.0.1:1", token="t") as loopback, Client("[::1]:1", token="t") as v6:
        assert loopback.metadata == () and v6.metadata == ()  # local credentials + access token
    with Client("192.0.2.1:1", token="t") as remote:  # plaintext to another host: gRPC refuses call credentials
        assert remote.metadata == (("authorization", "Bearer t"),)
    with running_server(tmp_path / "data", tokens={WRITE_TOKEN: "write"}) as (_, address):
        for host in ("127.0.0.1", "localhost"):
            port = address.rsplit(":", 1)[1]
            with connect(f"{host}:{port}", token=WRITE_TOKEN) as client:
                assert client.evaluate("sowing", "312").value.ascii == "{0|-2}"  # Erickson §2
