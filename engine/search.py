"""The pure-Python search of the evaluator: an iterative depth-first search over normalised
components through a memo, no recursion (so long games such as Sowing's ``1^14`` cannot raise
``RecursionError``).

It is the readable reference of the compiled search (``ruma.engine.native.search``), which has the
same surface (``value_of``, ``value_many``, ``stats``) and is differential-tested against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ruma.engine.cgt import ZERO, Game, Value
from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError
from ruma.engine.memo import Memo
from ruma.engine.rulesets.base import Ruleset, State

Progress = Callable[[int], None]
ShouldCancel = Callable[[], bool]

#: how many expansions between two checks of ``should_cancel`` (each is well under a millisecond)
CANCEL_CHECK_INTERVAL = 64
#: how many positions valued between two calls of ``progress``
PROGRESS_INTERVAL = 1024


@dataclass
class EvalStats:
    """What one evaluation cost: positions valued (computed), memo hits and misses, seconds.

    ``table_bytes``/``table_entries``: the compiled search's table (``ruma.engine.native``) at the
    end of the evaluation (0 with the pure-Python engine); not part of the ``evaluation`` record.
    """

    positions_valued: int = 0
    memo_hits: int = 0
    memo_misses: int = 0
    seconds: float = 0.0
    table_bytes: int = 0
    table_entries: int = 0


class Search:
    """One evaluation's depth-first search state: the pure-Python reference search (``evaluate``
    uses the compiled one, ``ruma.engine.native.search``, when the ruleset is compiled)."""

    def __init__(
        self,
        rules: Ruleset,
        memo: Memo,
        progress: Progress | None,
        should_cancel: ShouldCancel | None,
        max_positions: int | None,
    ) -> None:
        self.rules = rules
        self.memo = memo
        self.progress = progress
        self.should_cancel = should_cancel
        self.max_positions = max_positions
        self.values: dict[State, Value] = {}  # normalised component -> value
        self.pieces: dict[State, list[tuple[State, bool]]] = {}  # raw state -> normalised components
        self.keys: dict[State, bytes] = {}  # memo keys of components being valued
        self.stats = EvalStats()

    def decompose(self, state: State) -> list[tuple[State, bool]]:
        """The normalised components of a raw state, each with its mirrored flag (cached)."""
        pieces = self.pieces.get(state)
        if pieces is None:
            pieces = self.pieces[state] = self.rules.decompose(state)
        return pieces

    def known(self, component: State) -> bool:
        """Whether a normalised component's value is known, consulting the memo once."""
        if component in self.values:
            return True
        key = self.rules.key(component)
        stored = self.memo.lookup(key)
        if stored is None:
            self.stats.memo_misses += 1
            self.keys[component] = key
            return False
        self.stats.memo_hits += 1
        self.values[component] = stored
        return True

    def value_of(self, root: State, count: bool = True) -> Value:
        """The value of a normalised component, valuing every unknown follower first (``count``:
        for the compiled search's interface; this search's ``stats`` are always current)."""
        if self.known(root):
            return self.values[root]
        if self.rules.impartial:
            self._search_impartial(root)
        else:
            self._search_partizan(root)
        return self.values[root]

    def sync_stats(self) -> None:
        """Nothing to do: ``stats`` are kept as the search goes (``NativeSearch`` reads its
        counters here)."""

    def _loopy(self, component: State) -> RumaInputError:
        rules = self.rules
        return RumaInputError(f"position {rules.format(component)!r} of {rules.name} repeats: the game is loopy")

    def _cancelled(self, root: State) -> CancelledError:
        rules = self.rules
        return CancelledError(f"evaluation of {rules.format(root)!r} ({rules.name}) was cancelled")

    def _direct(self) -> Callable[[State], object | None] | None:
        """The ruleset's ``direct_value``, or None when it is the base class's (always None)."""
        rules = self.rules
        return None if type(rules).direct_value is Ruleset.direct_value else rules.direct_value

    def _search_impartial(self, root: State) -> None:
        """Iterative depth-first search on nim values (ints only): xor within, mex across options."""
        rules, values, pieces_of = self.rules, self.values, self.pieces
        rules_decompose, options_of, direct = rules.decompose, rules.options, self._direct()
        known, store, should_cancel = self.known, self._store, self.should_cancel
        expanded: dict[State, list[list[tuple[State, bool]]]] = {}
        stack: list[State] = [root]
        steps = 0
        while stack:
            state = stack[-1]
            if state in values:
                stack.pop()
                continue
            steps += 1
            if should_cancel is not None and steps % CANCEL_CHECK_INTERVAL == 0 and should_cancel():
                raise self._cancelled(root)
            options = expanded.get(state)
            if options is None:
                if direct is not None:
                    found = direct(state)
                    if found is not None:
                        store(state, found)  # type: ignore[arg-type]
                        continue
                options = []
                for option in options_of(state):
                    pieces = pieces_of.get(option)
                    if pieces is None:
                        pieces = pieces_of[option] = rules_decompose(option)
                    options.append(pieces)
                expanded[state] = options
            missing = False
            seen: set[int] = set()
            for pieces in options:
                total = 0
                for component, _ in pieces:
                    value = values.get(component)
                    if value is None:
                        if not known(component):
                            if component in expanded:  # an unfinished ancestor: play would loop
                                raise self._loopy(component)
                            stack.append(component)
                            missing = True
                            continue
                        value = values[component]
                    total ^= value  # type: ignore[operator]
                seen.add(total)
            if missing:
                continue
            del expanded[state]
            mex = 0
            while mex in seen:
                mex += 1
            store(state, mex)

    def _search_partizan(self, root: State) -> None:
        """Iterative depth-first search on canonical forms: sum within, ``{L | R}`` across options."""
        rules, values, pieces_of = self.rules, self.values, self.pieces
        rules_decompose, direct = rules.decompose, self._direct()
        left_of, right_of = rules.left_options, rules.right_options
        known, store, should_cancel = self.known, self._store, self.should_cancel
        from_options = Game.from_options
        expanded: dict[State, tuple[list[list[tuple[State, bool]]], int]] = {}
        stack: list[State] = [root]
        steps = 0
        while stack:
            state = stack[-1]
            if state in values:
                stack.pop()
                continue
            steps += 1
            if should_cancel is not None and steps % CANCEL_CHECK_INTERVAL == 0 and should_cancel():
                raise self._cancelled(root)
            entry = expanded.get(state)
            if entry is None:
                if direct is not None:
                    found = direct(state)
                    if found is not None:
                        store(state, found)  # type: ignore[arg-type]
                        continue
                options: list[list[tuple[State, bool]]] = []
                for option in left_of(state):
                    pieces = pieces_of.get(option)
                    if pieces is None:
                        pieces = pieces_of[option] = rules_decompose(option)
                    options.append(pieces)
                split = len(options)
                for option in right_of(state):
                    pieces = pieces_of.get(option)
                    if pieces is None:
                        pieces = pieces_of[option] = rules_decompose(option)
                    options.append(pieces)
                entry = expanded[state] = (options, split)
            options, split = entry
            missing = False
            for pieces in options:
                for component, _ in pieces:
                    if component not in values and not known(component):
                        if component in expanded:  # an unfinished ancestor: play would loop
                            raise self._loopy(component)
                        stack.append(component)
                        missing = True
            if missing:
                continue
            del expanded[state]
            sums: list[Game] = []
            for pieces in options:
                if len(pieces) == 1:
                    component, mirrored = pieces[0]
                    single: Game = values[component]  # type: ignore[assignment]
                    sums.append(-single if mirrored else single)
                else:
                    game: Game = ZERO
                    for component, mirrored in pieces:
                        part: Game = values[component]  # type: ignore[assignment]
                        game = game - part if mirrored else game + part
                    sums.append(game)
            store(state, from_options(sums[:split], sums[split:]))

    def _store(self, state: State, value: Value) -> None:
        """Record a computed component value locally and in the memo; enforce limits; report progress."""
        self.values[state] = value
        key = self.keys.pop(state, None)
        self.memo.insert(key if key is not None else self.rules.key(state), value)
        stats = self.stats
        stats.positions_valued += 1
        if self.max_positions is not None and stats.positions_valued > self.max_positions:
            raise LimitExceededError(
                f"evaluation needs more than {self.max_positions} positions (limit) in {self.rules.name}"
            )
        if self.progress is not None and stats.positions_valued % PROGRESS_INTERVAL == 0:
            self.progress(stats.positions_valued)
