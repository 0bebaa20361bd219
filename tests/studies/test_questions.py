"""The engine side of the questions' tables: the kinds of values (``studies.kinds``), the
streamed tally (``studies.tally``), the followers walk (``studies.followers``) and the
pattern search (``studies.patterns``).

Expected values: the kinds by their definitions (a tiny is ``{0||0|-x}``, Winning Ways ch. 5;
the numbers, ups and nimbers built by the game algebra); the tally against ``census`` over the
same stored values (two walks of the family that share no code but ``weighted_rows``) and against
the raw count's closed form; the followers against a breadth-first walk written here on the
independent move generator of ``tests/support/reference_evaluators`` and against Theorem 2.1's
lower bound ``2^(n-1) - 1`` for Sowing's ``1^n``; the pattern search on a lookup built here.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from ruma.engine.cgt import STAR, UP, ZERO, Game, integer, nimber, number, up_multiple
from ruma.engine.errors import CancelledError, LimitExceededError, RumaInputError
from ruma.engine.evaluator import value_many
from ruma.engine.families.census import MissingValuesError, census
from ruma.engine.families.classes import Family, enumerate_family, raw_count, weighted_rows
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.studies.chains import CHAINS, extend, right_unmoves
from ruma.studies.followers import count_followers
from ruma.studies.kinds import KINDS, kind_label, kind_of, tiny, value_of
from ruma.studies.patterns import find_patterns, template_text
from ruma.studies.tally import UnsweptError, fewest_pots, merge, tally


def g(lefts: list[Game], rights: list[Game]) -> Game:
    return Game.from_options(lefts, rights)


# --- kinds ------------------------------------------------------------------------------------

KNOWN = [
    (number(Fraction(1, 2)), ("2^-n", 1)),
    (number(Fraction(1, 64)), ("2^-n", 6)),
    (UP, ("n.^", 1)),
    (up_multiple(5), ("n.^", 5)),
    (UP + STAR, ("n.^*", 1)),
    (up_multiple(3) + STAR, ("n.^*", 3)),
    (g([ZERO], [g([ZERO], [integer(-3)])]), ("+_x", Fraction(3))),
    (g([ZERO], [g([ZERO], [number(Fraction(-1, 2))])]), ("+_x", Fraction(1, 2))),
    (STAR, ("*n", 1)),
    (nimber(4), ("*n", 4)),
    (4, ("*n", 4)),
]
OTHERS = [ZERO, 0, integer(1), number(Fraction(3, 4)), number(Fraction(-1, 2)), -UP, UP + nimber(2),
          number(Fraction(1, 2)) + UP, g([integer(1)], [ZERO]), g([integer(1)], [integer(-1)]),
          -g([ZERO], [g([ZERO], [integer(-3)])])]


@pytest.mark.parametrize("value,kind", KNOWN, ids=[str(k) for _, k in KNOWN])
def test_the_values_the_questions_ask_about_are_recognised_and_built_back(value: Game | int, kind: tuple[str, object]) -> None:
    assert kind_of(value) == kind
    built = value_of(*kind)  # type: ignore[arg-type]
    assert built == (nimber(value) if isinstance(value, int) else value)


@pytest.mark.parametrize("value", OTHERS, ids=[str(v) for v in OTHERS])
def test_other_values_have_no_kind(value: Game | int) -> None:
    assert kind_of(value) is None


def test_tiny_is_read_off_the_canonical_form_and_labels_are_unicode() -> None:
    assert tiny(g([ZERO], [g([ZERO], [integer(-2)])])) == 2
    assert tiny(g([ZERO], [g([ZERO], [integer(2)])])) is None  # {0||0|2} is not a tiny
    assert [kind_label(k, p) for k, p in [("2^-n", 3), ("n.^", 2), ("n.^*", 2), ("+_x", Fraction(1, 2)), ("*n", 4)]] \
        == ["2^-3", "2·↑", "2·↑+∗", "+_1/2", "∗4"]
    assert KINDS == ("2^-n", "n.^", "n.^*", "+_x", "*n")
    with pytest.raises(RumaInputError, match="unknown kind 'x'"):
        value_of("x", 1)


# --- the tally ----------------------------------------------------------------------------------

def swept(family: Family) -> InMemoryMemo:
    memo = InMemoryMemo()
    value_many(family.ruleset, [c.state for c in enumerate_family(family)], memo)
    return memo


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-sowing", "atomic-wari", "impartial-atomic-wari"])
def test_the_tally_agrees_with_the_census_of_the_same_values(ruleset: str) -> None:
    family = Family.of(ruleset, (0, 7), (1, 8))
    memo = swept(family)
    rows = census(family.rules, enumerate_family(family), memo.lookup, "value", 3)
    counted = tally(family, lambda keys: [memo.lookup(k) for k in keys], lambda v: True, 3, batch=97)
    assert counted.raw_positions == raw_count(family) == sum(r.raw_positions for r in rows)
    assert set(counted.rows) == {r.group for r in rows}
    for row in rows:
        books = counted.rows[row.group]
        assert books.raw_positions == row.raw_positions, row.group
        assert [r for r, _ in books.simplest] == [rep for rep, _, _ in row.simplest], row.group


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-atomic-wari"])
def test_a_tally_in_parts_merges_into_the_whole_familys(ruleset: str) -> None:
    family = Family.of(ruleset, (0, 7), (1, 7))
    memo = swept(family)
    lookup = lambda keys: [memo.lookup(k) for k in keys]  # noqa: E731
    whole = tally(family, lookup, lambda v: True, 4)
    pieces = [tally(family, lookup, lambda v: True, 4, part=i, parts=3) for i in range(3)]
    assert all(p.raw_positions < whole.raw_positions for p in pieces)
    merged = merge(family, pieces, 4)
    assert merged.raw_positions == whole.raw_positions and merged.walked == whole.walked
    assert set(merged.rows) == set(whole.rows)
    for value, books in whole.rows.items():
        other = merged.rows[value]
        assert (other.raw_positions, other.simplest, other.fewest_pots) == (books.raw_positions, books.simplest,
                                                                            books.fewest_pots)
    with pytest.raises(ValueError, match="cover"):
        merge(family, pieces[:2], 4)


def test_the_fewest_pots_row_is_the_least_in_pots_then_seeds_order() -> None:
    family = Family.of("impartial-atomic-wari", (0, 7), (1, 7))
    memo = swept(family)
    rows = census(family.rules, enumerate_family(family), memo.lookup, "value", 10**6)
    counted = tally(family, lambda keys: [memo.lookup(k) for k in keys], lambda v: isinstance(v, int) and v >= 1)
    for row in rows:
        if row.group == 0:
            assert 0 not in counted.rows  # not wanted
            continue
        assert counted.rows[row.group].fewest_pots == min((rep for rep, _, _ in row.simplest), key=fewest_pots)


def test_a_tally_of_an_unswept_family_says_so_and_can_be_cancelled() -> None:
    family = Family.of("sowing", (0, 6), (1, 6))
    memo = swept(Family.of("sowing", (0, 5), (1, 6)))
    with pytest.raises(MissingValuesError, match=r"classes of sowing seeds 0\.\.6 pots 1\.\.6 have no stored value") as info:
        tally(family, lambda keys: [memo.lookup(k) for k in keys], lambda v: True)
    assert isinstance(info.value, UnsweptError) and info.value.missing > 0
    with pytest.raises(CancelledError, match="cancelled"):
        tally(family, lambda keys: [memo.lookup(k) for k in keys], lambda v: True, should_cancel=lambda: True, batch=1)


# --- followers ----------------------------------------------------------------------------------

def reference_count(ruleset: str, text: str) -> int:
    """Breadth-first over the reference evaluators' own move generator (rows stripped)."""
    from tests.support.reference_evaluators import moves

    def strip(row: tuple[int, ...]) -> tuple[int, ...]:
        row = list(row)  # type: ignore[assignment]
        while row and row[0] == 0:
            row.pop(0)  # type: ignore[attr-defined]
        while row and row[-1] == 0:
            row.pop()  # type: ignore[attr-defined]
        return tuple(row)

    start = strip(get_ruleset(ruleset).parse(text))
    seen: set[tuple[int, ...]] = set()
    frontier = [start]
    while frontier:
        following = []
        for state in frontier:
            lefts, rights = moves(ruleset, state)
            for option in lefts + rights:
                row = strip(option)
                if row not in seen:
                    seen.add(row)
                    following.append(row)
        frontier = following
    return len(seen)


