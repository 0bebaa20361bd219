"""A new row ruleset is one class and one registration: a toy defined here is swept, stored and
censused like the built-in ones, and every answer agrees with a plain recursion written here.

The toy, *Nudge*: Left takes one seed from a pot whose right-hand neighbour is nonempty, Right one
from a pot whose left-hand neighbour is nonempty; the row is unbounded (beyond its ends every
pot is empty). Seeds only decrease, so every game ends. Its normalisation: empty end pots take
part in no move (strip them), reversing the row swaps the players (the mirror), and an empty pot
inside the row never fills and blocks every move across it (the runs between empty pots are
independent components). Everything else — the sweep's potential, the pots a row of seeds fills,
the key and its decoding — is ``Ruleset``'s default.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path
from typing import ClassVar, Iterator, Sequence

import pytest

from ruma.client.sweep.driver import sweep_store
from ruma.engine.cgt import Game, Value
from ruma.engine.families.census import census
from ruma.engine.families.classes import Family, enumerate_family, raw_rows
from ruma.engine.families.order import cell, precedes
from ruma.engine.rulesets import get_ruleset, register_ruleset, row_rulesets, ruleset_by_code, unregister_ruleset
from ruma.engine.rulesets.base import State, strip_ends
from ruma.engine.rulesets.notation import BothDirections, PotRowRuleset
from ruma.server.store.keys import state_of_key
from ruma.server.store.memo import LmdbStore


class NudgeRuleset(PotRowRuleset):
    """Nudge: take one seed from a pot whose neighbour on your side is nonempty."""

    name: ClassVar[str] = "toy-nudge"
    code: ClassVar[int] = 200  # no built-in ruleset's
    impartial: ClassVar[bool] = False
    description: ClassVar[str] = "a toy: take a seed from a pot beside a nonempty pot on your side"
    examples: ClassVar[tuple[str, ...]] = ("11", "212")
    unbounded: ClassVar[bool] = True
    impartial_twin: ClassVar[str | None] = "toy-impartial-nudge"

    def left_options(self, state: State) -> list[State]:
        """Take a seed from a pot whose right-hand neighbour is nonempty."""
        return [state[:i] + (state[i] - 1,) + state[i + 1:] for i in range(len(state) - 1) if state[i] and state[i + 1]]

    def right_options(self, state: State) -> list[State]:
        """Take a seed from a pot whose left-hand neighbour is nonempty."""
        return [state[:i] + (state[i] - 1,) + state[i + 1:] for i in range(1, len(state)) if state[i] and state[i - 1]]

    def normalise(self, state: State) -> tuple[State, bool]:
        """Empty end pots stripped, then the smaller orientation."""
        return self.oriented(strip_ends(state))

    def components(self, state: State) -> Sequence[State]:
        """The runs of nonempty pots."""
        runs: list[State] = []
        start = 0
        for i, seeds in enumerate(state + (0,)):
            if not seeds:
                if i > start:
                    runs.append(state[start:i])
                start = i + 1
        return runs


class ImpartialNudgeRuleset(BothDirections, NudgeRuleset):
    """Impartial Nudge: either player takes a seed from a pot beside a nonempty pot."""

    name: ClassVar[str] = "toy-impartial-nudge"
    code: ClassVar[int] = 201
    impartial: ClassVar[bool] = True
    examples: ClassVar[tuple[str, ...]] = ("11",)


NUDGE, IMPARTIAL_NUDGE = NudgeRuleset(), ImpartialNudgeRuleset()
TOYS = [NUDGE.name, IMPARTIAL_NUDGE.name]


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    """The toys in the registry for this module's tests only (other modules list the built-ins)."""
    register_ruleset(NUDGE)
    register_ruleset(IMPARTIAL_NUDGE)
    try:
        yield
    finally:
        unregister_ruleset(NUDGE.name)
        unregister_ruleset(IMPARTIAL_NUDGE.name)


# -- the independent path: the moves read off the rules above, a plain recursion over raw rows ----

def raw_moves(row: State, side: int) -> list[State]:
    """Every row one nudge away: ``side`` +1 for Left (the neighbour on the right), -1 for Right.
    The row is not stripped, mirrored or split; beyond its ends the pots are empty."""
    out = []
    for i, seeds in enumerate(row):
        j = i + side
        if seeds > 0 and 0 <= j < len(row) and row[j] > 0:
            out.append(tuple(s - 1 if k == i else s for k, s in enumerate(row)))
    return out


@cache
def partizan_value(row: State) -> Game:
    """``{values of Left's options | values of Right's options}``, canonicalised."""
    return Game.from_options([partizan_value(o) for o in raw_moves(row, +1)],
                             [partizan_value(o) for o in raw_moves(row, -1)])


@cache
def nim_value(row: State) -> int:
    """The mex of the options' nim values, the options being both sides' moves."""
    seen = {nim_value(o) for o in raw_moves(row, +1) + raw_moves(row, -1)}
    value = 0
    while value in seen:
        value += 1
    return value


def brute(ruleset: str, row: State) -> Value:
    return nim_value(row) if ruleset == IMPARTIAL_NUDGE.name else partizan_value(row)


# -- the tests -------------------------------------------------------------------------------------

def test_the_registry_serves_the_toys() -> None:
    assert row_rulesets()[-2:] == TOYS
    assert get_ruleset("toy-nudge") is NUDGE  # no compiled twin: the Python class serves
    assert ruleset_by_code(201) is IMPARTIAL_NUDGE
    assert get_ruleset(NUDGE.impartial_twin or "").impartial
    assert [NUDGE.parse(text) for text in NUDGE.examples] == [(1, 1), (2, 1, 2)]


@pytest.mark.parametrize("ruleset", TOYS)
def test_no_move_raises_the_default_potential(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    checked = 0
    for c in enumerate_family(Family.of(ruleset, (0, 6), (1, 6))):
        for option in [*rules.left_options(c.state), *rules.right_options(c.state)]:
            for part, _ in rules.decompose(option):
                assert cell(rules, part) == cell(rules, c.state) or precedes(cell(rules, part), cell(rules, c.state))
                checked += 1
    assert checked > 500


@pytest.mark.parametrize("ruleset", TOYS)
def test_a_toy_is_swept_stored_and_censused(ruleset: str, tmp_path: Path) -> None:
    rules = get_ruleset(ruleset)
    family = Family.of(ruleset, (0, 7), (1, 7))
    classes = enumerate_family(family)
    summary = sweep_store(family, str(tmp_path), workers=1)
    assert (summary.backend, summary.classes) == ("inline", len(classes))
    with LmdbStore(tmp_path, create=False) as store:
        assert {r["code"]: r["name"] for r in store.admin.stats()["rulesets"]}[rules.code] == ruleset
        for c in classes:
            value = store.lookup(c.key)
            assert value == brute(ruleset, c.state), rules.format(c.state)
            assert state_of_key(c.key) == (rules, c.state)
        rows = census(rules, classes, store.lookup)
    expected: Counter[Value] = Counter(brute(ruleset, row) for row in raw_rows(family))
    assert {row.group: row.raw_positions for row in rows} == dict(expected)
    assert len(expected) >= 4  # not all zeros
