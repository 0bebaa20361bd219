"""The layering rules: the engine imports only the standard library and itself, the client and the
studies never import the server, each unit (a package, or one of the engine's modules) imports only
the units below it (the table ``MAY_IMPORT``, which each package's ``__init__`` states in words; the
engine's order ``ENGINE_LAYERS``), no two units import each other even by a detour, and every package
(``engine/``, ``client/``, ``studies/``, ``server/``, ``plot/``, ``web/``) passes ``mypy --strict``."""

from __future__ import annotations

import ast
import builtins
import os
import re
import subprocess
import sys
import tomllib
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


#: What each unit may import of ruma besides itself. A unit is a package, or a module given its own
#: line (the engine's top-level modules, the compiled rulesets and search). Within one of ruma's
#: parts (``ruma.engine``, ``ruma.server``, ``ruma.client``, ...) a line names exactly the units it
#: may import; across parts, naming a package admits everything in it. ``ruma`` itself
#: (``ruma.__version__``) is for all. Each package's ``__init__`` says the same in its "May import"
#: line (the ``ruma.*`` names before its dash).
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "ruma": (),
    # the engine, from the bottom (``ENGINE_LAYERS``)
    "ruma.engine.errors": (),
    "ruma.engine.frame": (),
    "ruma.engine.limits": (),
    "ruma.engine.native": ("ruma.engine.errors",),
    "ruma.engine.cgt": ("ruma.engine.errors", "ruma.engine.native"),
    "ruma.engine.octal": ("ruma.engine.errors",),
    "ruma.engine.tchoukaillon": ("ruma.engine.errors",),
    "ruma.engine.rulesets": ("ruma.engine.errors", "ruma.engine.native", "ruma.engine.cgt", "ruma.engine.octal"),
    "ruma.engine.stores": ("ruma.engine.cgt",),
    "ruma.engine.memo": ("ruma.engine.errors", "ruma.engine.native", "ruma.engine.cgt", "ruma.engine.stores"),
    "ruma.engine.search": ("ruma.engine.errors", "ruma.engine.cgt", "ruma.engine.rulesets", "ruma.engine.memo"),
    "ruma.engine.verify": ("ruma.engine.errors", "ruma.engine.cgt", "ruma.engine.rulesets"),
    "ruma.engine.families": ("ruma.engine.errors", "ruma.engine.cgt", "ruma.engine.rulesets", "ruma.engine.memo"),
    "ruma.engine.native.search": ("ruma.engine.errors", "ruma.engine.native", "ruma.engine.cgt", "ruma.engine.rulesets",
                                  "ruma.engine.memo", "ruma.engine.search"),
    "ruma.engine.native.rulesets": ("ruma.engine.native", "ruma.engine.rulesets", "ruma.engine.native.search"),
    "ruma.engine.evaluator": ("ruma.engine.errors", "ruma.engine.cgt", "ruma.engine.rulesets", "ruma.engine.memo",
                              "ruma.engine.search", "ruma.engine.native.search"),
    "ruma.engine": ("ruma.engine.errors",),
    # the generated stubs and the catalog's migrations
    "ruma.v1": (),
    "ruma.migrations": (),
    # the server, from the bottom
    "ruma.server": (),
    "ruma.server.store": ("ruma.engine",),
    "ruma.server.catalog": ("ruma.engine", "ruma.migrations", "ruma.server.store"),
    "ruma.server.work": ("ruma.engine", "ruma.v1", "ruma.server.store", "ruma.server.catalog"),
    "ruma.server.rpc": ("ruma.engine", "ruma.v1", "ruma.server.store", "ruma.server.catalog", "ruma.server.work"),
    # the client, from the bottom, and what stands on it
    "ruma.client": ("ruma.engine", "ruma.v1"),
    "ruma.client.cli": ("ruma.engine", "ruma.v1", "ruma.client"),
    "ruma.client.sweep": ("ruma.engine", "ruma.v1", "ruma.client", "ruma.client.cli"),
    "ruma.studies": ("ruma.engine", "ruma.v1", "ruma.client"),
    "ruma.web": ("ruma.engine", "ruma.client", "ruma.studies"),
    "ruma.plot": ("ruma.engine", "ruma.client.cli"),
}

