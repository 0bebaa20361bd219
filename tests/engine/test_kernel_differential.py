"""Differential tests of the compiled game kernel (``_core.kernel``, engine/native/kernel.c).

Three references, each independent of the code under test:

* the pure-Python kernel (``ruma.engine.cgt.kernel``), in the same process, id by id: every
  operation (canonical form of random option sets, sum, negative, order both ways, stops, the
  x + n·↑ + ∗k triple, number, nimber, all-small) on thousands of random games. Ids differ
  between the kernels, so games are matched by *structure*: a game's structure number is given
  to its canonical option sets, so two ids match exactly when their canonical forms are the same
  tree, and each kernel must give distinct structures distinct ids (hash-consing).
* cgt-py, on games of the compiled kernel: canonical forms, sums, negatives, the order, stops,
  temperature, mean (the thermograph's mast) and birthday. cgt-py has no atomic weight: that
  is compared with the pure-Python engine below.
* the pure-Python engine in a subprocess (``RUMA_ENGINE=python``): every public result on random
  games (text in the three notations, outcome, stops, mean, temperature, atomic weight or the
  reason there is none, birthday, sums) and every value of the partizan families the suite checks
  against the paper (Sowing and Atomic Wari rows), which must print identically.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from typing import Any

import cgt_py
import pytest

from ruma.engine.cgt import kernel as reference
from ruma.engine.native import core
from tests.support import ROOT

pytestmark = pytest.mark.both_engines


_core = core()
if _core is None:  # the compiled core must be built wherever the suite runs
    pytest.fail("the compiled engine is not built: reinstall with a C compiler present", pytrace=False)
COMPILED: Any = _core.kernel
if reference.count() == 0:  # the compiled engine is active: the reference's tables are unused so far
    reference.set_factory(lambda i: i)
    assert reference.nus_id(0, 0, 0) == 0  # ZERO is id 0 in both kernels


class Structures:
    """Structure numbers shared by both kernels: equal numbers, equal canonical trees."""

    def __init__(self) -> None:
        self.number: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        self.of: dict[str, dict[int, int]] = {"c": {}, "p": {}}
        self.owner: dict[str, dict[int, int]] = {"c": {}, "p": {}}  # structure -> id: one id each

    def of_id(self, side: str, kernel: Any, i: int) -> int:
        memo = self.of[side]
        stack = [i]
        while stack:  # iterative: some games are deep
            g = stack[-1]
            if g in memo:
                stack.pop()
                continue
            options = kernel.left_ids(g), kernel.right_ids(g)
            missing = [o for o in options[0] + options[1] if o not in memo]
            if missing:
                stack.extend(missing)
                continue
            key = (tuple(sorted(memo[o] for o in options[0])), tuple(sorted(memo[o] for o in options[1])))
            s = self.number.setdefault(key, len(self.number))
            other = self.owner[side].setdefault(s, g)
            assert other == g, f"{side} kernel: ids {other} and {g} are the same game"
            memo[g] = s
            stack.pop()
        return memo[i]

    def same(self, c: int, p: int) -> None:
        assert self.of_id("c", COMPILED, c) == self.of_id("p", reference, p), (c, p)


def check_node(structures: Structures, c: int, p: int) -> None:
    """The two ids are the same game, with the same triple, stops and all-small flag."""
    structures.same(c, p)
    assert COMPILED.nus(c) == reference.nus(p)
    assert COMPILED.number(c) == reference.number(p) and COMPILED.nim(c) == reference.nim(p)
    assert COMPILED.stops(c) == reference.stops(p)
    assert COMPILED.all_small(c) == reference.all_small(p)


NUMBERS = [Fraction(0), Fraction(1), Fraction(-2), Fraction(3, 4), Fraction(-5, 8), Fraction(17, 16),
           Fraction(1, 2**33), Fraction(-3, 2**40), Fraction(5, 2**70)]  # the last three: wide (dyadic.h)


def test_every_operation_agrees_with_the_python_kernel_on_random_games() -> None:
    rng = random.Random(27)
    s = Structures()
    pool: list[tuple[int, int]] = []
    for x in NUMBERS:  # numbers, ups and stars, wide numbers among them
        for n in (-2, 0, 1, 3):
            for k in (0, 1, 2):
                c, p = COMPILED.nus_id(x, n, k), reference.nus_id(x, n, k)
                check_node(s, c, p)
                pool.append((c, p))
    builders = list(pool)
    for _ in range(6000):
        op = rng.random()
        if op < 0.5:  # a canonical form of random option sets
            lefts = rng.sample(builders, rng.randint(0, 4))
            rights = rng.sample(builders, rng.randint(0, 4))
            c = COMPILED.canon([a for a, _ in lefts], [a for a, _ in rights])
            p = reference.canon([b for _, b in lefts], [b for _, b in rights])
        elif op < 0.75:
            (a, b), (x, y) = rng.choice(pool), rng.choice(pool)
            c, p = COMPILED.add(a, x), reference.add(b, y)
        else:
            a, b = rng.choice(pool)
            c, p = COMPILED.neg(a), reference.neg(b)
        check_node(s, c, p)
        (a, b), (x, y) = rng.choice(pool), (c, p)
        assert COMPILED.le(a, x) == reference.le(b, y) and COMPILED.le(x, a) == reference.le(y, b), (a, x)
        pool.append((c, p))
        if len(builders) < 400 and rng.random() < 0.3:
            builders.append((c, p))
    assert len(s.number) > 1500  # the run met many distinct canonical forms
    assert any(COMPILED.stops(c)[0] != COMPILED.stops(c)[1] for c, _ in pool)  # hot games among them


def test_wide_numbers_are_exact() -> None:
    """Numbers beyond the fixed-width representation (dyadic.h) take the fallback, exactly."""
    s = Structures()
    for x, y in [(Fraction(1, 2**40), Fraction(1, 2**41)), (Fraction(-7, 2**90), Fraction(3, 2**33)),
                 (Fraction(2**31 - 1, 2**32), Fraction(1, 2**32))]:
        cx, cy = COMPILED.nus_id(x, 0, 0), COMPILED.nus_id(y, 0, 0)
        px, py = reference.nus_id(x, 0, 0), reference.nus_id(y, 0, 0)
        total = COMPILED.add(cx, cy)
        assert COMPILED.number(total) == x + y
        check_node(s, total, reference.add(px, py))
        between = COMPILED.canon([min(cx, cy, key=COMPILED.number)], [max(cx, cy, key=COMPILED.number)])
        check_node(s, between, reference.canon([min(px, py, key=reference.number)], [max(px, py, key=reference.number)]))
        switch = COMPILED.canon([cx, COMPILED.nus_id(x, 1, 1)], [COMPILED.neg(cy)])
        check_node(s, switch, reference.canon([px, reference.nus_id(x, 1, 1)], [reference.neg(py)]))
        assert COMPILED.stops(switch) == reference.stops(reference.canon([px, reference.nus_id(x, 1, 1)],
                                                                          [reference.neg(py)]))
    assert COMPILED.cache_info()["wide_numbers"] > 0


def chain(kernel: Any, n: int) -> list[int]:
    """G_0 = 0, G_i = {i mod 3 + *, G_(i-1) | {G_(i-1) | -i}}: birthday ~2i, each G_i compared with
    the whole chain below it when it is canonicalised."""
    games = [0]
    for i in range(1, n):
        g = games[-1]
        star_i = kernel.nus_id(Fraction(i % 3), 0, 1)
        games.append(kernel.canon([star_i, g], [kernel.canon([g], [kernel.nus_id(Fraction(-i), 0, 0)])]))
    return games


def test_deep_chains_agree_with_the_python_kernel() -> None:
    s = Structures()
    up_c, up_p = COMPILED.nus_id(0, 1, 0), reference.nus_id(0, 1, 0)
    for c, p in zip(chain(COMPILED, 120), chain(reference, 120)):
        check_node(s, c, p)
        assert COMPILED.le(c, COMPILED.add(c, up_c)) == reference.le(p, reference.add(p, up_p))
        assert COMPILED.le(COMPILED.add(c, up_c), c) == reference.le(reference.add(p, up_p), p)


def test_the_comparison_cache_grows_for_deep_games_only() -> None:
    """A fresh compiled kernel: a search's many shallow comparisons keep the cache at its base
    limit; a chain of birthday ~400 (each game's comparisons reusing the ones before it: more
    than 400,000 entries) raises it, and its games compare as they must."""
    code = r"""
