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
  one-line warning, logged (``logging``: with no handler configured, Python writes it to stderr).

With the compiled engine, ``get_ruleset`` returns compiled subclasses of the five row-of-pots
rulesets (``ruma.engine.native.rulesets``), ``evaluate`` runs their searches in C
(``ruma.engine.native.search``), ``Game`` runs on the compiled game kernel and ``new_memo``
(``ruma.engine.memo``) is the compiled ``CompactMemo``. Everything else — the other rulesets, the
memo interface — is the same Python in both engines.

May import: the standard library and ``ruma.engine.errors`` — this package is the engine choice,
below the game kernel that asks it; ``rulesets`` and ``search`` here are layers of their own, above
the Python rulesets and search they compile (docs/architecture.md).
"""

from __future__ import annotations

import logging
import os
from types import ModuleType

from ruma.engine.errors import RumaInputError

__all__ = ["ENGINE_VARIABLE", "active_engine", "core", "describe"]

log = logging.getLogger(__name__)

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
        log.warning("ruma: the compiled engine is not built (no C compiler at install?); "
                    "running the slower pure-Python engine")
        _chosen.append("python")
        return "python"
    _chosen.append("c")
    return "c"


def describe() -> str:
    """One line for ``ruma --version``: the active engine (and why, when it is the Python one)."""
    try:
        engine = active_engine()
    except RumaInputError as error:
        return f"engine: none, {error}"
    if engine == "c":
        return "engine: c (compiled core)"
    return f"engine: python ({_why[0] if _why else 'pure Python'})"
