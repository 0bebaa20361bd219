"""The registry of rulesets: ``get_ruleset(name)`` and ``ruleset_names()``.

Modules are imported lazily so that importing the engine stays cheap. A name may carry a
parameter after a colon (``octal:0.37``); such entries name a factory taking the parameter text.
With the compiled engine active (``ruma.engine.native``), the row-of-pots rulesets are returned as
their compiled subclasses; the module-level instances (``sowing.SOWING``, ...) stay pure Python.
"""

from __future__ import annotations

import importlib
from typing import Callable, cast

from ruma.engine.errors import UnknownRulesetError
from ruma.engine.native import compiled
from ruma.engine.rulesets.base import Position, Ruleset, State

__all__ = ["Position", "Ruleset", "State", "family_by_code", "get_ruleset", "ruleset_by_code", "ruleset_names",
           "ruleset_description", "parse_position"]

# name -> "module:attribute" (a Ruleset instance, or for parametrised names a factory)
_RULESETS: dict[str, str] = {
    "sowing": "ruma.engine.rulesets.sowing:SOWING",
    "impartial-sowing": "ruma.engine.rulesets.sowing:IMPARTIAL_SOWING",
    "atomic-wari": "ruma.engine.rulesets.atomic_wari:ATOMIC_WARI",
    "impartial-atomic-wari": "ruma.engine.rulesets.atomic_wari:IMPARTIAL_ATOMIC_WARI",
    "atomic-wari-board": "ruma.engine.rulesets.atomic_wari_board:ATOMIC_WARI_BOARD",
    "nim": "ruma.engine.rulesets.heaps:NIM",
    "grundy": "ruma.engine.rulesets.heaps:GRUNDY",
    "chocolate1": "ruma.engine.rulesets.chocolate:CHOCOLATE1",
    "chocolate2": "ruma.engine.rulesets.chocolate:CHOCOLATE2",
    "coinstrip1": "ruma.engine.rulesets.coinstrip:COINSTRIP1",
    "coinstrip2": "ruma.engine.rulesets.coinstrip:COINSTRIP2",
}
_FACTORIES: dict[str, str] = {
    "octal": "ruma.engine.rulesets.heaps:octal_ruleset",
}
#: what each parametrised family is (its members describe themselves)
_FAMILY_DESCRIPTIONS: dict[str, str] = {
    "octal": "an octal game given by its code in Winning Ways notation (octal:0.37, octal:.07, octal:4.07)",
}
#: a member of each parametrised family (its rulesets share one key code)
_FAMILY_EXAMPLES: dict[str, str] = {
    "octal": "0.07",
}
_cache: dict[str, Ruleset] = {}


def _load(target: str) -> object:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called ``name`` (e.g. ``sowing``, ``octal:0.37``); raises ``UnknownRulesetError``."""
    if not isinstance(name, str) or not name.strip():
        raise UnknownRulesetError(f"empty ruleset name {name!r}; known: {', '.join(ruleset_names())}")
    key = name.strip().lower()
    cached = _cache.get(key)
    if cached is not None:
        return cached
    if key in _RULESETS:
        ruleset = compiled(cast(Ruleset, _load(_RULESETS[key])))  # the compiled core when active
    else:
        family, sep, parameter = key.partition(":")
        if not sep or family not in _FACTORIES:
            raise UnknownRulesetError(f"unknown ruleset {name!r}; known: {', '.join(ruleset_names())}")
        factory = cast(Callable[[str], Ruleset], _load(_FACTORIES[family]))
        ruleset = factory(parameter)
    _cache[key] = ruleset
    return ruleset


def ruleset_names() -> list[str]:
    """Every ruleset name, parametrised families shown as ``family:PARAM``."""
    return sorted(_RULESETS) + [f"{family}:CODE" for family in sorted(_FACTORIES)]


def ruleset_description(name: str) -> str:
    """One line on what ``name`` is: a ruleset's own description, or a family's (``octal:CODE``)."""
    family, sep, parameter = name.strip().lower().partition(":")
    if sep and parameter == "code" and family in _FAMILY_DESCRIPTIONS:
        return _FAMILY_DESCRIPTIONS[family]
    return get_ruleset(name).description


def parse_position(ruleset: str | Ruleset, text: str) -> Position:
    """Parse ``text`` as a position of ``ruleset`` (a name or a ``Ruleset``)."""
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    return rules.position(text)


def family_by_code(code: int) -> str | None:
    """The parametrised family (``octal:CODE``) whose rulesets' keys start with ``code``, or ``None``
    (a store names its entries of such rulesets by the family: each member has its own keys)."""
    for family, example in _FAMILY_EXAMPLES.items():
        try:
            if get_ruleset(f"{family}:{example}").code == code:
                return f"{family}:CODE"
        except (ImportError, AttributeError):
            continue
    return None


def ruleset_by_code(code: int) -> Ruleset | None:
    """The registered (unparametrised) ruleset whose key prefix byte is ``code``, or ``None``.

    Used by persistent stores to tell which ruleset a stored key belongs to. Rulesets whose
    module is not installed are skipped; parametrised families (``octal:*``) are never returned.
    """
    for name in _RULESETS:
        try:
            ruleset = get_ruleset(name)
        except (ImportError, AttributeError):
            continue
        if ruleset.code == code:
            return ruleset
    return None
