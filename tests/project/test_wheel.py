"""The wheel ``pip`` builds holds every package and data file of the tree: the packages are every
folder with an ``__init__.py`` under the folders of ``pyproject.toml``'s ``package-dir`` mapping,
the files every ``.py`` of a package and every other file in it or in its plain subfolders
(templates, static files, JSON schemas, ``.proto``, ``.pyi``, ``py.typed``, migrations), C sources
(compiled into the extensions) aside. A new package folder or data file that ``pyproject.toml``
does not list fails here. One wheel is built (offline, from a copy of the tree) for the module."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.support import ROOT

#: what a package folder holds that is not package data: C sources (setuptools may add them to the
#: wheel all the same), built extensions, caches
NOT_DATA = (".c", ".h", ".so", ".pyc")
#: top-level folders with an ``__init__.py`` that are not part of the distribution
NOT_DISTRIBUTED = {"tests", "benchmarks"}


def package_dirs() -> dict[str, str]:
    """``pyproject.toml``'s package-dir mapping: package name -> folder of the tree."""
    setuptools: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return dict(setuptools["package-dir"])


def tree_packages() -> dict[str, Path]:
    """Every package of the tree (a folder with an ``__init__.py`` under a mapped folder), by name."""
    found: dict[str, Path] = {}
    for name, folder in package_dirs().items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            parts = init.parent.relative_to(ROOT / folder).parts
            if "__pycache__" not in parts:
                found[".".join((name, *parts))] = init.parent
    return found


def expected_files() -> set[str]:
    """The paths the wheel must hold below ``ruma/``: each package's files and those of its plain
    subfolders (the package data), sub-packages counted as packages of their own."""
    packages = tree_packages()
    folders = set(packages.values())
    expected: set[str] = set()
    for name, folder in packages.items():
        prefix = name.replace(".", "/")
        for path in folder.rglob("*"):
            inner = path.relative_to(folder)
            if (not path.is_file() or path.name.endswith(NOT_DATA) or "__pycache__" in inner.parts
                    or any(folder / Path(*inner.parts[:k]) in folders for k in range(1, len(inner.parts)))):
                continue  # (not shipped, or a sub-package's)
            expected.add(f"{prefix}/{inner.as_posix()}")
    return expected


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel ``pip wheel`` builds from a copy of the tree (without the tree's build outputs)."""
    pytest.importorskip("setuptools", reason="the build backend comes with the test extra")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".*", "build", "dist", "*.egg-info", "__pycache__", "*.so", "tests", "artifacts", "ruma-data"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", ".",
         "-w", str(work / "dist")], cwd=source, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    (built,) = (work / "dist").glob("ruma-*.whl")
    return zipfile.ZipFile(built)


def test_every_top_level_package_folder_is_mapped() -> None:
    mapped = {Path(folder).parts[0] for folder in package_dirs().values()}
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - NOT_DISTRIBUTED
    assert packages <= mapped, f"package folders not in pyproject.toml's package-dir: {sorted(packages - mapped)}"


def test_the_tree_as_expected() -> None:
    packages = tree_packages()
    assert {"ruma", "ruma.engine.families", "ruma.web", "ruma.v1", "ruma.migrations"} <= set(packages)
    expected = expected_files()
    assert {"ruma/__init__.py", "ruma/engine/py.typed", "ruma/v1/ruma.proto", "ruma/engine/native/_core.pyi",
            "ruma/web/templates/base.html", "ruma/migrations/alembic.ini"} <= expected
    assert not any(name.endswith(".c") for name in expected)


def test_the_wheel_holds_every_package_and_data_file(wheel: zipfile.ZipFile) -> None:
    shipped = {name for name in wheel.namelist() if name.startswith("ruma/") and not name.endswith(NOT_DATA)}
    expected = expected_files()
    missing = sorted(expected - shipped)
    assert not missing, f"missing from the wheel (pyproject.toml's packages or package-data): {missing}"
    assert not shipped - expected, f"in the wheel but not in the tree: {sorted(shipped - expected)}"