from fractions import Fraction
from ruma.engine.evaluator import evaluate
from ruma.engine.native import core
K = core().kernel
base = K.cache_info()["comparison_limit"]
assert evaluate("sowing", "1^12").value is not None
info = K.cache_info()
assert info["comparison_limit"] == base and info["comparisons"] > 0, info
g = 0
for i in range(1, 200):
    star_i = K.nus_id(Fraction(i % 3), 0, 1)
    g = K.canon([star_i, g], [K.canon([g], [K.nus_id(Fraction(-i), 0, 0)])])
up = K.nus_id(0, 1, 0)
assert K.le(g, K.add(g, up)) and not K.le(K.add(g, up), g)
assert K.add(K.add(g, up), K.neg(up)) == g
assert K.cache_info()["comparison_limit"] > base, K.cache_info()
print("ok", base, K.cache_info()["comparison_limit"])
"""
    env = {**os.environ, "RUMA_ENGINE": "c"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("ok ")


def test_bad_ids_are_index_errors() -> None:
    for fn in (COMPILED.neg, COMPILED.left_ids, COMPILED.nus, COMPILED.handle):
        with pytest.raises(IndexError, match="no game with id"):
            fn(COMPILED.count() + 5)
        with pytest.raises(IndexError, match="no game with id -1"):
            fn(-1)
    with pytest.raises(IndexError):
        COMPILED.canon([0, COMPILED.count()], [])
    with pytest.raises(ValueError, match="not a dyadic"):
        COMPILED.nus_id(Fraction(1, 3), 0, 0)


# -- against cgt-py -------------------------------------------------------------------------------
def test_games_agree_with_cgt_py() -> None:
    """``Game`` on the kernel of the engine in use (the compiled one, but for the suite's second run)."""
    from ruma.engine.cgt import Game
    from ruma.engine.cgt.notation import format_game

    rng = random.Random(2027)
    pool = [Game(0), Game(1), Game(-1), Game("*"), Game("^"), Game("1/2"), Game("{1|-1}")]
    C = cgt_py.CanonicalForm
    checked = 0
    for _ in range(700):
        g = Game.from_options(rng.sample(pool, rng.randint(0, 3)), rng.sample(pool, rng.randint(0, 3)))
        h = rng.choice(pool)
        cg, ch = C(format_game(g, "braces")), C(format_game(h, "braces"))
        assert C(format_game(g + h, "braces")) == cg + ch
        assert C(format_game(-g, "braces")) == -cg
        assert (g <= h) == (cg <= ch) and (h <= g) == (ch <= cg)
        assert (str(cg.left_stop), str(cg.right_stop)) == (_dyadic(g.left_stop), _dyadic(g.right_stop))
        assert str(cg.temperature) == _dyadic(g.temperature) and cg.birthday == g.birthday
        assert repr(cg.thermograph) == f"Thermograph({g.thermograph!r})" and g.thermograph.mast == g.mean
        if g.birthday <= 3 and g not in pool:
            pool.append(g)
        checked += 1
    assert checked == 700 and len(pool) > 40


def _dyadic(x: Fraction) -> str:
    return f"DyadicRationalNumber('{x}')"


# -- against the pure-Python engine ----------------------------------------------------------------
PUBLIC = r"""
import json, random, sys
from fractions import Fraction
from ruma.engine.cgt import Game, analysis, up_multiple, nimber
from ruma.engine.cgt.notation import format_game
from ruma.engine.errors import NotAtomicError
from ruma.engine.evaluator import evaluate

def record(g):
    out = [format_game(g, s) for s in ("ascii", "unicode", "braces")]
    out += [str(g.outcome), str(g.left_stop), str(g.right_stop), str(g.mean), str(g.temperature),
            g.birthday, g.is_number, g.is_infinitesimal, g.is_all_small, str(g.nus), hash(g) == hash(g.id) or g.is_number]
    try:
        out.append(format_game(analysis.atomic_weight(g)))
    except NotAtomicError as error:
        out.append(str(error))
    return out

rng = random.Random(int(sys.argv[1]))
pool = [Game(0), Game(1), Game(-2), Game("*"), Game("^"), Game("3/4"), Game("{1|-1}"), up_multiple(2) + nimber(1)]
records = []
for _ in range(400):
    g = Game.from_options(rng.sample(pool, rng.randint(0, 3)), rng.sample(pool, rng.randint(0, 3)))
    h = rng.choice(pool)
    records.append(record(g) + [format_game(g + h), format_game(g - h), g <= h, h <= g, g.confused_with(h)])
    if g.birthday <= 3:
        pool.append(g)
positions = [("sowing", "".join(str(rng.randint(0, 3)) for _ in range(rng.randint(1, 7)))) for _ in range(150)]
positions += [("atomic-wari", "".join(str(rng.randint(0, 3)) for _ in range(rng.randint(1, 7)))) for _ in range(150)]
positions += [("sowing", "1^9"), ("sowing", "2^5"), ("atomic-wari", "2^6"), ("atomic-wari", "3232323")]
for name, text in positions:
    value = evaluate(name, text).value
    records.append([name, text] + record(value))
print(json.dumps(records))
"""


def run_engine(engine: str, seed: int) -> Any:
    env = {k: v for k, v in os.environ.items() if k != "RUMA_ENGINE"} | {"RUMA_ENGINE": engine}
    out = subprocess.run([sys.executable, "-c", PUBLIC, str(seed)], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_public_results_and_family_values_are_the_same_with_either_engine() -> None:
    compiled, python = run_engine("c", 31), run_engine("python", 31)
    assert len(compiled) == len(python) == 704
    differ = [(a, b) for a, b in zip(compiled, python) if a != b]
    assert not differ, differ[:3]
    assert any("is not atomic" in str(r) for r in compiled) and any(r[0] == "sowing" for r in compiled)
