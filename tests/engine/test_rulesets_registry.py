"""The registry and what every ruleset says about itself: the row rulesets, examples that parse,
keys that decode, impartial twins that are impartial versions of the same positions, and
registrations that refuse a name or key code in use."""

from __future__ import annotations

from typing import ClassVar

import pytest

from ruma.engine.rulesets import (
    get_ruleset,
    register_ruleset,
    row_rulesets,
    ruleset_names,
    sample_ruleset,
    unregister_ruleset,
)
from ruma.engine.rulesets.sowing import SowingRuleset


def test_the_row_rulesets_are_the_five_pot_rows() -> None:
    assert row_rulesets() == ["sowing", "impartial-sowing", "atomic-wari", "impartial-atomic-wari", "atomic-wari-board"]
    assert [name for name in row_rulesets() if not get_ruleset(name).unbounded] == ["atomic-wari-board"]
    assert not any(sample_ruleset(name).row_family for name in ruleset_names() if name not in row_rulesets())


@pytest.mark.parametrize("name", ruleset_names())
def test_examples_parse_and_their_keys_decode(name: str) -> None:
    rules = sample_ruleset(name)
    assert rules.examples
    for text in rules.examples:
        state = rules.normalise(rules.parse(text))[0]
        assert rules.state_from_key(rules.key(state)) == state, (name, text)


def test_a_family_is_described_by_a_member() -> None:
    assert sample_ruleset("octal:CODE") is get_ruleset("octal:0.07")
    assert sample_ruleset("nim") is get_ruleset("nim")


@pytest.mark.parametrize("name", [n for n in ruleset_names() if sample_ruleset(n).impartial_twin])
def test_an_impartial_twin_is_the_same_game_for_either_player(name: str) -> None:
    rules = get_ruleset(name)
    twin = get_ruleset(rules.impartial_twin or "")
    assert not rules.impartial and twin.impartial and twin.impartial_twin is None
    state = rules.parse(rules.examples[0])
    assert twin.parse(rules.examples[0]) == state
    assert sorted(twin.options(state)) == sorted([*rules.left_options(state), *rules.right_options(state)])


class _Clash(SowingRuleset):
    name: ClassVar[str] = "clash"
    code: ClassVar[int] = 1  # Sowing's


def test_registering_refuses_a_name_or_code_in_use() -> None:
    with pytest.raises(ValueError, match="key code 1"):
        register_ruleset(_Clash())
    with pytest.raises(ValueError, match="registered already"):
        register_ruleset(SowingRuleset())
    with pytest.raises(ValueError, match="not added by register_ruleset"):
        unregister_ruleset("sowing")
    assert "clash" not in ruleset_names()
