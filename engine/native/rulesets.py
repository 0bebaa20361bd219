"""The compiled row-of-pots rulesets: subclasses whose hot methods run in C.

Each class here subclasses the pure-Python ruleset (so ``isinstance``, names, codes, versions,
``format`` and ``direct_value`` are the reference's) and replaces ``parse``, the options,
``normalise``, ``components``, ``decompose``, ``key``, ``size`` and ``canonical_key`` by the bound methods of a
``_core.Rules`` object. A builtin bound method stored on a class is not re-bound on attribute
access (it is not a descriptor), so ``ruleset.key(state)`` is one C call with no Python frame.
The ``_core.Rules`` object hands every input it does not take to the reference instance.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ruma.engine.native import _core
from ruma.engine.native import search as _search  # noqa: F401 - loaded with the rulesets, not at the first evaluation
from ruma.engine.rulesets.atomic_wari import (
    ATOMIC_WARI,
    IMPARTIAL_ATOMIC_WARI,
    AtomicWariRuleset,
    ImpartialAtomicWariRuleset,
)
from ruma.engine.rulesets.atomic_wari_board import ATOMIC_WARI_BOARD, AtomicWariBoardRuleset
from ruma.engine.rulesets.base import Ruleset
from ruma.engine.rulesets.sowing import IMPARTIAL_SOWING, SOWING, ImpartialSowingRuleset, SowingRuleset

__all__ = ["COMPILED", "Compiled"]

#: the methods the compiled core provides
METHODS = ("parse", "left_options", "right_options", "options", "normalise", "components", "decompose", "key", "size",
           "canonical_key")


class Compiled:
    """Mixin of a compiled ruleset: ``native`` is its ``_core.Rules``, ``reference`` the Python one."""

    native: ClassVar[_core.Rules]
    reference: ClassVar[Ruleset]

    def __init_subclass__(cls, *, family: int, reference: Ruleset, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        native = _core.Rules(family, reference.impartial, reference.code, reference.version, reference)
        cls.native = native
        cls.reference = reference
        for name in METHODS:
            setattr(cls, name, getattr(native, name))


class CompiledSowing(Compiled, SowingRuleset, family=_core.FAMILY_SOWING, reference=SOWING):
    """Sowing with the compiled core."""


class CompiledImpartialSowing(Compiled, ImpartialSowingRuleset, family=_core.FAMILY_SOWING,
                              reference=IMPARTIAL_SOWING):
    """Impartial Sowing with the compiled core."""


class CompiledAtomicWari(Compiled, AtomicWariRuleset, family=_core.FAMILY_WARI, reference=ATOMIC_WARI):
    """Atomic Wari with the compiled core."""


class CompiledImpartialAtomicWari(Compiled, ImpartialAtomicWariRuleset, family=_core.FAMILY_WARI,
                                  reference=IMPARTIAL_ATOMIC_WARI):
    """Impartial Atomic Wari with the compiled core."""


class CompiledAtomicWariBoard(Compiled, AtomicWariBoardRuleset, family=_core.FAMILY_BOARD,
                              reference=ATOMIC_WARI_BOARD):
    """Atomic Wari on a fixed board with the compiled core."""


COMPILED: dict[str, Any] = {
    ruleset.name: ruleset
    for ruleset in (
        CompiledSowing(),
        CompiledImpartialSowing(),
        CompiledAtomicWari(),
        CompiledImpartialAtomicWari(),
        CompiledAtomicWariBoard(),
    )
}
"""Ruleset name -> the compiled instance (``get_ruleset`` returns these with the compiled engine)."""
