"""Regenerate the Python stubs of every ``proto/ruma/v1/*.proto`` with grpc_tools.protoc.

    python proto/generate.py             # writes proto/ruma/v1/*_pb2.py, *_pb2_grpc.py, *_pb2.pyi
    python proto/generate.py --out DIR   # writes DIR/ruma/v1/... instead (tests/service/test_proto_sync.py)

The include root is ``proto/`` so that a file ``ruma/v1/x.proto`` generates imports of the form
``from ruma.v1 import x_pb2``; the distribution maps the package ``ruma.v1`` to ``proto/ruma/v1``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent


def proto_files(root: Path = PROTO_ROOT) -> list[Path]:
    """Every ``.proto`` file of the ``ruma.v1`` package, sorted."""
    return sorted((root / "ruma" / "v1").glob("*.proto"))


def generate(out: Path = PROTO_ROOT, root: Path = PROTO_ROOT) -> list[Path]:
    """Run protoc on every proto file into ``out``; returns the files written. Raises on failure."""
    from importlib.resources import files

    from grpc_tools import protoc

    well_known = str(files("grpc_tools") / "_proto")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for proto in proto_files(root):
        relative = proto.relative_to(root).as_posix()
        args = [
            "grpc_tools.protoc",
            f"-I{root}",
            f"-I{well_known}",
            f"--python_out={out}",
            f"--pyi_out={out}",
            f"--grpc_python_out={out}",
            relative,
        ]
        status = protoc.main(args)
        if status != 0:
            raise RuntimeError(f"protoc failed on {relative} (status {status})")
        stem = proto.stem
        written += [out / "ruma" / "v1" / f"{stem}{suffix}" for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")]
    return written


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: regenerate the stubs."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=PROTO_ROOT, help="output root (default: proto/)")
    args = parser.parse_args(argv)
    for path in generate(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