@pytest.mark.parametrize("ruleset,position", [
    ("atomic-wari", "3^4"), ("atomic-wari", "(13)^3"), ("atomic-wari", "2^7"), ("atomic-wari", "(01300)^3"),
    ("atomic-wari", "312"), ("atomic-wari", "1^9"), ("impartial-atomic-wari", "2313"), ("sowing", "1^6"),
    ("sowing", "2212"), ("impartial-sowing", "1112"),
])
def test_followers_agree_with_a_walk_on_the_reference_move_generator(ruleset: str, position: str) -> None:
    counted = count_followers(ruleset, position)
    assert counted.positions == reference_count(ruleset, position)
    assert counted.components <= counted.positions or counted.positions == 0


@pytest.mark.parametrize("n", range(1, 9))
def test_sowing_1_to_the_n_has_at_least_theorem_2_1s_followers(n: int) -> None:
    assert count_followers("sowing", f"1^{n}").positions >= 2 ** (n - 1) - 1


def test_parts_far_apart_have_about_product_many_followers_but_few_components() -> None:
    a, b = count_followers("atomic-wari", "313"), count_followers("atomic-wari", "22")
    far = count_followers("atomic-wari", "313" + "0" * 30 + "22")
    assert far == count_followers("atomic-wari", "313" + "0" * 40 + "22")  # the parts' followers never meet
    # a pair of followers of the parts is a follower of the sum, and rows of different pairs differ
    # (but when a part is emptied); more when a part's follower is the same row shifted, which
    # stripping makes one follower of the part alone but not of the sum
    assert far.positions >= a.positions * b.positions
    assert far.components <= a.components + b.components + 2  # (the parts themselves)


