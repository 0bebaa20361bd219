"""Sowing graphs (Section 5): unplaying against forward play, the paths and stars of Example 5.3,
the 4-cycle of Figure 6 / Example 5.4, and Theorem 5.2's finiteness test."""

from __future__ import annotations

import itertools
import random

import pytest

from ruma.engine.errors import LimitExceededError, RumaInputError
from ruma.engine.tchoukaillon.board import board, min_stones
from ruma.engine.tchoukaillon.graphs import (
    SowingGraph,
    cycle_graph,
    game_graph_finite,
    has_ruma_only_cycle,
    is_winning,
    parse_sowing_graph,
    path_graph,
    sowing_moves,
    star_graph,
    theorem_5_2_finite,
    unplay_moves,
    unplay_path,
    winning_boards,
)

pytestmark = pytest.mark.both_engines


def test_path_graph_is_tchoukaillon() -> None:
    for length in range(1, 7):
        expected = {(board(n) + (0,) * length)[:length] for n in range(min_stones(length + 1))}
        assert winning_boards(path_graph(length)) == expected
        assert theorem_5_2_finite(path_graph(length)) and game_graph_finite(path_graph(length))


def test_example_5_3_star_is_a_product_of_paths() -> None:
    for spokes, length in [(2, 3), (3, 2), (2, 4)]:
        assert len(winning_boards(star_graph(spokes, length))) == min_stones(length + 1) ** spokes


def test_figure_6_four_cycle() -> None:
    g = cycle_graph(4)  # Ruma 0; bins 1, 2, 3; edges 3 -> 2 -> 1 -> 0 -> 3
    path = unplay_path(g, 30)  # raises unless every board has exactly one unplay
    assert path[:6] == [(0, 0, 0), (1, 0, 0), (0, 2, 0), (1, 2, 0), (0, 1, 3), (1, 1, 3)]
    totals = [sum(b) for b in path]
    assert totals == sorted(set(totals)) and 6 not in totals  # not every integer occurs
    assert not theorem_5_2_finite(g) and not game_graph_finite(g)
    # independent check by forward play: the winning boards with <= 12 stones are the path's
    small = {b for b in itertools.product(range(13), repeat=3) if sum(b) <= 12}
    assert {b for b in small if is_winning(g, b)} == {b for b in path if sum(b) <= 12}


def test_unplay_inverts_play() -> None:
    rng = random.Random(52)
    graphs = [cycle_graph(3), star_graph(2, 2),
              SowingGraph.from_edges([(1, 0), (2, 1), (2, 0), (3, 2), (3, 1)], [0])]
    for g in graphs:
        wins = winning_boards(g, max_stones=9)
        for b in wins:
            assert is_winning(g, b)
            for p in unplay_moves(g, b):
                assert b in sowing_moves(g, p)
        for _ in range(60):
            b = tuple(rng.randrange(4) for _ in g.bins)
            if sum(b) <= 9:
                assert is_winning(g, b) == (b in wins)


def _exceeds_simple_path_bound(g: SowingGraph) -> bool:
    """Unplay until some winning board holds more stones than the proof of Theorem 5.2 allows
    when labels are bounded by simple-path lengths (then the game graph is not that finite one)."""
    bound = len(g.bins) * (g.size - 1)
    seen, frontier = {g.zero()}, [g.zero()]
    while frontier:
        nxt = []
        for b in frontier:
            for p in unplay_moves(g, b):
                if sum(p) > bound:
                    return True
                if p not in seen:
                    seen.add(p)
                    nxt.append(p)
        frontier = nxt
    return False


def test_finiteness_on_random_small_graphs() -> None:
    rng = random.Random(1)
    disagreements = 0
    for _ in range(150):
        n = rng.randrange(2, 5)
        edges = [(a, b) for a in range(n) for b in range(n) if rng.random() < 0.3]
        rumas = [v for v in range(n) if rng.random() < 0.4] or [0]
        g = SowingGraph.from_edges(edges, rumas, size=n)
        if not g.bins or has_ruma_only_cycle(g):
            continue
        infinite = _exceeds_simple_path_bound(g)
        assert game_graph_finite(g) == (not infinite), (edges, rumas)
        if not theorem_5_2_finite(g):
            assert infinite  # the paper's "only if" direction holds
        disagreements += theorem_5_2_finite(g) and infinite
    assert disagreements > 0  # graphs whose only cycles avoid the Rumas


def test_theorem_5_2_counterexamples_for_walks() -> None:
    # a bin with a self-loop: no cycle contains a Ruma, yet (L,) wins for every L
    loop = SowingGraph.from_edges([(1, 1), (1, 0)], [0])
    assert theorem_5_2_finite(loop) and not game_graph_finite(loop)
    assert all(is_winning(loop, (stones,)) for stones in range(1, 25))
    # a cycle of bins only: boards far above the proof's bound b_v <= distance to the Ruma
    pair = SowingGraph.from_edges([(1, 2), (2, 1), (2, 0)], [0])
    assert theorem_5_2_finite(pair) and not game_graph_finite(pair)
    assert is_winning(pair, (0, 7)) and is_winning(pair, (8, 3))
    # a bin sowing into a cycle of two Rumas: (L,) wins in one move for every L
    rumas = SowingGraph.from_edges([(1, 0), (0, 2), (2, 0)], [0, 2])
    assert theorem_5_2_finite(rumas) and has_ruma_only_cycle(rumas) and not game_graph_finite(rumas)
    assert all((0,) in sowing_moves(rumas, (stones,)) for stones in range(1, 25))
    with pytest.raises(LimitExceededError):
        unplay_moves(rumas, (0,))


def test_infinite_game_graph_hits_the_limit_and_bad_input() -> None:
    with pytest.raises(LimitExceededError):
        winning_boards(cycle_graph(3), max_boards=25)
    with pytest.raises(RumaInputError):
        SowingGraph.from_edges([(0, 5)], [0], size=3)
    with pytest.raises(RumaInputError, match="labels"):
        is_winning(cycle_graph(4), (1, 2))


def test_graphs_read_from_text_are_the_named_constructions() -> None:
    assert parse_sowing_graph("path:4") == path_graph(4)
    assert parse_sowing_graph("cycle:4") == cycle_graph(4)
    assert parse_sowing_graph("star: 3x2") == star_graph(3, 2)
    assert parse_sowing_graph("1>0, 2>1, 3>2") == SowingGraph.from_edges([(1, 0), (2, 1), (3, 2)], [0])
    for text, rumas, quoted in (("1-0", "0", "'1-0'"), ("star:3", "0", "'star:3'"), ("1>0", "a", "'a'")):
        with pytest.raises(RumaInputError, match=quoted):
            parse_sowing_graph(text, rumas)
