"""Measure ruma's analyses and notation against cgt-py and pycgt on the same random games.

    python benchmarks/bench_cgt_analysis.py [COUNT] [SEED]    (cgt-py and pycgt: ``pip install '.[bench]'``)

Builds COUNT distinct random canonical games with ruma, writes them in cgt-py braces, then times
(each on cold caches for its library): stops + temperature + thermograph, and text round trips.
Prints seconds and ratios; nothing is asserted.
"""

from __future__ import annotations

import random
import sys
import time
from fractions import Fraction
from typing import Any, Callable

from ruma.engine.cgt import Game, analysis, integer, nimber, number, up_multiple
from ruma.engine.cgt.notation import STYLES, format_game, parse_game


def _random_game(rng: random.Random, depth: int) -> Game:
    if depth == 0 or rng.random() < 0.2:
        r = rng.random()
        if r < 0.4:
            return integer(rng.randint(-3, 3))
        if r < 0.65:
            return number(Fraction(rng.randint(-12, 12), rng.choice([1, 2, 4, 8])))
        if r < 0.85:
            return nimber(rng.randint(0, 3))
        return up_multiple(rng.randint(-2, 2)) + nimber(rng.randint(0, 2))
    lefts = [_random_game(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    rights = [_random_game(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    return Game.from_options(lefts, rights)


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(count: int = 2000, seed: int = 1) -> None:
    rng = random.Random(seed)
    seen: dict[int, Game] = {}
    while len(seen) < count:
        g = _random_game(rng, 4)
        seen.setdefault(g.id, g)
    games = list(seen.values())
    texts = [format_game(g, "braces") for g in games]

    def ruma_analyses() -> None:
        for g in games:
            analysis.left_stop(g), analysis.right_stop(g), analysis.temperature(g), analysis.thermograph(g)

    rows: list[tuple[str, float]] = [("ruma stops+temperature+thermograph", _timed(ruma_analyses))]
    try:
        import cgt_py

        forms = [cgt_py.CanonicalForm(t) for t in texts]

        def cgt_analyses() -> None:
            for c in forms:
                _ = c.left_stop, c.right_stop, c.temperature, c.thermograph

        rows.append(("cgt-py stops+temperature+thermograph", _timed(cgt_analyses)))
    except ImportError:
        pass
    try:
        import pycgt.notation
        import pycgt.stops
        import pycgt.thermal

        pgames = [pycgt.notation.parse(t) for t in texts]

        def pycgt_analyses() -> None:
            for p in pgames:
                pycgt.stops.left_stop(p), pycgt.stops.right_stop(p), pycgt.thermal.thermograph(p)

        rows.append(("pycgt stops+temperature+thermograph", _timed(pycgt_analyses)))
    except Exception as error:  # pycgt's parser does not read every braces form
        print(f"(pycgt skipped: {error})")
    for style in STYLES:
        rendered = [format_game(g, style) for g in games]
        rows.append((f"ruma parse {style}", _timed(lambda r=rendered: [parse_game(t) for t in r])))
    try:
        import cgt_py

        rows.append(("cgt-py parse braces", _timed(lambda: [cgt_py.CanonicalForm(t) for t in texts])))
    except ImportError:
        pass
    base = rows[0][1]
    print(f"{len(games)} games (seed {seed})")
    for name, seconds in rows:
        print(f"  {name:40s} {seconds:8.3f} s   x{seconds / base:6.2f} of ruma analyses")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
