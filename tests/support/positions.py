"""Inputs the tests share: random rows of pots, random canonical games, and rows whose followers
cross the edges of the compiled table's packed form."""

from __future__ import annotations

import random
from fractions import Fraction as F

from ruma.engine.cgt import Game, integer, nimber, number, up_multiple
from ruma.engine.rulesets.base import State
from ruma.engine.rulesets.notation import FULL


def random_position(name: str, rng: random.Random) -> State:
    """Small rows (the references are slow): up to 9 pots and 9 seeds, with gaps; Sowing rows
    also get full pots."""
    budget = rng.randint(2, 9)
    pots: list[int] = []
    while len(pots) < 9 and budget > 0:
        r = rng.random()
        if r < 0.25:
            pots.append(0)
        elif r < 0.35 and "sowing" in name:
            pots.append(FULL)
        else:
            v = min(budget, rng.choice((1, 1, 2, 2, 3, 4)))
            budget -= v
            pots.append(v)
    return tuple(pots)


def _random_game(rng: random.Random, depth: int) -> Game:
    if depth == 0 or rng.random() < 0.2:
        r = rng.random()
        if r < 0.35:
            return integer(rng.randint(-3, 3))
        if r < 0.6:
            return number(F(rng.randint(-12, 12), rng.choice([1, 2, 4, 8])))
        if r < 0.8:
            return nimber(rng.randint(0, 3))
        return up_multiple(rng.randint(-2, 2)) + nimber(rng.randint(0, 2)) + number(F(rng.randint(-2, 2), 2))
    lefts = [_random_game(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    rights = [_random_game(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    return Game.from_options(lefts, rights)


def random_games(seed: int, count: int, depth: int = 3) -> list[Game]:
    """``count`` distinct random canonical games (seeded)."""
    rng = random.Random(seed)
    seen: dict[int, Game] = {}
    while len(seen) < count:
        g = _random_game(rng, depth)
        if rng.random() < 0.3:
            g = g + _random_game(rng, 2)
        seen.setdefault(g.id, g)
    return list(seen.values())


def counts(name: str) -> list[str]:
    """Positions whose followers cross the packed form's edges (and values the reference finds fast)."""
    if name == "impartial-sowing":  # (rows of 17 and 18 pots: (10)^9, (1100)^5)
        return ["14,1,1", "15,1", "16,1", "15,0,2,1", "1,0,16", "(10)^9", "(1100)^5", "(10)^8,2,1,1", "•,1,1,•"]
    if name == "sowing":  # (counts of 14 and more become full pots; rows of 17 pots split)
        return ["(2,0)^4,14", "2^5,15", "1^3,16", "(1,1,0)^3,14", "2^6"]
    if name == "atomic-wari":
        return ["14,1,1", "255,1", "(3,0,1,0)^5", "(3,0,0,0)^5", "(2,0)^8,2", "4,4,4,4"]
    return ["14,1,1", "15,1,1", "16,1", "255,1", "1,0,16,1", "(3,0,1,0)^5", "(3,0,0,0)^5", "(1,1,2,0)^5"]
