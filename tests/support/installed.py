"""Rulesets installed from outside ruma, without pip: a folder put on ``sys.path`` holding modules
and ``NAME-VERSION.dist-info`` folders (``METADATA`` and ``entry_points.txt``), which is all
``importlib.metadata`` reads to find the entry points of ``ruma.rulesets``; and an independent
valuer of the example package's ruleset (``examples/capture-sowing``), written from its rules.
"""

from __future__ import annotations

import contextlib
import importlib
import shutil
import sys
from functools import cache
from pathlib import Path
from typing import Iterator

from ruma.engine.cgt import Game
from tests.support import ROOT

#: the example package's source folder and its module
EXAMPLE = ROOT / "examples" / "capture-sowing"
EXAMPLE_MODULE = EXAMPLE / "capture_sowing.py"


def add_distribution(site: Path, name: str, version: str, entries: dict[str, str]) -> None:
    """A distribution ``name`` ``version`` in ``site`` whose metadata declares ``entries`` (ruleset
    name -> ``module:attribute``) in the group ``ruma.rulesets``."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("[ruma.rulesets]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))


def add_example(site: Path) -> None:
    """The example package as pip would install it: its module and its distribution's metadata."""
    shutil.copy(EXAMPLE_MODULE, site / EXAMPLE_MODULE.name)
    add_distribution(site, "ruma-capture-sowing", "0.1.0", {"capture-sowing": "capture_sowing:CAPTURE_SOWING"})


@contextlib.contextmanager
def on_path(site: Path) -> Iterator[Path]:
    """``site`` on ``sys.path`` and the registry reading the installed rulesets again, until the
    block ends (then the modules imported from ``site`` are forgotten and the registry reads again)."""
    from ruma.engine.rulesets import refresh_installed

    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    refresh_installed()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(site)):
                del sys.modules[name]
        importlib.invalidate_caches()
        refresh_installed()


# -- the independent valuer of Capture Sowing: its rules read off its docstring, on raw rows ---------

def capture_moves(row: tuple[int, ...], side: int) -> list[tuple[int, ...]]:
    """Every row one move away: ``side`` +1 for Left (sowing rightwards), -1 for Right. A pot's
    seeds go one a pot in that direction; the last must land on a pot that was nonempty, inside
    the row; a last pot then holding exactly two seeds is emptied. No stripping, mirror or split."""
    out = []
    for i, seeds in enumerate(row):
        last = i + side * seeds
        if seeds == 0 or not 0 <= last < len(row) or row[last] == 0:
            continue
        new = list(row)
        new[i] = 0
        for step in range(1, seeds + 1):
            new[i + side * step] += 1
        if new[last] == 2:
            new[last] = 0
        out.append(tuple(new))
    return out


@cache
def capture_value(row: tuple[int, ...]) -> Game:
    """``{Left's options | Right's options}`` of a raw row, by plain recursion, canonicalised."""
    return Game.from_options([capture_value(o) for o in capture_moves(row, +1)],
                             [capture_value(o) for o in capture_moves(row, -1)])
