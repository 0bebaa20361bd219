"""Rulesets installed from outside ruma: the entry points of the group ``ruma.rulesets``.

A package defines a ruleset as a ``Ruleset`` instance (``ruma.engine.rulesets.base``, the class
the built-in rulesets derive from) and registers it in its metadata::

    [project.entry-points."ruma.rulesets"]
    capture-sowing = "capture_sowing:CAPTURE_SOWING"

The entry's name is the ruleset's name; its value names the instance (``module:attribute``).
Entries are read from the installed distributions' metadata when the registry first needs them
(``discover``), and a module is imported only when its ruleset is first asked for (``load``).

An installed ruleset declares ``code = PLUGIN_CODE``: its keys start with that byte and a hash
of its name and ``version`` (``base.plugin_prefix``), so its values are kept apart from every
other ruleset's and a new version never reads an old one's. One that cannot serve — its module
does not import, its attribute is not a ``Ruleset``, its name is a built-in ruleset's or another
installed one's, its code or version is not an installed ruleset's — raises
``BrokenRulesetError`` naming the entry point and its distribution whenever it is asked for.

May import: the standard library, ``ruma.engine.errors``, ``ruma.engine.rulesets.base``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Collection

from ruma.engine.errors import BrokenRulesetError
from ruma.engine.rulesets.base import PLUGIN_CODE, Ruleset

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["GROUP", "Installed", "discover", "load"]

GROUP = "ruma.rulesets"
"""The entry-point group installed rulesets register under."""


@dataclass(frozen=True)
class Installed:
    """An entry point of ``GROUP``: the ruleset's name, what it names and where it came from."""

    name: str
    target: str
    """``module:attribute`` of the ``Ruleset`` instance."""
    distribution: str
    """The distribution that declares it, ``NAME VERSION`` (``""`` when the metadata names none)."""
    duplicate: str = ""
    """Another distribution declaring the same name (the name is then ambiguous: broken)."""

    def describe(self) -> str:
        """``entry point NAME = TARGET of DISTRIBUTION`` (for messages)."""
        where = f" of {self.distribution}" if self.distribution else ""
        return f"entry point {self.name} = {self.target}{where}"


def _distribution(entry: EntryPoint) -> str:
    dist = entry.dist
    if dist is None:
        return ""
    return f"{dist.metadata['Name'] or dist.name} {dist.version}"


def discover() -> dict[str, Installed]:
    """Every entry point of ``GROUP`` in the installed distributions, by lower-case name; a name
    two distributions declare is kept once, marked ``duplicate``."""
    from importlib.metadata import entry_points  # (here: a process that never asks, a sweep's worker, never imports it)

    found: dict[str, Installed] = {}
    for entry in entry_points(group=GROUP):
        name = entry.name.strip().lower()
        seen = found.get(name)
        origin = _distribution(entry)
        if seen is None:
            found[name] = Installed(name, entry.value, origin)
        elif (seen.target, seen.distribution) != (entry.value, origin):
            found[name] = Installed(name, seen.target, seen.distribution, duplicate=origin or entry.value)
    return found


def load(entry: Installed, builtin: Collection[str]) -> Ruleset:
    """Import the ruleset ``entry`` names and check it; raises ``BrokenRulesetError`` saying why
    it cannot serve (``builtin``: the names of the built-in rulesets and families)."""
    where = entry.describe()
    if entry.duplicate:
        raise BrokenRulesetError(f"installed ruleset {entry.name!r}: {where} and one of {entry.duplicate} "
                                 f"both declare it; uninstall one")
    if entry.name in builtin:
        raise BrokenRulesetError(f"installed ruleset {entry.name!r} ({where}) has the name of a built-in ruleset")
    module, sep, attribute = entry.target.partition(":")
    if not sep or not module.strip() or not attribute.strip():
        raise BrokenRulesetError(f"installed ruleset {entry.name!r} ({where}): the value is not module:attribute")
    try:
        found: object = importlib.import_module(module.strip())
        for part in attribute.strip().split("."):
            found = getattr(found, part)
    except Exception as error:  # noqa: BLE001 - any failure of a foreign module is reported as its own
        raise BrokenRulesetError(f"installed ruleset {entry.name!r} ({where}) cannot be loaded: "
                                 f"{type(error).__name__}: {error}") from error
    if not isinstance(found, Ruleset):
        raise BrokenRulesetError(f"installed ruleset {entry.name!r} ({where}) is a {type(found).__name__}, "
                                 f"not a ruma.engine.rulesets.Ruleset instance")
    _check(found, entry.name, where)
    return found


def _check(ruleset: Ruleset, name: str, where: str) -> None:
    """What an installed ruleset must declare: its entry's name, the plugin key code, a version."""
    if getattr(ruleset, "name", None) != name:
        raise BrokenRulesetError(f"installed ruleset {name!r} ({where}) calls itself "
                                 f"{getattr(ruleset, 'name', None)!r}; the entry point's name must be the ruleset's")
    if getattr(ruleset, "code", None) != PLUGIN_CODE:
        raise BrokenRulesetError(f"installed ruleset {name!r} ({where}) declares key code "
                                 f"{getattr(ruleset, 'code', None)!r}; an installed ruleset's is PLUGIN_CODE "
                                 f"({PLUGIN_CODE}, ruma.engine.rulesets.base)")
    version = getattr(ruleset, "version", None)
    if type(version) is not int or not 0 <= version < 1 << 32:
        raise BrokenRulesetError(f"installed ruleset {name!r} ({where}) declares version {version!r}; "
                                 f"a version is an int from 0 to 2**32 - 1")
    if not isinstance(getattr(ruleset, "impartial", None), bool):
        raise BrokenRulesetError(f"installed ruleset {name!r} ({where}) does not say whether it is impartial")
