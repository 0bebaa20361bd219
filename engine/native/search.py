"""The evaluator's compiled search: ``NativeSearch`` wraps ``_core.Search`` for ``evaluate``.

It has the surface of ``ruma.engine.search.Search`` that ``evaluate`` uses (``value_of``,
``stats``, ``memo``): the search itself runs in C (``search.c``) over a compact table, consults
the memo through ``memo.lookup`` for components it has never seen, and hands every newly valued
``(key, value)`` back through ``insert_many`` in bulk; what else the memo offers (batched
lookups, packed hand-overs, recent values, a sweep's shared table, a dict to use directly) it
reads from ``ruma.engine.memo.capabilities(memo)``. Partizan values are ids of the compiled game
kernel (``_core.kernel``, the kernel ``Game`` runs on with the compiled engine): sums, negatives
and ``{L | R}`` are computed in C, and a ``Game`` object is made only for a value handed to Python.
"""

from __future__ import annotations

from typing import Any, Callable

from ruma.engine.cgt import Game, Value
from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError
from ruma.engine.memo import Memo, capabilities
from ruma.engine.native import _core
from ruma.engine.rulesets.atomic_wari import octal_37
from ruma.engine.rulesets.base import Ruleset, State

__all__ = ["NativeSearch", "make_search"]


def _octal_value(m: int) -> int:
    """·37 at ``m`` for Theorem 3.1, or -1 when ``ruma.engine.octal`` is unavailable (imported on
    the first sparse row, as the reference does: a search answered by the memo never needs it)."""
    game = octal_37()
    return -1 if game is None else int(game.value(m))


class NativeSearch:
    """One evaluation's compiled search (see the module docstring)."""

    def __init__(self, rules: Ruleset, native: _core.Rules, memo: Memo, stats: Any,
                 progress: Callable[[int], None] | None, should_cancel: Callable[[], bool] | None,
                 max_positions: int | None) -> None:
        self.rules = rules
        self.memo = memo
        self.stats = stats
        self._search = _core.Search(
            native,
            capabilities(memo),  # (what of it the search uses: ``native/search_type.c``)
            progress,
            should_cancel,
            -1 if max_positions is None else max(0, max_positions),
            None if native.family == _core.FAMILY_SOWING else _octal_value,
        )
        self.max_positions = max_positions
        self._progress, self._should_cancel = progress, should_cancel
        self._python: Any = None  # the reference search, made when a component needs it

    def value_of(self, component: State, count: bool = True) -> Value:
        """The value of a normalised component (a nim value, or a ``Game`` for partizan rulesets).

        ``count=False`` leaves ``stats`` to a later ``sync_stats()`` (``evaluator.value_many``
        values many components and reads the counters once)."""
        try:
            # (``NotImplemented`` for what the compiled code does not take — not a tuple of exact
            # ints in 0..RUMA_MAX_COUNT, checked in C as it reads the state: the reference search)
            found = self._search.value(component)
        except _core.Interrupted as stop:
            kind, state = stop.args
            raise self._error(kind, component, state) from None
        finally:
            if count:
                self._count()
        if found is NotImplemented:
            return self._python_value(component)
        return found if self.rules.impartial else Game.by_id(found)

    def value_states(self, states: list[State], reference: Callable[[State], None]) -> None:
        """Value ``states`` as ``evaluator.value_many``'s loop does, that loop running in C
        (``search_batch.c``): each state the compiled search does not take
        goes to ``reference`` (the loop's body), and the rest go on in C. Counters as with
        ``value_of(..., count=False)``: read by ``sync_stats``."""
        at = 0
        while at < len(states):
            try:
                at = self._search.value_many(states, at)
            except _core.Interrupted as stop:
                kind, state, index = stop.args
                raise self._error(kind, tuple(states[index]), state) from None
            if at < len(states):
                reference(states[at])
                at += 1

    def sync_stats(self) -> None:
        """Bring ``stats`` up to date with the compiled search's counters."""
        self._count()

    def _count(self) -> None:
        counters = self._search.stats()
        extra = self._python.stats if self._python is not None else None
        stats = self.stats
        stats.positions_valued = counters["positions_valued"] + (extra.positions_valued if extra else 0)
        stats.memo_hits = counters["memo_hits"] + (extra.memo_hits if extra else 0)
        stats.memo_misses = counters["memo_misses"] + (extra.memo_misses if extra else 0)
        stats.table_bytes = counters["table_bytes"]
        stats.table_entries = counters["table_entries"]

    def _python_value(self, component: State) -> Value:
        """The reference search, for a component the compiled search does not take (negative or
        enormous counts): such inputs then behave exactly as with the pure-Python engine."""
        if self._python is None:
            from ruma.engine.search import Search

            self._python = Search(self.rules.reference, self.memo, self._progress,  # type: ignore[attr-defined]
                                   self._should_cancel, self.max_positions)
        try:
            value: Value = self._python.value_of(component)
            return value
        finally:
            self._count()

    def _error(self, kind: str, root: State, state: State | None) -> Exception:
        rules = self.rules
        if kind == "cancelled":
            return CancelledError(f"evaluation of {rules.format(root)!r} ({rules.name}) was cancelled")
        if kind == "limit":
            return LimitExceededError(
                f"evaluation needs more than {self.max_positions} positions (limit) in {rules.name}"
            )
        shown = rules.format(state if state is not None else root)
        return RumaInputError(f"position {shown!r} of {rules.name} repeats: the game is loopy")


def make_search(rules: Ruleset, memo: Memo, stats: Any, progress: Callable[[int], None] | None,
                should_cancel: Callable[[], bool] | None, max_positions: int | None) -> NativeSearch | None:
    """A compiled search for ``rules`` when it is a compiled ruleset, else ``None``."""
    native = getattr(type(rules), "native", None)
    if not isinstance(native, _core.Rules):
        return None
    return NativeSearch(rules, native, memo, stats, progress, should_cancel, max_positions)