def test_the_walk_stops_past_its_limit_and_refuses_a_fixed_board() -> None:
    with pytest.raises(LimitExceededError, match="more than 100 followers"):
        count_followers("atomic-wari", "3^5", limit=100)
    with pytest.raises(RumaInputError, match="atomic-wari-board"):
        count_followers("atomic-wari-board", "312")


# --- the pattern search -------------------------------------------------------------------------

def test_the_pattern_search_follows_a_family_to_the_bound_and_sees_where_one_breaks() -> None:
    half = {(2,) + (0, 1) * m: number(Fraction(1, 2 ** (m + 1))) for m in range(6)}  # a made-up family
    broken = {(5,) * m + (3,): up_multiple(m) for m in range(1, 7)}
    broken[(5,) * 5 + (3,)] = ZERO  # breaks at m = 5
    table: dict[tuple[int, ...], Game] = {**half, **broken}

    def lookup(row: tuple[int, ...]) -> Game | None:
        return table.get(row)  # (None: beyond the bound)

    seeds = [((2, 0, 1), ("2^-n", 2)), ((5, 3), ("n.^", 1))]
    found = {p.template: p for p in find_patterns(seeds, lookup)}
    up = found["2 (01)^m"]
    assert (up.kind, up.first, up.last, up.start, up.step, up.reaches_bound) == ("2^-n", 0, 5, 1, 1, True)
    assert up.row(3) == (2, 0, 1, 0, 1, 0, 1) and up.parameter(3) == 4
    ups = found["5^m 3"]
    assert (ups.first, ups.last, ups.reaches_bound) == (1, 4, False)
    assert not find_patterns(seeds, lookup, min_instances=7)
    assert template_text([("fixed", (1,), 0), ("pot", (), 0), ("fixed", (12, 0), 0)]) == "1 {m} {12}0"
    assert template_text([("block", (1, 0), 0), ("fixed", (2,), 0), ("block", (0, 1), 1)]) == "(10)^m 2 (01)^{m+1}"


def test_the_pattern_search_finds_two_blocks_growing_together() -> None:
    def lookup(row: tuple[int, ...]) -> Game | None:  # the shape of Theorem 2.5's family; values made up
        m = (len(row) - 3) // 4
        if len(row) > 3 + 4 * 5 or row != (1, 0) * m + (2,) + (0, 1) * (m + 1):
            return None if len(row) > 3 + 4 * 5 else integer(9)
        return number(Fraction(1, 2 ** (m + 1)))

    found = {p.template: p for p in find_patterns([((1, 0, 2, 0, 1, 0, 1), ("2^-n", 2))], lookup, shapes=("pairs",))}
    pair = found["(10)^m 2 (01)^{m+1}"]
    assert (pair.first, pair.last, pair.start, pair.reaches_bound) == (0, 5, 1, True)
    assert pair.row(2) == (1, 0, 1, 0, 2, 0, 1, 0, 1, 0, 1)


# --- chains of Right's moves ----------------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 7))
def test_the_chains_canonical_forms(n: int) -> None:
    """2^-n = {0 | 2^-(n-1)}, n·↑ = {0 | (n-1)·↑ + ∗}, n·↑ + ∗ = {0 | (n-1)·↑}: by the game algebra
    here and by cgt-py."""
    import cgt_py

    from tests.support.reference_evaluators import to_cgt_py

    for kind, previous in CHAINS.items():
        built = g([ZERO], [value_of(kind, n - 1)])
        assert built == value_of(previous, n)
        assert to_cgt_py(built) == cgt_py.CanonicalForm("{0|" + repr(to_cgt_py(value_of(kind, n - 1)))[15:-2] + "}")


def test_right_unmoves_are_exactly_the_positions_with_a_right_move_there() -> None:
    """Against the reference move generator, over every Sowing row of at most 7 seeds and 7 pots."""
    from tests.support.reference_evaluators import moves

    rows = sorted({row for row, _ in weighted_rows(Family.of("sowing", (1, 7), (1, 7)))})
    targets: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
    for row in rows:
        for option in moves("sowing", row)[1]:
            targets.setdefault(option, set()).add(row)
    assert len(targets) > 100
    for target, sources in targets.items():
        if sum(target) <= 6 and len(target) <= 6:  # (sources of 7 pots and 7 seeds are all enumerated)
            assert sources == {g for g in right_unmoves(target) if len(g) <= 7}, target


def test_extend_follows_a_chain_with_the_values_it_is_given() -> None:
    values = {(2, 1, 1, 1): number(Fraction(1, 2)), (1, 2, 2, 0, 2): number(Fraction(1, 4))}
    found = extend({("2^-n", 1): [(2, 1, 1, 1), (1, 2, 3, 1)]}, lambda row: values.get(row, integer(5)), 10)
    assert found == {("2^-n", 2): [(1, 2, 2, 0, 2)]}  # 12202's Right move to 12310 = 1/2
    assert extend({("2^-n", 1): [(2, 1, 1, 1)]}, lambda row: None, 0) == {}
