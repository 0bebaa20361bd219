"""The engine's errors: every one is a ``ValueError`` subclass that quotes the input.

The server maps these to gRPC status codes in one place (``ruma.server.errors``):
``RumaInputError`` and its subclasses → ``INVALID_ARGUMENT``, ``LimitExceededError`` →
``RESOURCE_EXHAUSTED``, ``CancelledError`` → ``CANCELLED`` / ``DEADLINE_EXCEEDED``.
"""

from __future__ import annotations


class RumaError(ValueError):
    """Base class of every error the engine raises on purpose."""


class RumaInputError(RumaError):
    """Malformed or meaningless input (a bad position, expression or name)."""


class NotationError(RumaInputError):
    """Text that does not parse; the message quotes it and points at the offending column."""

    def __init__(self, text: str, index: int, reason: str) -> None:
        self.text = text
        self.index = index
        self.reason = reason
        pointer = " " * (index + 2) + "^"  # under the character: one space and the quote precede it
        super().__init__(f"cannot parse {text!r} at column {index + 1}: {reason}\n {text!r}\n{pointer}")


class PositionError(RumaInputError):
    """A position that is not legal for its ruleset (negative counts, absurd sizes, ...)."""


class UnknownRulesetError(RumaInputError):
    """A ruleset name that the engine does not know."""


class NotAtomicError(RumaError):
    """Atomic weight asked of a game that is not atomic (Conway's definition)."""


class LimitExceededError(RumaError):
    """A position larger than the configured limits (pots, seeds, positions to explore)."""


class CancelledError(RumaError):
    """The evaluation was cancelled by its caller (deadline or cancellation)."""
