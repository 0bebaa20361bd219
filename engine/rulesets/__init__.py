"""The registry of rulesets: ``get_ruleset(name)``, ``ruleset_names()`` and ``row_rulesets()``.

Modules are imported lazily so that importing the engine stays cheap: an entry names its ruleset
as ``"module:attribute"`` text. A name may carry a parameter after a colon (``octal:0.37``); such
entries name a factory taking the parameter text. With the compiled engine active
(``ruma.engine.native``), the row-of-pots rulesets are returned as their compiled subclasses
(``ruma.engine.native.rulesets``, named here the same way: they subclass the rulesets, a layer
above this one); the module-level instances (``sowing.SOWING``, ...) stay pure Python.

A ruleset says everything the rest of ruma asks about it (``base.Ruleset``'s class attributes
and hooks), so a new one is one module and one entry here — or, for a ruleset defined outside
ruma, one entry point of an installed package (``installed``: the group ``ruma.rulesets``,
found when first needed; such rulesets stay pure Python) or one ``register_ruleset`` call (a toy
in a test). ``ruleset_origin`` says where a name comes from; ``installed_rulesets`` reports every
installed one, a broken one with its ``BrokenRulesetError``.

May import: the standard library, ``ruma.engine.errors``, ``ruma.engine.native`` (which engine is
active), ``ruma.engine.cgt`` and ``ruma.engine.octal`` — the compiled twins only by name.
"""

from __future__ import annotations

import importlib
from typing import Callable, cast

from ruma.engine.errors import BrokenRulesetError, UnknownRulesetError
from ruma.engine.native import active_engine
from ruma.engine.rulesets import installed
from ruma.engine.rulesets.base import PLUGIN_CODE, Position, Ruleset, State

__all__ = ["Position", "Ruleset", "State", "family_by_code", "get_ruleset", "ruleset_by_code", "ruleset_by_prefix",
           "ruleset_names", "ruleset_description", "ruleset_origin", "installed_rulesets", "parse_position",
           "register_ruleset", "unregister_ruleset", "refresh_installed", "row_rulesets", "sample_ruleset"]

