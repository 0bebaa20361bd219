"""The evaluator: the exact value of any position of any ruleset, through a memo.

``evaluate(ruleset, position, memo)`` splits the position into independent components
(``Ruleset.components``), normalises each (``Ruleset.normalise``: canonical orientation and
whether it is the mirror image) and values every component by an iterative depth-first search
over its followers — no recursion, so long games such as Sowing's ``1^14`` cannot raise
``RecursionError``. Every component valued is inserted into the memo under its canonical key, so
a later query of any follower or any component is a lookup.

Partizan rulesets are valued as interned canonical forms (``Game``); impartial rulesets run on nim
values only (``mex`` and ``xor`` on ints), never through partizan canonical forms.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

from ruma.engine.cgt import ZERO, Game, Value, as_game
from ruma.engine.errors import RumaInputError
from ruma.engine.memo import Memo, new_memo
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import Position, Ruleset, State
from ruma.engine.search import CANCEL_CHECK_INTERVAL as CANCEL_CHECK_INTERVAL
from ruma.engine.search import PROGRESS_INTERVAL as PROGRESS_INTERVAL
from ruma.engine.search import EvalStats as EvalStats
from ruma.engine.search import Progress as Progress
from ruma.engine.search import Search
from ruma.engine.search import ShouldCancel as ShouldCancel

if TYPE_CHECKING:
    from ruma.engine.native.search import NativeSearch


@dataclass(frozen=True)
class ComponentValue:
    """One independent component as it stands in the position, its memo key (of its normalised
    form, mirrored or not) and its value (sign applied)."""

    position: Position
    key: bytes
    value: Value
    mirrored: bool
    from_memo: bool


@dataclass
class Evaluation:
    """The value of a position, with how it was obtained."""

    ruleset: Ruleset
    position: Position
    value: Value
    key: bytes
    canonical: Position
    mirrored: bool
    components: list[ComponentValue] = field(default_factory=list)
    stats: EvalStats = field(default_factory=EvalStats)

    @property
    def game(self) -> Game:
        """The value as a canonical game (``*k`` for an impartial nim value ``k``)."""
        return as_game(self.value)

    @property
    def nim_value(self) -> int | None:
        """The nim value, when the value is a nimber."""
        return self.value if isinstance(self.value, int) else self.value.nim_value

    @property
    def from_memo(self) -> bool:
        """True when nothing had to be computed (every component was a memo hit)."""
        return self.stats.positions_valued == 0

    # -- notebooks (ruma.engine.cgt.display) ---------------------------------------------------
    def _repr_html_(self) -> str:
        """The position, its value in Unicode, the analyses table and a small thermograph (Jupyter)."""
        from ruma.engine.cgt.display import game_html

        extra = [("canonical", f"{self.canonical}" + (" (mirror image)" if self.mirrored else ""))]
        if len(self.components) > 1:
            extra.append(("components", " + ".join(str(c.position) for c in self.components)))
        return game_html(self.game, f"{self.ruleset.name} {self.position}", extra)

    def _repr_svg_(self) -> str:
        """The thermograph sketch of the value (Jupyter)."""
        from ruma.engine.cgt.display import thermograph_svg

        return thermograph_svg(self.game)

    def _repr_latex_(self) -> str:
        """``position = value`` typeset in LaTeX math (Jupyter)."""
        from ruma.engine.cgt.display import format_latex, latex_text

        return f"${latex_text(f'{self.ruleset.name} {self.position}')} = {format_latex(self.game)}$"


def _combine(rules: Ruleset, values: Sequence[tuple[Value, bool]]) -> Value:
    """The value of a sum of components from their values and mirrored flags (signs applied)."""
    if rules.impartial:
        total = 0
        for value, _ in values:
            total ^= value  # type: ignore[operator]
        return total
    if len(values) == 1:
        single, mirrored = values[0]
        return -single if mirrored else single
    game: Game = ZERO
    for value, mirrored in values:
        game = game - value if mirrored else game + value
    return game


def _new_search(
    rules: Ruleset, memo: Memo, progress: Progress | None, should_cancel: ShouldCancel | None, max_positions: int | None
) -> "Search | NativeSearch":
    """The compiled search for a compiled ruleset (``ruma.engine.native``), else the Python one."""
    if getattr(type(rules), "native", None) is not None:
        from ruma.engine.native.search import make_search

        found = make_search(rules, memo, EvalStats(), progress, should_cancel, max_positions)
        if found is not None:
            return found
    return Search(rules, memo, progress, should_cancel, max_positions)


def _resolve(ruleset: str | Ruleset, position: str | Position | State) -> tuple[Ruleset, State]:
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if isinstance(position, Position):
        if position.ruleset is not rules:
            raise RumaInputError(f"position {str(position)!r} belongs to {position.ruleset.name}, not {rules.name}")
        return rules, position.state
    if isinstance(position, str):
        return rules, rules.parse(position)
    return rules, tuple(position)


def evaluate(
    ruleset: str | Ruleset,
    position: str | Position | State,
    memo: Memo | None = None,
    *,
    progress: Progress | None = None,
    should_cancel: ShouldCancel | None = None,
    max_positions: int | None = None,
) -> Evaluation:
    """The exact value of ``position`` in ``ruleset``, looking up and storing through ``memo``.

    ``progress`` is called with the number of positions valued so far; ``should_cancel`` is polled
    during the search and a true answer raises ``CancelledError`` (everything valued so far stays
    in the memo); more than ``max_positions`` computed positions raises ``LimitExceededError``.
    Parse errors raise ``PositionError``/``NotationError`` quoting the input.
    """
    started = time.perf_counter()
    rules, state = _resolve(ruleset, position)
    search = _new_search(rules, memo if memo is not None else new_memo(), progress, should_cancel, max_positions)
    canonical, mirrored = rules.normalise(state)
    raw_pieces = list(rules.components(state))
    pieces = [rules.normalise(piece) for piece in raw_pieces]
    components = []
    values: list[tuple[Value, bool]] = []
    for piece, (component, component_mirrored) in zip(raw_pieces, pieces):
        hits_before = search.stats.positions_valued
        value = search.value_of(component)
        values.append((value, component_mirrored))
        signed = -value if component_mirrored and isinstance(value, Game) else value
        components.append(
            ComponentValue(
                position=Position(rules, piece),
                key=rules.key(component),
                value=signed,
                mirrored=component_mirrored,
                from_memo=search.stats.positions_valued == hits_before,
            )
        )
    total = _combine(rules, values)
    key = rules.key(canonical)
    if len(pieces) != 1 or pieces[0][0] != canonical:
        # also store the whole position's own entry (in its canonical orientation)
        own = -total if mirrored and isinstance(total, Game) else total
        search.memo.insert(key, own)
    search.stats.seconds = time.perf_counter() - started
    if progress is not None:
        progress(search.stats.positions_valued)
    return Evaluation(
        ruleset=rules,
        position=Position(rules, state),
        value=total,
        key=key,
        canonical=Position(rules, canonical),
        mirrored=mirrored,
        components=components,
        stats=search.stats,
    )


def value_many(
    ruleset: str | Ruleset,
    states: Iterable[State],
    memo: Memo,
    *,
    should_cancel: ShouldCancel | None = None,
    progress: Progress | None = None,
) -> int:
    """Value every state through ``memo`` as ``evaluate`` would, one after another, but with one
    search for them all; returns how many positions were computed.

    What reaches the memo is what a loop of ``evaluate`` calls would insert (every component
    valued, and a state of several components under its own key too). One search means one
    table: a follower shared by many states is looked up in the memo once, not once per state,
    and no per-call objects (``Evaluation``, ``Position``) are built — what a sweep needs. With
    the compiled engine the loop over the states runs in C too (``Search.value_many``,
    ``engine/native/search_batch.c``; this function's loop body, ``value_one``, is its reference
    and values the states the compiled search does not take).
    ``should_cancel`` and ``progress`` behave as in ``evaluate`` (progress counts positions
    computed over all the states).
    """
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    search = _new_search(rules, memo, progress, should_cancel, None)

    def value_one(state: State) -> None:
        state = tuple(state)
        pieces = rules.decompose(state)
        # count=False: the compiled search's counters are read once, at the end
        values = [(search.value_of(component, False), mirrored) for component, mirrored in pieces]
        canonical, mirrored = rules.normalise(state)
        if len(pieces) != 1 or pieces[0][0] != canonical:  # as evaluate: the state's own entry too
            total = _combine(rules, values)
            search.memo.insert(rules.key(canonical), -total if mirrored and isinstance(total, Game) else total)

    try:
        # the compiled search runs this loop itself (value_one for the states it does not take);
        # it is the reference's loop otherwise
        in_c = getattr(search, "value_states", None)
        if in_c is not None:
            in_c(states if isinstance(states, list) else list(states), value_one)
        else:
            for state in states:
                value_one(state)
    finally:
        search.sync_stats()
    return search.stats.positions_valued


def option_values(
    ruleset: str | Ruleset, position: str | Position | State, memo: Memo | None = None
) -> tuple[list[tuple[Position, Value]], list[tuple[Position, Value]]]:
    """Each player's options of ``position`` with their values (impartial: both lists equal)."""
    rules, state = _resolve(ruleset, position)
    shared = memo if memo is not None else new_memo()

    def valued(options: Iterable[State]) -> list[tuple[Position, Value]]:
        return [(Position(rules, option), evaluate(rules, option, shared).value) for option in options]

    if rules.impartial:
        both = valued(rules.options(state))
        return both, both
    return valued(rules.left_options(state)), valued(rules.right_options(state))
