"""The layering rules: the engine imports only the standard library and itself, the client never
imports the server, and ``engine/``, ``client/`` and ``server/`` pass ``mypy --strict``."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(folder: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def test_engine_imports_only_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path, names in imported_modules(ROOT / "engine").items():
        for name in names:
            top = name.split(".")[0]
            assert top in stdlib or name.startswith("ruma.engine"), f"{path} imports {name}"


@pytest.mark.parametrize("folder", ["engine", "client", "plot", "web"])
def test_server_is_never_imported(folder: str) -> None:
    for path, names in imported_modules(ROOT / folder).items():
        assert not any(name.startswith("ruma.server") for name in names), f"{path} imports the server"


def test_engine_client_and_server_pass_mypy_strict(tmp_path: Path) -> None:
    # One mypy run (they share most of the work). mypy cannot follow the package-dir mapping of an
    # editable install, so the sources are laid out as ruma/... in a temporary tree of symlinks.
    # The engine imports only the standard library; grpc and protobuf ship no type stubs here, and
    # the generated ruma.v1 stubs are not ours to fix: missing imports are Any and errors inside
    # ruma.v1 are ignored.
    package = tmp_path / "ruma"
    package.mkdir()
    (package / "__init__.py").write_text((ROOT / "src_root" / "__init__.py").read_text())
    (package / "py.typed").write_text("")
    for name, folder in (("engine", "engine"), ("client", "client"), ("server", "server"), ("v1", "proto/ruma/v1")):
        os.symlink(ROOT / folder, package / name)
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = True\nignore_missing_imports = True\n[mypy-ruma.v1.*]\nignore_errors = True\n")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental", "-p", "ruma.engine",
         "-p", "ruma.client", "-p", "ruma.server"],
        cwd=tmp_path, env={**os.environ, "MYPYPATH": str(tmp_path)}, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