#: the engine's units from the bottom up: each imports only units of the layers below its own
ENGINE_LAYERS: tuple[tuple[str, ...], ...] = (
    ("ruma.engine.errors", "ruma.engine.frame", "ruma.engine.limits"),
    ("ruma.engine.native",),  # the compiled core and the engine choice
    ("ruma.engine.cgt", "ruma.engine.octal", "ruma.engine.tchoukaillon"),
    ("ruma.engine.rulesets", "ruma.engine.stores"),
    ("ruma.engine.memo",),
    ("ruma.engine.search", "ruma.engine.verify", "ruma.engine.families"),
    ("ruma.engine.native.search",),
    ("ruma.engine.native.rulesets",),
    ("ruma.engine.evaluator",),
    ("ruma.engine",),  # its ``__init__``: the errors, and the rest by name on first use
)

#: what a server package's subcommand module (``commands.py``) may import besides: the CLI's shared
#: pieces (errors, options, output, progress) and the records its listings share with the client's
COMMANDS_MAY_IMPORT = ("ruma.client.cli.errors", "ruma.client.cli.options", "ruma.client.cli.output",
                       "ruma.client.records", "ruma.client.progress", "ruma.client.catalog_client")


#: loggers named for what they carry, not for a module: the request log (one line per call)
LOG_CHANNELS = ("ruma.requests",)


def tree() -> dict[str, Path]:
    """Every module of ruma in the tree, by dotted name (a package by its ``__init__.py``), found in the
    folders ``pyproject.toml``'s package-dir maps."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: dict[str, Path] = {}
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            name = ".".join((package, *(parts[:-1] if parts[-1] == "__init__" else parts)))
            found.setdefault(name, path)
    return found


TREE = tree()
PACKAGES = sorted(name for name, path in TREE.items() if path.name == "__init__.py")


def unit_of(name: str) -> str | None:
    """The unit of ``MAY_IMPORT`` that holds the module ``name`` (its longest line)."""
    units = [unit for unit in MAY_IMPORT if name == unit or name.startswith(unit + ".")]
    return max(units, key=len) if units else None


def part_of(unit: str) -> str:
    """The part of ruma a unit belongs to (``ruma.engine``, ``ruma.client``, ...)."""
    return ".".join(unit.split(".")[:2])


def admits(importer: str, allowed: str, unit: str) -> bool:
    """Whether ``importer``'s line naming ``allowed`` lets it import ``unit``."""
    return unit == allowed or (part_of(importer) != part_of(allowed) and unit.startswith(allowed + "."))


def may_import(importer: str, unit: str) -> bool:
    """Whether ``MAY_IMPORT`` lets the unit ``importer`` import the unit ``unit``."""
    return unit in (importer, "ruma") or any(admits(importer, allowed, unit) for allowed in MAY_IMPORT[importer])


def imports_of(name: str) -> set[str]:
    """The ruma modules the module ``name`` imports (anywhere in it: lazily, for type checking)."""
    path = TREE[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) if node.level else ""
            target = ".".join(part for part in (base, node.module or "") if part)
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in TREE else target)
    return {imported for imported in found if imported == "ruma" or imported.startswith("ruma.")}


def import_graph() -> dict[str, set[str]]:
    """Unit → the other units its modules import."""
    graph: dict[str, set[str]] = {unit: set() for unit in MAY_IMPORT}
    for name in TREE:
        unit = unit_of(name)
        assert unit is not None, f"{name} is in no unit of MAY_IMPORT"
        for imported in imports_of(name):
            target = unit_of(imported)
            if target is not None and target not in (unit, "ruma"):
                graph[unit].add(target)
    return graph


def allowed_graph() -> dict[str, set[str]]:
    """Unit → the other units ``MAY_IMPORT`` lets it import."""
    return {unit: {other for other in MAY_IMPORT if other not in (unit, "ruma") and may_import(unit, other)}
            for unit in MAY_IMPORT}


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (its nodes, the first repeated at the end), or ``None``."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for after in sorted(graph.get(node, ())):
            if state.get(after) == 1:
                return path[path.index(after):] + [after]
            if after not in state:
                found = visit(after)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_every_package_and_every_engine_module_is_a_unit() -> None:
    missing = [name for name in TREE if name in PACKAGES or name.rpartition(".")[0] == "ruma.engine"
               if name not in MAY_IMPORT]
    assert not missing, f"no line in MAY_IMPORT (and no layer in ENGINE_LAYERS) for {missing}"
    stale = [unit for unit in MAY_IMPORT if unit not in TREE]
    assert not stale, f"MAY_IMPORT names units that are not in the tree: {stale}"
    for unit, allowed in MAY_IMPORT.items():
        assert all(name in MAY_IMPORT for name in allowed), f"{unit} may import a unit MAY_IMPORT does not have"


