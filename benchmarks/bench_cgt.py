"""Measure ruma's CGT algebra (canonicalisation, sums, comparisons) against cgt-py and pycgt.

    python benchmarks/bench_cgt.py [GAMES] [SEED]    (cgt-py and pycgt: ``pip install '.[bench]'``)

A seeded recipe lists GAMES games, each a random option list (0-3 Left, 0-3 Right options) over
earlier games of birthday <= MAX_OPTION_BIRTHDAY. Every library builds the same games from the
recipe (ruma: ``Game.from_options``; pycgt: ``pycgt.game``; cgt-py cannot build from option
objects, so it parses brace text of its own canonical options), then computes the same sums and
the same comparisons (pairs drawn from the recipe), and finally values every follower of a few Sowing positions
bottom-up from option lists (the evaluator's hot path; the position graph is computed once by
ruma's Sowing ruleset, outside the timings). Each library starts on cold caches in its own
subprocess. Prints seconds per phase and ratios; nothing is asserted. Also cross-checks that the
three libraries agree on the canonical forms of the sums (via cgt-py).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any

SOWING = ("3333", "2222222", "111111111")  # the value phase: every follower of these positions
MAX_OPTION_BIRTHDAY = 4
SUMS = 3000
COMPARISONS = 20000


def recipe(games: int, seed: int) -> dict[str, Any]:
    """Option lists (indices of earlier games) built with ruma, so that birthdays are known."""
    from ruma.engine.cgt import ONE, STAR, UP, ZERO, Game

    rng = random.Random(seed)
    built = [ZERO, ONE, -ONE, STAR, UP]
    steps: list[tuple[list[int], list[int]]] = [([], []), ([0], []), ([], [0]), ([0], [0]), ([0], [3])]
    usable = list(range(len(built)))
    while len(steps) < games:
        lefts = rng.sample(usable, rng.randint(0, 3))
        rights = rng.sample(usable, rng.randint(0, 3))
        g = Game.from_options([built[i] for i in lefts], [built[i] for i in rights])
        steps.append((lefts, rights))
        built.append(g)
        if g.birthday <= MAX_OPTION_BIRTHDAY:
            usable.append(len(built) - 1)
    pairs = [(rng.randrange(games), rng.randrange(games)) for _ in range(max(SUMS, COMPARISONS))]
    return {"steps": steps, "pairs": pairs, "sowing": sowing_graph()}


def sowing_graph() -> list[tuple[list[int], list[int]]]:
    """Every follower of the SOWING positions (ruma's Sowing ruleset, empty end pots stripped, as
    Erickson does), in an order where options come first: the libraries value them bottom-up."""
    from ruma.engine.rulesets import get_ruleset

    rules = get_ruleset("sowing")

    def strip(state: tuple[int, ...]) -> tuple[int, ...]:
        a, b = 0, len(state)
        while a < b and state[a] == 0:
            a += 1
        while b > a and state[b - 1] == 0:
            b -= 1
        return state[a:b]

    index: dict[tuple[int, ...], int] = {}
    steps: list[tuple[list[int], list[int]]] = []

    def visit(state: tuple[int, ...]) -> int:
        i = index.get(state)
        if i is None:
            lefts = [visit(strip(tuple(t))) for t in rules.left_options(state)]
            rights = [visit(strip(tuple(t))) for t in rules.right_options(state)]
            i = index[state] = len(steps)
            steps.append((lefts, rights))
        return i

    for text in SOWING:
        visit(strip(tuple(rules.parse(text))))
    return steps


def run_ruma(spec: dict[str, Any]) -> dict[str, Any]:
    from ruma.engine.cgt import Game, cache_info

    t0 = time.perf_counter()
    games: list[Game] = []
    for lefts, rights in spec["steps"]:
        games.append(Game.from_options([games[i] for i in lefts], [games[i] for i in rights]))
    t1 = time.perf_counter()
    sums = [games[a] + games[b] for a, b in spec["pairs"][:SUMS]]
    t2 = time.perf_counter()
    n = sum(games[a] <= games[b] for a, b in spec["pairs"][:COMPARISONS])
    t3 = time.perf_counter()
    values: list[Game] = []
    for lefts, rights in spec["sowing"]:
        values.append(Game.from_options([values[i] for i in lefts], [values[i] for i in rights]))
    t4 = time.perf_counter()
    return {"build": t1 - t0, "sum": t2 - t1, "compare": t3 - t2, "sowing": t4 - t3, "le_true": n,
            "info": cache_info(), "sum_texts": [_braces(s) for s in sums[:200]] + [_braces(values[-1])]}


def _braces(g: Any) -> str:
    return "{" + ",".join(map(_braces, g.left_options)) + "|" + ",".join(map(_braces, g.right_options)) + "}"


def run_cgt_py(spec: dict[str, Any]) -> dict[str, Any]:
    import cgt_py

    def text(c: Any) -> str:
        return repr(c)[len("CanonicalForm('") : -2]

    t0 = time.perf_counter()
    games: list[Any] = []
    texts: list[str] = []
    for lefts, rights in spec["steps"]:
        c = cgt_py.CanonicalForm("{" + ",".join(texts[i] for i in lefts) + "|" + ",".join(texts[i] for i in rights) + "}")
        games.append(c)
        texts.append(text(c))
    t1 = time.perf_counter()
    sums = [games[a] + games[b] for a, b in spec["pairs"][:SUMS]]
    t2 = time.perf_counter()
    n = sum(games[a] <= games[b] for a, b in spec["pairs"][:COMPARISONS])
    t3 = time.perf_counter()
    values: list[str] = []
    for lefts, rights in spec["sowing"]:
        c = cgt_py.CanonicalForm("{" + ",".join(values[i] for i in lefts) + "|" + ",".join(values[i] for i in rights) + "}")
        values.append(text(c))
    t4 = time.perf_counter()
    return {"build": t1 - t0, "sum": t2 - t1, "compare": t3 - t2, "sowing": t4 - t3, "le_true": n,
            "sum_texts": [text(s) for s in sums[:200]] + [values[-1]]}


def run_pycgt(spec: dict[str, Any]) -> dict[str, Any]:
    import pycgt

    t0 = time.perf_counter()
    games: list[Any] = []
    for lefts, rights in spec["steps"]:
        games.append(pycgt.canonical(pycgt.game([games[i] for i in lefts], [games[i] for i in rights])))
    t1 = time.perf_counter()
    sums = [pycgt.add(games[a], games[b]) for a, b in spec["pairs"][:SUMS]]
    t2 = time.perf_counter()
    n = sum(pycgt.leq(games[a], games[b]) for a, b in spec["pairs"][:COMPARISONS])
    t3 = time.perf_counter()
    values: list[Any] = []
    for lefts, rights in spec["sowing"]:
        values.append(pycgt.canonical(pycgt.game([values[i] for i in lefts], [values[i] for i in rights])))
    t4 = time.perf_counter()
    return {"build": t1 - t0, "sum": t2 - t1, "compare": t3 - t2, "sowing": t4 - t3, "le_true": n,
            "sum_texts": [_braces_pycgt(pycgt, s) for s in sums[:200]] + [_braces_pycgt(pycgt, values[-1])]}


def _braces_pycgt(pycgt: Any, g: Any) -> str:
    c = pycgt.canonical(g)
    left, right = (",".join(_braces_pycgt(pycgt, x) for x in side) for side in (c.left, c.right))
    return "{" + left + "|" + right + "}"


RUNNERS = {"ruma": run_ruma, "cgt-py": run_cgt_py, "pycgt": run_pycgt}


def main(games: int = 3000, seed: int = 1) -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        spec = json.loads(sys.stdin.read())
        print(json.dumps(RUNNERS[sys.argv[2]](spec)))
        return
    spec = recipe(games, seed)
    payload = json.dumps(spec)
    results: dict[str, dict[str, Any]] = {}
    for name in RUNNERS:
        out = subprocess.run([sys.executable, __file__, "--child", name], input=payload, capture_output=True,
                             text=True, check=True)
        results[name] = json.loads(out.stdout)
    import cgt_py

    ref = [cgt_py.CanonicalForm(t) for t in results["cgt-py"]["sum_texts"]]
    agree = all(
        [cgt_py.CanonicalForm(t) for t in results[name]["sum_texts"]] == ref for name in ("ruma", "pycgt")
    ) and len({r["le_true"] for r in results.values()}) == 1
    print(f"games={games} seed={seed} sums={SUMS} comparisons={COMPARISONS} "
          f"sowing positions={len(spec['sowing'])} ({', '.join(SOWING)}) results agree: {agree}")
    print(f"ruma caches after the run: {results['ruma']['info']}")
    print(f"{'phase':<10}" + "".join(f"{name:>12}" for name in RUNNERS) + "   cgt-py/ruma  pycgt/ruma")
    for phase in ("build", "sum", "compare", "sowing"):
        row = [results[name][phase] for name in RUNNERS]
        print(f"{phase:<10}" + "".join(f"{v:>11.3f}s" for v in row) + f"   {row[1] / row[0]:>10.2f}x  {row[2] / row[0]:>9.2f}x")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        main()
    else:
        main(*(int(a) for a in sys.argv[1:3]))
