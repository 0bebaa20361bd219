"""ruma.engine: exact combinatorial-game values of sowing games, as a plain library.

    >>> from ruma.engine import evaluate
    >>> evaluate("sowing", "312").value          # doctest: +SKIP
"""

from __future__ import annotations

from ruma.engine.errors import (
    CancelledError,
    LimitExceededError,
    NotAtomicError,
    NotationError,
    PositionError,
    RumaError,
    RumaInputError,
    UnknownRulesetError,
)

ENGINE_VERSION = "0.1.0"

__all__ = [
    "ENGINE_VERSION",
    "CancelledError",
    "LimitExceededError",
    "NotAtomicError",
    "NotationError",
    "PositionError",
    "RumaError",
    "RumaInputError",
    "UnknownRulesetError",
]
