"""ruma.engine: exact combinatorial-game values of sowing games, as a plain library.

    >>> from ruma.engine import evaluate, parse_game
    >>> evaluate("sowing", "312").value == parse_game("{0|-2}")
    True

The engine is in layers, each importing only those below it (docs/architecture.md), from the
bottom: ``errors`` and ``frame``; ``native`` (the compiled core and the engine choice); ``cgt``,
``octal``, ``tchoukaillon``; ``rulesets``, ``stores``; ``memo``; ``search``, ``verify``,
``families``; ``native.search``; ``native.rulesets``; ``evaluator``; this module on top.

May import: the standard library and ``ruma.engine.errors`` — the rest of the engine by name, on
first use; nothing of ruma outside the engine, anywhere in it.
"""

from __future__ import annotations

from ruma.engine.errors import (
    CancelledError,
    LimitExceededError,
    NotationError,
    NotAtomicError,
    PositionError,
    RumaError,
    RumaInputError,
    UnknownRulesetError,
)

ENGINE_VERSION = "0.1.0"

_LAZY = {
    "evaluate": "ruma.engine.evaluator",
    "option_values": "ruma.engine.evaluator",
    "Evaluation": "ruma.engine.evaluator",
    "claim_holds": "ruma.engine.verify",
    "get_ruleset": "ruma.engine.rulesets",
    "ruleset_names": "ruma.engine.rulesets",
    "Game": "ruma.engine.cgt",
    "parse_game": "ruma.engine.cgt",
    "format_game": "ruma.engine.cgt",
    "InMemoryMemo": "ruma.engine.memo",
}


def __getattr__(name: str) -> object:
    """Import the library's main entry points on first use (keeps ``import ruma.engine`` cheap)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ruma.engine' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

__all__ = [
    "ENGINE_VERSION",
    *_LAZY,
    "CancelledError",
    "LimitExceededError",
    "NotAtomicError",
    "NotationError",
    "PositionError",
    "RumaError",
    "RumaInputError",
    "UnknownRulesetError",
]
