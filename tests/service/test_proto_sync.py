"""The committed stubs of proto/ruma/v1 are what grpc_tools.protoc generates from the .proto files.

Lines that only record the generator's version are ignored, so a newer grpcio-tools does not fail
the test unless the generated code itself changed.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from tests.support import ROOT

PROTO = ROOT / "proto"
VERSION_LINES = re.compile(
    r"^# Protobuf Python Version:.*$|^GRPC_GENERATED_VERSION = .*$|_runtime_version\.ValidateProtobufRuntimeVersion\([^)]*\)",
    re.MULTILINE,
)


def _generate_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("ruma_proto_generate", PROTO / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def normalise(text: str) -> str:
    return VERSION_LINES.sub("", text)


def test_committed_stubs_match_the_protos(tmp_path: Path) -> None:
    generate = _generate_module()
    written = generate.generate(tmp_path)
    assert written, "no .proto files found"
    for fresh in written:
        committed = PROTO / fresh.relative_to(tmp_path)
        assert committed.exists(), f"{committed} is not committed; run python proto/generate.py"
        assert normalise(committed.read_text()) == normalise(fresh.read_text()), (
            f"{committed.relative_to(ROOT)} is out of date; run python proto/generate.py"
        )


def test_generated_imports_use_the_package_mapping() -> None:
    text = (PROTO / "ruma" / "v1" / "ruma_pb2_grpc.py").read_text()
    assert "from ruma.v1 import ruma_pb2 as" in text
    from ruma.v1 import ruma_pb2, ruma_pb2_grpc

    assert ruma_pb2.DESCRIPTOR.package == "ruma.v1"
    assert hasattr(ruma_pb2_grpc, "RumaStub") and hasattr(ruma_pb2_grpc, "add_RumaServicer_to_server")


def test_every_proto_is_packaged() -> None:
    protos = sorted(p.name for p in (PROTO / "ruma" / "v1").glob("*.proto"))
    assert "ruma.proto" in protos
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["setuptools"]["package-dir"]["ruma.v1"] == "proto/ruma/v1"
    assert "*.proto" in config["tool"]["setuptools"]["package-data"]["ruma.v1"]
