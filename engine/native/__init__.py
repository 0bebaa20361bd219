"""The compiled engine core, and which engine ruma runs.

``ruma.engine.native._core`` is a C extension (sources beside this file: ``rows.c``, ``sowing.c``,
``wari.c`` moves, normalisation, decomposition and keys of the row-of-pots rulesets; ``parse.c``
the paper's notation; ``table.c`` the compact hash table; ``search.c`` and ``search_memo.c`` the
depth-first search and its memo traffic; ``dyadic.c``, ``arena.c``, ``canon.c``, ``algebra.c`` and
``kernel.c`` the game kernel (canonical forms as ids, ``_core.kernel``); ``memo.c`` the compact
in-memory memo;
``module.c`` the Python types; docs/architecture.md has the design). It is built by the ordinary
``pip install`` when a C compiler is present and skipped (the install still succeeds) when not.

Which engine runs is decided once per process, at first use:

* ``RUMA_ENGINE=python`` — the pure-Python engine (the readable reference; for debugging and
  differential tests);
* ``RUMA_ENGINE=c`` — the compiled core, and an error if it is not built;
* unset (or empty) — the compiled core when it is built; otherwise the pure-Python engine, with a
  one-line warning on stderr.

With the compiled engine, ``get_ruleset`` returns compiled subclasses of the five row-of-pots
rulesets (``ruma.engine.native.rulesets``) and ``evaluate`` runs their searches in C
(``ruma.engine.native.search``), and ``Game`` runs on the compiled game kernel. Everything else —
the other rulesets, the memo — is the same Python in both engines.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING

from ruma.engine.errors import RumaInputError

if TYPE_CHECKING:
    from ruma.engine.memo import Memo
    from ruma.engine.rulesets.base import Ruleset

__all__ = ["ENGINE_VARIABLE", "active_engine", "compiled", "core", "describe", "new_memo"]

ENGINE_VARIABLE = "RUMA_ENGINE"
_CHOICES = ("c", "python")
_chosen: list[str] = []  # the engine of this process, once decided
_why: list[str] = []  # why the compiled core is not in use, when it is not


def core() -> ModuleType | None:
    """The compiled extension module, or ``None`` when it is not built (or fails to load)."""
    try:
        from ruma.engine.native import _core
    except ImportError as error:
        if not _why:
            _why.append(f"{type(error).__name__}: {error}")
        return None
    return _core


def active_engine() -> str:
    """``"c"`` or ``"python"``: the engine this process runs (decided at the first call)."""
    if _chosen:
        return _chosen[0]
    wanted = os.environ.get(ENGINE_VARIABLE, "").strip().lower()
    if wanted and wanted not in _CHOICES:
        raise RumaInputError(f"{ENGINE_VARIABLE}={wanted!r} is neither 'c' nor 'python'")
    if wanted == "python":
        _why.append(f"{ENGINE_VARIABLE}=python")
        _chosen.append("python")
        return "python"
    if core() is None:
        if wanted == "c":
            raise RumaInputError(f"{ENGINE_VARIABLE}=c but the compiled engine is not built ({_why[0]}); "
                                 "reinstall ruma with a C compiler present")
        print("ruma: the compiled engine is not built (no C compiler at install?); "
              "running the slower pure-Python engine", file=sys.stderr)
        _chosen.append("python")
        return "python"
    _chosen.append("c")
    return "c"


def compiled(ruleset: "Ruleset") -> "Ruleset":
    """The compiled version of a registered ruleset when the compiled engine is active, else itself."""
    if active_engine() != "c":
        return ruleset
    from ruma.engine.native.rulesets import COMPILED

    replacement = COMPILED.get(ruleset.name)
    return replacement if replacement is not None and replacement.reference is ruleset else ruleset


def describe() -> str:
    """One line for ``ruma --version``: the active engine (and why, when it is the Python one)."""
    try:
        engine = active_engine()
    except RumaInputError as error:
        return f"engine: none, {error}"
    if engine == "c":
        return "engine: c (compiled core)"
    return f"engine: python ({_why[0] if _why else 'pure Python'})"


def new_memo() -> "Memo":
    """A fresh in-memory memo: the compiled ``CompactMemo`` (about 30 bytes a position, read and
    written by the compiled search without Python calls) when the compiled engine is active,
    else an ``InMemoryMemo``. What ``evaluate`` uses without a memo, and ``ruma eval`` without
    ``--store``."""
    from ruma.engine.memo import InMemoryMemo

    memo: Memo | None = new_compact_memo()
    return InMemoryMemo() if memo is None else memo


def new_compact_memo() -> "Memo | None":
    """A fresh ``CompactMemo`` when the compiled engine is active, else ``None`` (also the cache of
    recently stored values that the LMDB store offers the compiled search: ``recent``)."""
    try:
        engine = active_engine()
    except RumaInputError:
        engine = "python"  # the misconfiguration is reported where the rulesets are looked up
    native = core() if engine == "c" else None
    if native is None:
        return None
    from ruma.engine.cgt import Game

    memo: Memo = native.CompactMemo(Game)
    return memo