def test_each_module_imports_only_what_its_unit_may() -> None:
    for name, path in TREE.items():
        unit = unit_of(name)
        assert unit is not None, f"{name} is in no unit of MAY_IMPORT"
        commands = path.name == "commands.py" and unit.startswith("ruma.server.")
        for imported in sorted(imports_of(name)):
            if commands and any(imported == piece or imported.startswith(f"{piece}.") for piece in COMMANDS_MAY_IMPORT):
                continue
            target = unit_of(imported)
            assert target is not None and may_import(unit, target), (
                f"{path.relative_to(ROOT)} ({unit}) imports {imported}")


def test_no_cycle_between_units() -> None:
    allowed = cycle_in(allowed_graph())
    assert allowed is None, f"MAY_IMPORT allows a cycle: {' -> '.join(allowed)}"
    found = cycle_in(import_graph())
    assert found is None, f"the imports make a cycle: {' -> '.join(found)}"


def test_the_engine_is_in_layers() -> None:
    layer = {unit: depth for depth, units in enumerate(ENGINE_LAYERS) for unit in units}
    engine = [unit for unit in MAY_IMPORT if part_of(unit) == "ruma.engine"]
    assert sorted(layer) == sorted(engine) and sum(map(len, ENGINE_LAYERS)) == len(layer), (
        "every unit of the engine is in one layer of ENGINE_LAYERS")
    for unit in engine:
        for allowed in MAY_IMPORT[unit]:
            assert layer[allowed] < layer[unit], (
                f"{unit} (layer {layer[unit]}) may import {allowed} (layer {layer[allowed]})")


def may_import_line(package: str) -> set[str] | None:
    """The units the "May import" line of ``package``'s ``__init__`` names (before its dash)."""
    docstring = ast.get_docstring(ast.parse(TREE[package].read_text(encoding="utf-8"))) or ""
    paragraph = next((part for part in docstring.split("\n\n") if part.startswith("May import:")), None)
    if paragraph is None:
        return None
    return set(re.findall(r"``(ruma(?:\.\w+)*)``", paragraph.split(" — ")[0]))


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_says_what_it_may_import(package: str) -> None:
    named = may_import_line(package)
    assert named is not None, f"{TREE[package].relative_to(ROOT)} has no 'May import:' paragraph"
    assert named - {package} == set(MAY_IMPORT[package]), (
        f"{package}'s 'May import' line names {sorted(named)}; MAY_IMPORT says {sorted(MAY_IMPORT[package])}")


def test_exception_classes_are_named_errors() -> None:
    classes: dict[str, tuple[str, list[str]]] = {}  # name -> (module, names of its bases)
    for name, path in TREE.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                classes[node.name] = (name, [base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
                                             for base in node.bases])

    def is_error(cls: str, seen: frozenset[str] = frozenset()) -> bool:
        builtin = getattr(builtins, cls, None)
        if isinstance(builtin, type):
            return issubclass(builtin, BaseException) and not issubclass(builtin, Warning)
        return cls in classes and cls not in seen and any(is_error(base, seen | {cls}) for base in classes[cls][1])

    misnamed = [f"{module}.{cls}" for cls, (module, _) in classes.items()
                if is_error(cls) and not cls.endswith("Error")]
    assert not misnamed, f"exception classes whose names do not end in Error: {misnamed}"


def test_the_engine_prints_nothing_and_modules_log_by_name() -> None:
    for name, path in TREE.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            if part_of(name) == "ruma.engine":
                assert not (isinstance(node.func, ast.Name) and node.func.id == "print"), f"{name} prints"
            if isinstance(node.func, ast.Attribute) and node.func.attr == "getLogger" and node.args:
                logger = node.args[0]
                named = isinstance(logger, ast.Name) and logger.id == "__name__"
                other = isinstance(logger, ast.Constant) and (logger.value in LOG_CHANNELS
                                                              or not str(logger.value).startswith("ruma"))
                assert named or other, f"{name} logs to {ast.unparse(logger)}, not to its own name"


def test_nothing_below_the_service_imports_it() -> None:
    for relative, names in imported_modules(ROOT / "server").items():
        if not relative.startswith("server/rpc/"):
            assert not any(name.startswith("ruma.server.rpc") for name in names), f"{relative} imports ruma.server.rpc"


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
