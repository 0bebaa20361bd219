"""The linters as tests, so that the suite runs them: ``ruff check`` over the Python (its rules in
``pyproject.toml``) and ``clang-format --dry-run -Werror`` over the C (``.clang-format``); both
come with the ``test`` extra. ``third_party/`` keeps its own style."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT

#: folders at the top of the tree that hold no code of ruma's
NOT_OURS = {"third_party", "build", "dist"}


def c_sources() -> list[Path]:
    """The project's C files (sources and headers), third_party/ and hidden folders left out."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in NOT_OURS and not name.startswith(".")]
        found += [Path(folder) / name for name in files if name.endswith((".c", ".h"))]
    return sorted(found)


def test_ruff_finds_nothing() -> None:
    ruff = pytest.importorskip("ruff", reason="ruff comes with the test extra")
    result = subprocess.run([ruff.find_ruff_bin(), "check", "--no-cache", "--output-format", "concise", "."],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_c_sources_are_clang_formatted() -> None:
    clang_format = pytest.importorskip("clang_format", reason="clang-format comes with the test extra")
    sources = c_sources()
    assert ROOT / "engine" / "native" / "search.c" in sources and ROOT / "server" / "store" / "lmdb.c" in sources
    result = subprocess.run([clang_format.get_executable("clang-format"), "--dry-run", "-Werror",
                             *(str(path.relative_to(ROOT)) for path in sources)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
