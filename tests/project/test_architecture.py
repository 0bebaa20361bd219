"""The layering rules: the engine imports only the standard library and itself, the client and the
studies never import the server, each package of the server and the client imports only the
packages below it (the table ``MAY_IMPORT``, which each package's ``__init__`` states in words), and
every package (``engine/``, ``client/``, ``studies/``, ``server/``, ``plot/``, ``web/``) passes
``mypy --strict``."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT


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


@pytest.mark.parametrize("folder", ["engine", "client", "studies", "plot", "web"])
def test_server_is_never_imported(folder: str) -> None:
    for path, names in imported_modules(ROOT / folder).items():
        assert not any(name.startswith("ruma.server") for name in names), f"{path} imports the server"


#: what each package may import of ruma besides itself (prefixes); a subcommand module
#: (``commands.py`` of a server package) may also import the CLI's shared pieces, ``ruma.client``
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "ruma.engine.cgt": ("ruma.engine",),
    "ruma.engine.rulesets": ("ruma.engine",),
    "ruma.engine.families": ("ruma.engine",),
    "ruma.engine.tchoukaillon": ("ruma.engine.errors",),
    "ruma.engine.native": ("ruma.engine",),
    "ruma.engine": ("ruma.engine",),
    "ruma.server": ("ruma.engine",),
    "ruma.server.store": ("ruma.engine",),
    "ruma.server.work": ("ruma.engine", "ruma.v1", "ruma.server.store", "ruma.server.catalog"),
    "ruma.server.catalog": ("ruma.engine", "ruma.migrations", "ruma.server.store", "ruma.server.work"),
    "ruma.server.rpc": ("ruma.engine", "ruma.v1", "ruma.server"),
    "ruma.client.cli": ("ruma.engine", "ruma.v1", "ruma.client"),
    "ruma.client.sweep": ("ruma.engine", "ruma.v1", "ruma.client"),
    "ruma.client": ("ruma.engine", "ruma.v1", "ruma.client"),
    "ruma.studies": ("ruma.engine", "ruma.v1", "ruma.client"),
    "ruma.web": ("ruma.engine", "ruma.client", "ruma.studies"),
    "ruma.plot": ("ruma.engine", "ruma.client.cli"),
}
FOLDERS = {"ruma.engine": "engine", "ruma.server": "server", "ruma.client": "client", "ruma.studies": "studies",
           "ruma.web": "web", "ruma.plot": "plot"}


def package_of(path: Path) -> str:
    """The most specific package of ``MAY_IMPORT`` that holds the module at ``path``."""
    for top, folder in FOLDERS.items():
        base = ROOT / folder
        if path.is_relative_to(base):
            parts = path.relative_to(base).parts
            for depth in range(len(parts) - 1, -1, -1):
                name = ".".join((top, *parts[:depth]))
                if name in MAY_IMPORT:
                    return name
    raise AssertionError(f"{path} is in no package of MAY_IMPORT")


@pytest.mark.parametrize("folder", sorted(FOLDERS.values()))
def test_each_package_imports_only_what_its_layer_may(folder: str) -> None:
    for relative, names in imported_modules(ROOT / folder).items():
        path = ROOT / relative
        package = package_of(path)
        allowed = MAY_IMPORT[package] + (package,)
        if path.name == "commands.py" and package.startswith("ruma.server."):
            allowed += ("ruma.client",)
        for name in names:
            if name.startswith("ruma."):  # (the root package, ``ruma.__version__``, is for all)
                assert name.startswith(allowed), f"{relative} ({package}) imports {name}"


def test_nothing_below_the_service_imports_it() -> None:
    for relative, names in imported_modules(ROOT / "server").items():
        if not relative.startswith("server/rpc/"):
            assert not any(name.startswith("ruma.server.rpc") for name in names), f"{relative} imports ruma.server.rpc"


def test_every_package_says_what_lives_there_and_what_it_may_import() -> None:
    for folder in ("engine/families", "engine/tchoukaillon", "server/store", "server/work", "server/catalog",
                   "server/rpc", "client/cli", "client/sweep", "studies"):
        text = (ROOT / folder / "__init__.py").read_text(encoding="utf-8")
        assert "May import" in text, f"{folder}/__init__.py does not say what it may import"


def test_every_package_passes_mypy_strict(tmp_path: Path) -> None:
    # One mypy run (they share most of the work). mypy cannot follow the package-dir mapping of an
    # editable install, so the sources are laid out as ruma/... in a temporary tree of symlinks.
    # The engine imports only the standard library; grpc and protobuf ship no type stubs here, and
    # the generated ruma.v1 stubs are not ours to fix: missing imports are Any and errors inside
    # ruma.v1 are ignored.
    package = tmp_path / "ruma"
    package.mkdir()
    (package / "__init__.py").write_text((ROOT / "src_root" / "__init__.py").read_text())
    (package / "py.typed").write_text("")
    for name, folder in (("engine", "engine"), ("client", "client"), ("studies", "studies"), ("server", "server"),
                         ("plot", "plot"), ("web", "web"), ("v1", "proto/ruma/v1")):
        os.symlink(ROOT / folder, package / name)
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = True\nignore_missing_imports = True\n[mypy-ruma.v1.*]\nignore_errors = True\n")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental", "-p", "ruma.engine",
         "-p", "ruma.client", "-p", "ruma.studies", "-p", "ruma.server", "-p", "ruma.plot", "-p", "ruma.web"],
        cwd=tmp_path, env={**os.environ, "MYPYPATH": str(tmp_path)}, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
