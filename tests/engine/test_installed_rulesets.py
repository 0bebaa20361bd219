"""Rulesets installed from outside ruma (entry points of ``ruma.rulesets``): found in a
distribution's metadata, served by name, keyed apart from every other ruleset and every other
version of themselves, and — when one cannot serve — reported with the entry point and the
distribution, never skipped. The distributions are folders on ``sys.path``
(``tests.support.installed``); the values of the example package's ruleset are checked against a
plain recursion written from its rules, and a few by hand."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path
from typing import ClassVar

import pytest

from ruma.engine.cgt import STAR, ZERO, Game
from ruma.engine.errors import BrokenRulesetError, RumaInputError, UnknownRulesetError
from ruma.engine.evaluator import evaluate
from ruma.engine.rulesets import (
    get_ruleset,
    installed_rulesets,
    register_ruleset,
    row_rulesets,
    ruleset_by_prefix,
    ruleset_names,
    ruleset_origin,
    sample_ruleset,
    unregister_ruleset,
)
from ruma.engine.rulesets.base import PLUGIN_CODE, key_prefix_of
from ruma.engine.rulesets.sowing import SowingRuleset
from ruma.server.catalog.properties import check_property
from tests.support.installed import add_distribution, add_example, capture_value, on_path


@pytest.fixture()
def site(tmp_path: Path) -> Path:
    """An empty folder for installed distributions (``on_path`` puts it on ``sys.path``)."""
    folder = tmp_path / "site"
    folder.mkdir()
    return folder


def test_an_installed_ruleset_is_found_and_served_by_name(site: Path) -> None:
    assert "capture-sowing" not in ruleset_names()
    add_example(site)
    with on_path(site):
        rules = get_ruleset("Capture-Sowing")
        assert type(rules).__module__ == "capture_sowing" and rules.name == "capture-sowing"
        assert "capture-sowing" in ruleset_names() and "capture-sowing" in row_rulesets()
        assert ruleset_origin("capture-sowing") == "ruma-capture-sowing 0.1.0"
        assert ruleset_origin("sowing") == ruleset_origin("octal:0.37") == "built-in"
        ((entry, loaded),) = installed_rulesets()
        assert loaded is rules and (entry.target, entry.distribution) == ("capture_sowing:CAPTURE_SOWING",
                                                                          "ruma-capture-sowing 0.1.0")
    with pytest.raises(UnknownRulesetError):  # gone with its distribution
        get_ruleset("capture-sowing")


def test_installed_keys_carry_a_hash_of_name_and_version(site: Path) -> None:
    add_example(site)
    with on_path(site):
        rules = get_ruleset("capture-sowing")
        # the documented prefix, computed here from its definition: 0xFF, then 7 bytes of BLAKE2b
        prefix = b"\xff" + hashlib.blake2b(b"capture-sowing\x001", digest_size=7).digest()
        assert rules.key_prefix == prefix and ruleset_by_prefix(prefix) is rules
        builtin = {sample_ruleset(name).key_prefix for name in ruleset_names() if name != "capture-sowing"}
        assert all(p[0] != PLUGIN_CODE for p in builtin)
        for text in ("2112", "1,300,1"):  # (one byte a pot, and the decimal text past 254)
            state = rules.normalise(rules.parse(text))[0]
            key = rules.key(state)
            assert key_prefix_of(key) == prefix and rules.state_from_key(key) == state
            assert key != get_ruleset("sowing").key(state)
        newer = type("NewerCaptureSowing", (type(rules),), {"version": 2})()
        assert newer.key_prefix != prefix and newer.key_prefix[0] == PLUGIN_CODE
        assert newer.key((2, 1, 1, 2))[len(prefix):] == rules.key((2, 1, 1, 2))[len(prefix):]
        assert ruleset_by_prefix(newer.key_prefix) is None  # an old store's values of another version: not read


def test_the_example_values_by_hand_and_by_plain_recursion(site: Path) -> None:
    add_example(site)
    with on_path(site):
        rules = get_ruleset("capture-sowing")
        # By hand: in 11 either sowing lands on the other seed, makes a pair and captures it: {0 | 0} = ∗.
        # 12: Left sows the 1 onto the 2 (three seeds, no capture, no move left: 0); Right's 2 would
        # leave the row: {0 | } = 1. 111: every sowing makes a pair and captures it, leaving one
        # seed: {0 | 0} = ∗, where Sowing's 111 is {-1, -2 | 1, 2} = 0 (Erickson's rules, no capture).
        assert evaluate(rules, "11").value == STAR
        assert evaluate(rules, "12").value == Game.from_options([ZERO], [])
        assert evaluate(rules, "111").value == STAR and evaluate("sowing", "111").value == ZERO
        differ = 0
        for pots in range(1, 7):
            for row in itertools.product(range(5), repeat=pots):
                if sum(row) <= 6:
                    value = evaluate(rules, row).value
                    assert value == capture_value(row), rules.format(row)
                    differ += value != evaluate("sowing", row).value
        assert differ > 100  # the capture changes the game


def test_broken_rulesets_are_reported_with_their_entry_point(site: Path) -> None:
    add_example(site)
    (site / "broken_rules.py").write_text(
        "from ruma.engine.rulesets.sowing import SowingRuleset\n"
        "NOT_A_RULESET = 3\n"
        "class WrongCode(SowingRuleset):\n    name = 'wrong-code'\n"
        "WRONG_CODE = WrongCode()\n")
    (site / "raising_rules.py").write_text("raise RuntimeError('no board today')\n")
    add_distribution(site, "ruma-broken", "2.0", {
        "no-module": "ruma_no_such_module:R", "not-a-ruleset": "broken_rules:NOT_A_RULESET",
        "wrong-code": "broken_rules:WRONG_CODE", "raising": "raising_rules:R",
        "misnamed": "capture_sowing:CAPTURE_SOWING", "sowing": "capture_sowing:CAPTURE_SOWING"})
    reasons = {"no-module": "ModuleNotFoundError", "not-a-ruleset": "is a int", "wrong-code": "key code 1",
               "raising": "no board today", "misnamed": "calls itself 'capture-sowing'",
               "sowing": "name of a built-in ruleset"}
    with on_path(site):
        for name in ("no-module", "not-a-ruleset", "wrong-code", "raising", "misnamed"):
            assert name in ruleset_names()
            with pytest.raises(BrokenRulesetError) as caught:
                get_ruleset(name)
            assert f"entry point {name} = " in str(caught.value) and "of ruma-broken 2.0" in str(caught.value)
            assert reasons[name] in str(caught.value)
        assert type(get_ruleset("sowing")).__module__ != "capture_sowing"  # the built-in stays
        report = {entry.name: found for entry, found in installed_rulesets()}
        assert {n for n, found in report.items() if isinstance(found, BrokenRulesetError)} == set(reasons)
        assert all(reasons[n] in str(report[n]) for n in reasons)
        assert report["capture-sowing"] is get_ruleset("capture-sowing")  # the others serve as usual
        assert "capture-sowing" in row_rulesets() and not set(reasons) - {"sowing"} & set(row_rulesets())
        # the catalog's lists of rulesets by what they declare pass over the broken ones
        with pytest.raises(RumaInputError, match=r"impartial-twin needs one of \[.*'sowing'"):
            check_property("impartial-twin", evaluate(get_ruleset("capture-sowing"), "11"), evaluate)


def test_two_distributions_of_one_name_are_ambiguous(site: Path) -> None:
    add_example(site)
    add_distribution(site, "ruma-capture-fork", "9.9", {"capture-sowing": "capture_sowing:CAPTURE_SOWING"})
    with on_path(site), pytest.raises(BrokenRulesetError, match="both declare it"):
        get_ruleset("capture-sowing")


class _Registered(SowingRuleset):
    name: ClassVar[str] = "registered-plugin"
    code: ClassVar[int] = PLUGIN_CODE


def test_registered_rulesets_of_the_plugin_code_are_told_apart_by_their_hash() -> None:
    first = _Registered()
    register_ruleset(first)
    try:
        assert ruleset_by_prefix(first.key_prefix) is first and ruleset_origin(first.name) == "registered"
        with pytest.raises(ValueError, match="registered already"):
            register_ruleset(type("Again", (_Registered,), {})())
    finally:
        unregister_ruleset(first.name)
    assert ruleset_by_prefix(first.key_prefix) is None
