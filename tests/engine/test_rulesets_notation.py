"""The shared pot notation: parsing, formatting, round trips and bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruma.engine.errors import NotationError, PositionError, RumaInputError
from ruma.engine.rulesets import get_ruleset, row_rulesets
from ruma.engine.rulesets.notation import FULL, MAX_POTS, format_pots, parse_pots

pytestmark = pytest.mark.both_engines


ALL = row_rulesets()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("312", (3, 1, 2)),
        (" 3 1 2 ", (3, 1, 2)),
        ("12,0,3", (12, 0, 3)),
        ("12, 0 ,3", (12, 0, 3)),
        ("1^8", (1,) * 8),
        ("1^{12}", (1,) * 12),
        ("(10)^3 03 (01)^2", (1, 0, 1, 0, 1, 0, 0, 3, 0, 1, 0, 1)),
        ("(01)^0 2", (2,)),
        ("((12)^2 0)^2", (1, 2, 1, 2, 0, 1, 2, 1, 2, 0)),
        ("(12,0)^2,5", (12, 0, 12, 0, 5)),
        ("10^2", (1, 0, 0)),
        ("()", ()),
    ],
)
def test_parse(text: str, expected: tuple[int, ...]) -> None:
    assert parse_pots(text) == expected


def test_full_pots() -> None:
    assert parse_pots("110••1", allow_full=True) == (1, 1, 0, FULL, FULL, 1)
    assert parse_pots("#1^2#", allow_full=True) == (FULL, 1, 1, FULL)
    assert parse_pots("#^3 1", allow_full=True) == (FULL, FULL, FULL, 1)
    assert format_pots((1, 1, 0, FULL, FULL, 1)) == "110••1"
    assert format_pots((12, FULL)) == "12,•"
    with pytest.raises(NotationError, match="full pots"):
        get_ruleset("atomic-wari").parse("1•1")


@pytest.mark.parametrize(
    "series,plain",
    [
        # docs/tables.md's series (Erickson 1996, Tables 2 and 4): full pots forever on both sides,
        # as many as the seeds (rule N3)
        ("←•1^3•→", "#^3 1^3 #^3"),
        ("← • 1^{3} • →", "#^3 1^3 #^3"),
        ("←#2^4#→", "#^8 2^4 #^8"),
        ("←●3^2●→", "#^6 3^2 #^6"),
        ("←•1•2•→", "#^3 1•2 #^3"),
        ("←•12,3•→", "#^15,12,3,#^15"),
        ("←•1^3", "#^3 1^3"),
        ("1^3•→", "1^3 #^3"),
        ("←••→", "##"),
    ],
)
def test_full_pots_forever(series: str, plain: str) -> None:
    expected = parse_pots(plain, allow_full=True)
    assert parse_pots(series, allow_full=True) == expected
    for name in ("sowing", "impartial-sowing"):  # (the compiled parser hands the arrows to this one)
        assert get_ruleset(name).parse(series) == expected


@pytest.mark.parametrize("text", ["1←•2", "←1", "1•→2", "•^2→", "1→", "←•1•→→", "(←•1)", "→", "←"])
def test_full_pots_forever_only_at_the_ends(text: str) -> None:
    with pytest.raises(NotationError, match="'←' begins a position|'→' ends a position"):
        get_ruleset("sowing").parse(text)


def test_full_pots_forever_are_sowing_only() -> None:
    with pytest.raises(NotationError, match="full pots"):
        get_ruleset("atomic-wari").parse("←•1•→")


def test_no_position_starts_with_a_comment() -> None:
    from ruma.engine.rulesets import ruleset_names, sample_ruleset
    from ruma.engine.rulesets.base import COMMENT

    for name in ruleset_names():
        rules = sample_ruleset(name)
        for example in rules.examples:
            with pytest.raises(RumaInputError):
                rules.parse(COMMENT + example)
            with pytest.raises(RumaInputError):
                rules.parse(f"{COMMENT} {example}")


@pytest.mark.parametrize(
    "text,error",
    [
        ("", PositionError),
        ("   ", PositionError),
        ("3a2", NotationError),
        ("-1", PositionError),
        ("1,-1", PositionError),
        ("(12", NotationError),
        ("12)", NotationError),
        ("1^", NotationError),
        ("1^{3", NotationError),
        ("1.5", NotationError),
        ("1^10001", PositionError),
        ("(1^9999)^9999", PositionError),
        ("(9^5000)^2,1", PositionError),
        ("1,2,99999999999", PositionError),
        ("5000000,5000000", PositionError),
    ],
)
def test_bad_input(text: str, error: type[Exception]) -> None:
    for name in ALL:
        with pytest.raises(error) as info:
            get_ruleset(name).parse(text)
        assert isinstance(info.value, RumaInputError)
        assert repr(text) in str(info.value)


def test_not_text() -> None:
    with pytest.raises(PositionError):
        parse_pots(312)  # type: ignore[arg-type]


def test_limits() -> None:
    assert len(parse_pots(f"1^{MAX_POTS}")) == MAX_POTS
    with pytest.raises(PositionError):
        parse_pots(f"1^{MAX_POTS} 1")


pots = st.lists(st.integers(min_value=0, max_value=30), max_size=40)


@settings(max_examples=300, deadline=None)
@given(pots)
def test_round_trip_atomic(state: list[int]) -> None:
    for name in ("atomic-wari", "impartial-atomic-wari", "atomic-wari-board"):
        rules = get_ruleset(name)
        assert rules.parse(rules.format(tuple(state))) == tuple(state)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(min_value=0, max_value=30), st.just(FULL)), max_size=40))
def test_round_trip_sowing(state: list[int]) -> None:
    for name in ("sowing", "impartial-sowing"):
        rules = get_ruleset(name)
        assert rules.parse(rules.format(tuple(state))) == tuple(state)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 9), min_size=1, max_size=4), st.integers(0, 5)), max_size=6))
def test_repetition_expands(groups: list[tuple[list[int], int]]) -> None:
    text = " ".join("(" + "".join(map(str, g)) + f")^{k}" for g, k in groups)
    expected = tuple(v for g, k in groups for v in g * k)
    if not expected and not groups:
        return
    assert parse_pots(text) == expected


@pytest.mark.parametrize("name", ALL)
def test_keys_are_prefixed_and_distinct(name: str) -> None:
    rules = get_ruleset(name)
    a, b = rules.normalise(rules.parse("312"))[0], rules.normalise(rules.parse("3102"))[0]
    assert rules.key(a)[:2] == bytes((rules.code, rules.version))
    assert rules.key(a) != rules.key(b)
    big = rules.normalise(rules.parse("300,0,1"))[0]
    assert rules.key(big) != rules.key(a)


def test_sowing_key_full_pots() -> None:
    rules = get_ruleset("sowing")
    assert rules.key(rules.normalise(rules.parse("110••1"))[0]).endswith(b"\x01\x01\x00\xff\xff\x01")
    assert rules.size(rules.parse("110••1")) == (6, 3)


def test_board_keeps_empty_pots() -> None:
    rules = get_ruleset("atomic-wari-board")
    assert rules.parse("0220") == (0, 2, 2, 0)
    assert rules.format((0, 2, 2, 0)) == "0220"
    assert rules.key((0, 2, 2, 0)) != rules.key((2, 2))
