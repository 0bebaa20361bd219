"""The copy step of a store's dense rewrite in C (``_native.compact_copy``, server/store/compact.c)
against the Python copy it replaces (``store.rewrite._copy_python``, the reference): the same
records in every table, the same counts, the same file, for a whole copy, one that leaves tables
out and rewrites the schema, and one that goes on after a copy stopped half-way.

The store is one sweeps wrote (impartial Sowing of at most 10 seeds, partizan Sowing of at most 6:
nim values, games and their index, meta).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ruma.client.sweep.driver import sweep_store
from ruma.engine.families.classes import Family
from ruma.server.store import rewrite
from ruma.server.store.bulk import _NATIVE
from ruma.server.store.codec import StoreError
from tests.store.test_store_compact import everything

pytestmark = pytest.mark.skipif(getattr(_NATIVE, "compact_copy", None) is None,
                                reason="the store's compiled module is not built")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compact-native") / "store"
    sweep_store(Family.of("impartial-sowing", (0, 10)), str(path), workers=1)
    sweep_store(Family.of("sowing", (0, 6)), str(path), workers=1)
    return path


def _both(source: Path, where: Path, monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> tuple[Path, Path, Any, Any]:
    """The copy made in C and the one made in Python, and what each returned."""
    made = []
    for name, value in (("c", None), ("python", "python")):
        target = where / name
        target.mkdir(parents=True, exist_ok=True)
        if value is None:
            monkeypatch.delenv("RUMA_STORE_COPY", raising=False)
        else:
            monkeypatch.setenv("RUMA_STORE_COPY", value)
        made.append((target, rewrite._copy(source, target, None, **kwargs)))
    (c, c_counts), (python, python_counts) = made
    return c, python, c_counts, python_counts


def test_the_c_copy_is_the_python_copy(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c, python, c_counts, python_counts = _both(source, tmp_path, monkeypatch)
    assert c_counts == python_counts and c_counts["positions"] > 40_000 and c_counts["games"] > 0
    assert everything(c) == everything(python) == everything(source)
    assert (c / "data.mdb").stat().st_size == (python / "data.mdb").stat().st_size


def test_tables_left_out_and_a_new_schema_alike(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c, python, c_counts, python_counts = _both(source, tmp_path, monkeypatch, drop=(b"unverified",), schema=b"99")
    assert c_counts == python_counts and "unverified" not in c_counts
    copied = everything(c)
    assert copied == everything(python)
    assert b"unverified" not in copied and dict(copied[b"meta"])[b"schema_version"] == b"99"


def test_a_copy_stopped_half_way_goes_on_alike(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rewrite, "CHUNK", 10_000)
    seen: list[list[int]] = []
    for name, value in (("c", None), ("python", "python")):
        if value is None:
            monkeypatch.delenv("RUMA_STORE_COPY", raising=False)
        else:
            monkeypatch.setenv("RUMA_STORE_COPY", value)
        target = tmp_path / name
        target.mkdir()
        done: list[int] = []

        def stop(count: int) -> None:
            done.append(count)
            if count >= 20_000:
                raise KeyboardInterrupt  # (between two of its transactions)

        with pytest.raises(KeyboardInterrupt):
            rewrite._copy(source, target, stop)
        seen.append(done)
        rewrite._copy(source, target, None)
    assert seen[0] == seen[1] and seen[0][-1] >= 20_000 > seen[0][-2]  # (a progress call a transaction, alike)
    assert everything(tmp_path / "c") == everything(tmp_path / "python") == everything(source)


def test_a_missing_store_is_refused(tmp_path: Path) -> None:
    (tmp_path / "new").mkdir()
    with pytest.raises((StoreError, FileNotFoundError)):
        rewrite._copy(tmp_path / "none", tmp_path / "new", None)
