"""Property tests of the CGT algebra over random small games (hypothesis).

The laws checked are theorems of the group of short games (Siegel, *Combinatorial Game Theory*,
II.1-II.2): G + (-G) = 0, commutativity and associativity of +, the partial order laws,
G <= H iff Left has no winning first move in G - H (outcome of G - H in {R, P}), compatibility of
<= with +, and the defining properties of canonical forms (no dominated or reversible options).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruma.engine.cgt import ONE, STAR, UP, ZERO, Game, Outcome, nus_game

pytestmark = pytest.mark.both_engines


F = Game.from_options

LEAVES = [ZERO, ONE, -ONE, STAR, UP, F([ZERO], [ONE]), F([ONE], [-ONE])]

games = st.recursive(
    st.sampled_from(LEAVES),
    lambda children: st.builds(F, st.lists(children, max_size=3), st.lists(children, max_size=3)),
    max_leaves=10,
)
nus_values = st.builds(
    nus_game,
    st.builds(Fraction, st.integers(-8, 8), st.sampled_from([1, 2, 4, 8])),
    st.integers(-5, 5),
    st.integers(0, 7),
)

SETTINGS = settings(max_examples=150, deadline=None)


def outcome_by_options(g: Game) -> Outcome:
    """The outcome from the definition: a player wins moving first iff some option wins for them
    moving second."""
    left_first = any(gl.outcome in (Outcome.L, Outcome.P) for gl in g.left_options)
    right_first = any(gr.outcome in (Outcome.R, Outcome.P) for gr in g.right_options)
    return {(True, True): Outcome.N, (True, False): Outcome.L, (False, True): Outcome.R}.get(
        (left_first, right_first), Outcome.P
    )


@SETTINGS
@given(games)
def test_inverse_and_double_negation(g: Game) -> None:
    assert g + (-g) is ZERO and g - g is ZERO and -(-g) is g  # noqa: B002 (negation twice, not a decrement)


@SETTINGS
@given(games, games, games)
def test_commutative_associative(g: Game, h: Game, k: Game) -> None:
    assert g + h is h + g
    assert (g + h) + k is g + (h + k)
    assert -(g + h) is (-g) + (-h)


@SETTINGS
@given(games, games)
def test_order_is_outcome_of_difference(g: Game, h: Game) -> None:
    assert (g <= h) == ((g - h).outcome in (Outcome.R, Outcome.P))
    assert (g >= h) == ((g - h).outcome in (Outcome.L, Outcome.P))
    assert g.confused_with(h) == ((g - h).outcome is Outcome.N)


@SETTINGS
@given(games, games, games)
def test_partial_order_laws(g: Game, h: Game, k: Game) -> None:
    assert g <= g
    if g <= h and h <= g:
        assert g is h
    if g <= h and h <= k:
        assert g <= k
    assert (g <= h) == (g + k <= h + k)
    assert (g < h) == (g <= h and g is not h)


@SETTINGS
@given(games)
def test_outcome_matches_definition(g: Game) -> None:
    assert g.outcome is outcome_by_options(g)


@SETTINGS
@given(games)
def test_canonical_form_has_no_dominated_or_reversible_options(g: Game) -> None:
    ls, rs = g.left_options, g.right_options
    assert F(ls, rs) is g
    for a in ls:
        assert not any(a is not b and a <= b for b in ls)
        assert not any(ar <= g for ar in a.right_options)
    for a in rs:
        assert not any(a is not b and b <= a for b in rs)
        assert not any(al >= g for al in a.left_options)


@SETTINGS
@given(games)
def test_number_and_nimber_tags(g: Game) -> None:
    if g.is_number:
        x = g.number_value
        assert x is not None and all(gl < g for gl in g.left_options) and all(g < gr for gr in g.right_options)
        assert all(o.is_number for o in g.left_options + g.right_options)
    if g.is_nimber:
        k = g.nim_value
        assert k is not None and g.left_options == g.right_options and len(g.left_options) == k
    if g.nus is not None:
        assert nus_game(*g.nus) is g


@SETTINGS
@given(nus_values, nus_values)
def test_nus_arithmetic_matches_generic_construction(a: Game, b: Game) -> None:
    # the sum computed by NUS arithmetic equals the canonical form of the sum's definition
    s = a + b
    generic = F(
        [x + b for x in a.left_options] + [a + y for y in b.left_options],
        [x + b for x in a.right_options] + [a + y for y in b.right_options],
    )
    assert s is generic
    assert (a <= b) == ((a - b).outcome in (Outcome.R, Outcome.P))
    t, u = a.nus, b.nus
    assert t is not None and u is not None and s.nus == (t[0] + u[0], t[1] + u[1], t[2] ^ u[2])
