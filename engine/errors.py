"""The errors ruma raises on purpose: every one a ``RumaError``, its message quoting the input.

Errors about the input are also ``ValueError``s: ``RumaInputError`` (malformed or meaningless
input) and its subclasses, and ``LimitExceededError`` (input beyond the configured limits). The
rest are not: ``CancelledError`` (a search stopped by its caller), ``NotAtomicError`` (a quantity
a game does not have), ``BrokenRulesetError`` (an installed ruleset that cannot serve), and the
errors of the other layers (the store's damaged records, a lost worker, a failed call of the
client) derive from ``RumaError`` alone.

The server maps these to gRPC status codes in one place (``ruma.server.rpc.errors``):
``RumaInputError`` and its subclasses → ``INVALID_ARGUMENT``, ``LimitExceededError`` →
``RESOURCE_EXHAUSTED``, ``CancelledError`` → ``CANCELLED`` / ``DEADLINE_EXCEEDED``; the command
line maps them to exit statuses in ``ruma.client.cli.errors``.
"""

from __future__ import annotations


class RumaError(Exception):
    """Base class of every error ruma raises on purpose."""


class RumaInputError(RumaError, ValueError):
    """Malformed or meaningless input (a bad position, expression or name)."""


class NotationError(RumaInputError):
    """Text that does not parse; the message quotes it and points at the offending column."""

    #: characters quoted on each side of the offending column of a long text
    WINDOW = 60

    def __init__(self, text: str, index: int, reason: str) -> None:
        self.text = text
        self.index = index
        self.reason = reason
        if len(text) <= 2 * self.WINDOW:
            head, shown, at = f"cannot parse {text!r}", text, index
        else:  # a long text: its length, and the part around the offending column
            start, end = max(0, index - self.WINDOW), min(len(text), index + self.WINDOW)
            shown = ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")
            head, at = f"cannot parse a text of {len(text)} characters", index - start + (3 if start else 0)
        pointer = " " * (at + 2) + "^"  # under the character: one space and the quote precede it
        super().__init__(f"{head} at column {index + 1}: {reason}\n {shown!r}\n{pointer}")


class PositionError(RumaInputError):
    """A position that is not legal for its ruleset (negative counts, absurd sizes, ...)."""


class UnknownRulesetError(RumaInputError):
    """A ruleset name that the engine does not know."""


class BrokenRulesetError(RumaError):
    """An installed ruleset (entry point of ``ruma.rulesets``) that cannot serve: its module does
    not import, it is not a ``Ruleset``, or its name or key code clashes; the message names the
    entry point and the distribution that declares it. Not about the caller's input."""


class NotAtomicError(RumaError):
    """Atomic weight asked of a game that is not atomic (Conway's definition)."""


class LimitExceededError(RumaError, ValueError):
    """Input larger than the configured limits (pots, seeds, positions to explore): well formed, so
    not a ``RumaInputError``, but about the input, so a ``ValueError``."""


class CancelledError(RumaError):
    """The evaluation was cancelled by its caller (deadline or cancellation)."""