# name -> "module:attribute" of a Ruleset instance (or the instance itself: ``register_ruleset``)
_RULESETS: dict[str, str | Ruleset] = {
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
# family -> "module:attribute" of a factory taking the parameter text
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
#: the compiled twins of registered rulesets, by name (used when the compiled engine is active)
_COMPILED = "ruma.engine.native.rulesets:COMPILED"
_cache: dict[str, Ruleset] = {}
#: the entry points of ``installed.GROUP``, read when first needed (``refresh_installed`` reads again)
_installed: dict[str, installed.Installed] | None = None
#: why each installed ruleset that cannot serve cannot (its module is not imported again each time)
_broken: dict[str, BrokenRulesetError] = {}
BUILT_IN = "built-in"
"""``ruleset_origin`` of a ruleset that comes with ruma."""


def _installed_entries() -> dict[str, installed.Installed]:
    global _installed
    if _installed is None:
        _installed = installed.discover()
    return _installed


def refresh_installed() -> None:
    """Read the installed rulesets' entry points again (after a package was installed or removed
    in this process), forgetting those loaded."""
    global _installed
    for name in _installed_entries():
        if name not in _RULESETS:
            _cache.pop(name, None)
    _broken.clear()
    _installed = None


def _builtin_names() -> set[str]:
    return {name for name, target in _RULESETS.items() if isinstance(target, str)} | set(_FACTORIES)


def _load(target: str) -> object:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _entry(target: str | Ruleset) -> Ruleset:
    """A registry entry's (pure-Python) ruleset."""
    return target if isinstance(target, Ruleset) else cast(Ruleset, _load(target))


def _compiled(ruleset: Ruleset) -> Ruleset:
    """The compiled twin of a registered ruleset when the compiled engine is active, else itself."""
    if active_engine() != "c":
        return ruleset
    replacement = cast(dict[str, Ruleset], _load(_COMPILED)).get(ruleset.name)
    if replacement is None or getattr(replacement, "reference", None) is not ruleset:
        return ruleset
    return replacement


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called ``name`` (e.g. ``sowing``, ``octal:0.37``); raises ``UnknownRulesetError``."""
    if not isinstance(name, str) or not name.strip():
        raise UnknownRulesetError(f"empty ruleset name {name!r}; known: {', '.join(ruleset_names())}")
    key = name.strip().lower()
    cached = _cache.get(key)
    if cached is not None:
        return cached
    if key in _RULESETS:
        ruleset = _compiled(_entry(_RULESETS[key]))  # the compiled core when active
    elif key in _installed_entries():
        ruleset = _load_installed(key)
    else:
        family, sep, parameter = key.partition(":")
        if not sep or family not in _FACTORIES:
            raise UnknownRulesetError(f"unknown ruleset {name!r}; known: {', '.join(ruleset_names())}")
        factory = cast(Callable[[str], Ruleset], _load(_FACTORIES[family]))
        ruleset = factory(parameter)
    _cache[key] = ruleset
    return ruleset


def _load_installed(name: str) -> Ruleset:
    """The installed ruleset ``name`` (its module imported once); raises its ``BrokenRulesetError``."""
    if name in _broken:
        raise BrokenRulesetError(str(_broken[name])) from _broken[name].__cause__
    try:
        return installed.load(_installed_entries()[name], _builtin_names())
    except BrokenRulesetError as error:
        _broken[name] = error
        raise


def ruleset_names() -> list[str]:
    """Every ruleset name — built-in, installed (``ruma.rulesets`` entry points; one that is broken
    too: asked for, it raises ``BrokenRulesetError``) and registered — parametrised families shown
    as ``family:PARAM``."""
    return sorted(set(_RULESETS) | set(_installed_entries())) + [f"{family}:CODE" for family in sorted(_FACTORIES)]


def ruleset_origin(name: str) -> str:
    """Where the ruleset ``name`` comes from: ``BUILT_IN``, the distribution of an installed one
    (``NAME VERSION``), or ``registered`` (``register_ruleset``)."""
    key = name.strip().lower()
    family = key.partition(":")[0]
    if isinstance(_RULESETS.get(key), str) or (key not in _RULESETS and family in _FACTORIES):
        return BUILT_IN
    if key in _RULESETS:
        return "registered"
    entry = _installed_entries().get(key)
    if entry is None:
        raise UnknownRulesetError(f"unknown ruleset {name!r}; known: {', '.join(ruleset_names())}")
    return entry.distribution or "installed"


def installed_rulesets() -> list[tuple[installed.Installed, Ruleset | BrokenRulesetError]]:
    """Every installed ruleset's entry point with its ruleset, or the ``BrokenRulesetError`` it
    raises (one whose name is a built-in ruleset's included), by name."""
    out: list[tuple[installed.Installed, Ruleset | BrokenRulesetError]] = []
    for name, entry in sorted(_installed_entries().items()):
        try:
            out.append((entry, _load_installed(name) if name in _RULESETS else get_ruleset(name)))
        except BrokenRulesetError as error:
            out.append((entry, error))
    return out


def row_rulesets() -> list[str]:
    """The names of the registered row-of-pots rulesets (``Ruleset.row_family``: those a family of
    positions is defined for), in the registry's order, then the installed ones that load."""
    names = []
    for name, target in _RULESETS.items():
        try:
            if _entry(target).row_family:
                names.append(name)
        except (ImportError, AttributeError):
            continue
    for entry, ruleset in installed_rulesets():
        if isinstance(ruleset, Ruleset) and ruleset.row_family and entry.name not in names:
            names.append(entry.name)
    return names


def register_ruleset(ruleset: Ruleset) -> None:
    """Add ``ruleset`` to the registry under its ``name``: a ruleset defined outside ruma (with the
    compiled engine it stays pure Python). Raises ``ValueError`` when another ruleset has its name
    or its key code (the first byte of every memo key, which tells a store whose key it is)."""
    name = ruleset.name
    if name != name.strip().lower() or not name or ":" in name:
        raise ValueError(f"ruleset name {name!r}: lower case, no spaces or colon")
    if name in _RULESETS or name in _FACTORIES or name in _installed_entries():
        raise ValueError(f"a ruleset named {name!r} is registered already")
    if ruleset.code == PLUGIN_CODE:
        if ruleset_by_prefix(ruleset.key_prefix) is not None:
            raise ValueError(f"key prefix {ruleset.key_prefix.hex()} of {name!r} is another ruleset's")
    elif ruleset_by_code(ruleset.code) is not None or family_by_code(ruleset.code) is not None:
        raise ValueError(f"key code {ruleset.code} of {name!r} is another ruleset's")
    _RULESETS[name] = ruleset
    _cache.pop(name, None)


def unregister_ruleset(name: str) -> None:
    """Remove a ruleset ``register_ruleset`` added (raises ``ValueError`` for any other name)."""
    if not isinstance(_RULESETS.get(name), Ruleset):
        raise ValueError(f"{name!r} was not added by register_ruleset")
    del _RULESETS[name]
    _cache.pop(name, None)


def sample_ruleset(name: str) -> Ruleset:
    """The ruleset a name of ``ruleset_names`` stands for: ``get_ruleset(name)``, or for a
    parametrised family (``octal:CODE``) a member of it (``octal:0.07``), which has the family's
    key code, version and examples."""
    family, sep, parameter = name.strip().lower().partition(":")
    if sep and parameter == "code" and family in _FAMILY_EXAMPLES:
        return get_ruleset(f"{family}:{_FAMILY_EXAMPLES[family]}")
    return get_ruleset(name)


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
    for family in _FAMILY_EXAMPLES:
        try:
            if sample_ruleset(f"{family}:CODE").code == code:
                return f"{family}:CODE"
        except (ImportError, AttributeError):
            continue
    return None


def ruleset_by_code(code: int) -> Ruleset | None:
    """The registered (unparametrised) ruleset whose key prefix byte is ``code``, or ``None``.

    Used by persistent stores to tell which ruleset a stored key belongs to. Rulesets whose
    module is not installed are skipped; parametrised families (``octal:*``) are never returned,
    nor installed rulesets (``PLUGIN_CODE``: ``ruleset_by_prefix`` tells them apart).
    """
    if code == PLUGIN_CODE:
        return None
    for name in _RULESETS:
        try:
            ruleset = get_ruleset(name)
        except (ImportError, AttributeError):
            continue
        if ruleset.code == code:
            return ruleset
    return None


def ruleset_by_prefix(prefix: bytes) -> Ruleset | None:
    """The ruleset whose keys start with ``prefix`` (``Ruleset.key_prefix``, which carries the
    version), or ``None``: for ``PLUGIN_CODE`` the installed (or registered) ruleset whose name
    and version hash to it — each installed one is loaded to see, those broken skipped — else
    ``ruleset_by_code``'s if its version is ``prefix``'s."""
    if not prefix:
        return None
    if prefix[0] != PLUGIN_CODE:
        ruleset = ruleset_by_code(prefix[0])
        return ruleset if ruleset is not None and ruleset.key_prefix == bytes(prefix) else None
    candidates = [target for target in _RULESETS.values() if isinstance(target, Ruleset)]
    candidates += [r for _, r in installed_rulesets() if isinstance(r, Ruleset)]
    for ruleset in candidates:
        if ruleset.code == PLUGIN_CODE and ruleset.key_prefix == bytes(prefix):
            return ruleset
    return None
