"""Local evaluation for the command line, with the server's limits and a progress display.

``LocalEvaluator(ruleset, memo, limits, progress=...)`` values positions as ``ruma serve`` would:
a position larger than ``--max-pots``/``--max-seeds`` is refused before any work, a search that
values more than ``--max-positions`` positions or runs past ``--max-seconds`` stops; each is a
``UsageError`` (exit 2) naming the limit and how to raise it. ``--no-limit`` lifts them all.
``LocalLimits`` lives in ``cli.options`` (re-exported here).
The persistent store is opened through the ``ruma.stores`` entry point
(``ruma.engine.stores.open_store``), so the client never imports the server.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Callable

from ruma.client.cli.errors import UnreachableError, UsageError
from ruma.client.cli.options import LocalLimits
from ruma.engine.errors import CancelledError, LimitExceededError, RumaError
from ruma.engine.evaluator import Evaluation, evaluate
from ruma.engine.memo import Memo, capabilities
from ruma.engine.rulesets import Ruleset, State
from ruma.engine.stores import MissingStoreError, Store, open_store


def open_local_store(directory: Path) -> Store:
    """The persistent store in ``directory`` (``ruma.engine.stores.open_store``, created if
    missing); one that cannot be opened, or no store installed, is ``UnreachableError``."""
    try:
        return open_store(directory)
    except MissingStoreError as error:
        raise UnreachableError(str(error)) from None
    except RumaError as error:
        raise UnreachableError(f"cannot open the store in {str(directory)!r}: {error}") from None


__all__ = ["LocalEvaluator", "LocalLimits", "open_local_store", "store_memo"]


class LocalEvaluator:
    """Values positions of one ruleset through ``memo`` within ``limits``."""

    def __init__(self, rules: Ruleset, memo: Memo, limits: LocalLimits,
                 progress: Callable[[int], None] | None = None) -> None:
        self.rules = rules
        self.memo = memo
        self.limits = limits
        self.progress = progress
        #: whether values come from (and go to) a persistent store, not only this process's memo
        self.stored = capabilities(memo).store is not None

    def check_size(self, text: str, state: State) -> None:
        """Refuse a position larger than the pot/seed limits, as the server does."""
        pots, seeds = self.rules.size(state)
        limits = self.limits
        if limits.max_pots is not None and pots > limits.max_pots:
            raise UsageError(f"position {text!r} has {pots} pots/heaps; the limit is {limits.max_pots}",
                             "raise it with --max-pots, or --no-limit")
        if limits.max_seeds is not None and seeds > limits.max_seeds:
            raise UsageError(f"position {text!r} has {seeds} seeds/tokens; the limit is {limits.max_seeds}",
                             "raise it with --max-seeds, or --no-limit")

    def evaluate(self, text: str) -> Evaluation:
        """The value of one position (``UsageError`` when a limit stops it)."""
        state = self.rules.parse(text)
        self.check_size(text, state)
        limits = self.limits
        should_cancel = None
        started = time.monotonic()
        if limits.max_seconds is not None:
            deadline = started + limits.max_seconds
            should_cancel = lambda: time.monotonic() > deadline  # noqa: E731
        try:
            return evaluate(self.rules, state, self.memo, progress=self.progress, should_cancel=should_cancel,
                            max_positions=limits.max_positions)
        except LimitExceededError as error:  # (the search stops as it reaches the limit)
            raise UsageError(f"{text!r}: {error}, reached after {time.monotonic() - started:.1f} s",
                             "raise it with --max-positions, or --no-limit") from None
        except CancelledError:
            raise UsageError(f"{text!r}: not valued within {limits.max_seconds:g} s (limit)",
                             "raise it with --max-seconds, or --no-limit") from None


def store_memo(args: argparse.Namespace, closers: list[Any]) -> Memo | None:
    """The store in ``--data`` when one was asked for (created if missing), else None."""
    if not getattr(args, "data", None):
        return None
    from ruma.client.cli.options import data_directory

    store = open_local_store(data_directory(args, create=True))
    closers.append(store.close)
    return store
