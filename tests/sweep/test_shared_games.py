"""SharedGames (``engine/native/shared_games.c``): the canonical forms a partizan sweep's worker
processes share, and the partizan sweeps that go through it.

Expected values come from independent paths: a game read from the table in another process must
print exactly as the game published (the canonical form is unique, so text is identity); a sweep
through the shared tables must store exactly what the one-process sweep and the cells-and-packets
way store, which the suite checks against the pure-Python engine (test_sweep.py).
"""

from __future__ import annotations

import mmap
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.cgt import Game
from ruma.engine.cgt.notation import format_game
from ruma.engine.evaluator import evaluate
from ruma.engine.families.classes import Family
from ruma.engine.memo import InMemoryMemo

pytest.importorskip("ruma.engine.native._core")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("the shared tables are read and written by the compiled engine only", allow_module_level=True)

from ruma.client.sweep import driver as sweep_module  # noqa: E402
from ruma.client.sweep import shared as sweep_shared  # noqa: E402
from ruma.client.sweep import shared_memory  # noqa: E402
from ruma.client.sweep.driver import sweep_store  # noqa: E402
from ruma.client.sweep.shared_memory import SharedRegion, games_layout  # noqa: E402
from ruma.engine.native import _core  # noqa: E402
from ruma.server.store.writer import BulkWriter  # noqa: E402
from tests.support.stores import contents  # noqa: E402

READER = r"""
import mmap, os, sys
from ruma.engine.native import _core
from ruma.engine.cgt import Game
from ruma.engine.cgt.notation import format_game
fd = os.open(sys.argv[1], os.O_RDWR)
games = _core.SharedGames(memoryview(mmap.mmap(fd, os.fstat(fd).st_size)))
for sid in sys.argv[2:]:
    print(format_game(Game.by_id(games.local(int(sid))), "braces"))
extra = [Game("{1|*}") + Game("1/8"), Game("^*"), Game("{2|-1}")]  # published from here too
print(" ".join(str(games.publish(g.id)) for g in extra))
"""


def values() -> list[Game]:
    found = [evaluate("sowing", p).value for p in ("1^11", "31202", "2^6")]
    found += [evaluate("atomic-wari", p).value for p in ("32123", "2^5")]
    return found + [Game("{1|*}") + Game("1/8"), Game("^*"), Game(Fraction(3, 2**40)), Game("{2|-1}")]


def test_games_published_here_read_identically_in_another_process(tmp_path: Path) -> None:
    size, slots = games_layout(4096)
    region = SharedRegion.create(size)
    assert region is not None
    try:
        games = _core.SharedGames(memoryview(region.map), slots)
        published = values()
        sids = [games.publish(g.id) for g in published]
        assert all(isinstance(s, int) for s in sids) and games.stats()["nodes"] > 40
        out = subprocess.run([sys.executable, "-c", READER, region.path, *map(str, sids)], capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[:-1] == [format_game(g, "braces") for g in published]  # the same canonical forms
        # the other process published three games this one published already: the same nodes
        assert list(map(int, lines[-1].split())) == [sids[-4], sids[-3], sids[-1]]
        assert [games.local(s) for s in sids] == [g.id for g in published]
        with pytest.raises(ValueError, match="names no node"):
            games.local(int(games.stats()["words"]) + 10)
        del games
    finally:
        region.close()
        region.unlink()


def test_a_full_table_publishes_nothing_more() -> None:
    buffer = mmap.mmap(-1, 128 + 1024 * 8 + 4096)  # (1024 words of records)
    games = _core.SharedGames(buffer, 1024)
    memo = InMemoryMemo()
    evaluate("sowing", "1^10", memo)
    published = [(g, games.publish(g.id)) for g in {v.id: v for v in memo.entries.values()}.values()]
    assert games.stats()["full"] == 1 and any(s is None for _, s in published)
    assert all(games.local(s) == g.id for g, s in published if s is not None)  # what is in stays right
    del games


FAMILIES = [("sowing", 9), ("atomic-wari", 8)]


@pytest.mark.parametrize("ruleset, seeds", FAMILIES)
def test_a_partizan_sweep_through_the_shared_tables_stores_what_the_other_ways_store(
        tmp_path: Path, ruleset: str, seeds: int, monkeypatch: pytest.MonkeyPatch) -> None:
    family = Family.of(ruleset, (0, seeds))
    monkeypatch.setattr(sweep_module, "SHARED", False)
    sweep_store(family, str(tmp_path / "packets"), workers=2)  # cells and packets
    monkeypatch.setattr(sweep_module, "SHARED", True)
    used: list[int] = []
    made = sweep_shared.new_table
    monkeypatch.setattr(sweep_shared, "new_table", lambda *a: used.append(1) or made(*a))
    sent: list[int] = []  # (the drains the store's writer process took as shared frames)
    submit = BulkWriter.submit_shared
    monkeypatch.setattr(BulkWriter, "submit_shared", lambda self, frame: sent.append(1) or submit(self, frame))
    one = sweep_store(family, str(tmp_path / "one"), workers=1)
    through_writer = len(sent)
    two = sweep_store(family, str(tmp_path / "two"), workers=2)
    assert len(used) == 2 and (one.backend, two.backend) == ("inline", "processes")
    assert through_writer > 0 and len(sent) > through_writer
    expected = contents(tmp_path / "packets")
    assert contents(tmp_path / "one") == expected and contents(tmp_path / "two") == expected
    assert two.entries_committed == len(expected) and two.classes_valued == two.classes


def test_a_partizan_sweep_whose_tables_run_out_sends_the_rest_aside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    family = Family.of("sowing", (0, 9))
    sweep_store(family, str(tmp_path / "reference"), workers=1)
    expected = contents(tmp_path / "reference")
    full: list[bool] = []
    blocks = sweep_shared.value_blocks

    def watched(*args: Any, **kwargs: Any) -> Any:
        done = blocks(*args, **kwargs)
        full.append(bool(kwargs["games"].stats()["full"]))
        return done

    monkeypatch.setattr(sweep_shared, "value_blocks", watched)  # (in this process: workers=1)
    monkeypatch.setattr(shared_memory, "games_layout", lambda entries: (128 + 1024 * 8 + 4096, 1024))  # 1024 words
    summary = sweep_store(family, str(tmp_path / "games"), workers=1)
    assert full == [True] and contents(tmp_path / "games") == expected
    assert summary.entries_committed == len(expected)
    monkeypatch.setattr(sweep_shared, "VALUES_ROOM", 0.003)  # (a small table of values too)
    for workers in (1, 2):
        summary = sweep_store(family, str(tmp_path / f"small{workers}"), workers=workers)
        assert contents(tmp_path / f"small{workers}") == expected
        assert summary.entries_committed == len(expected)
