"""Differential tests: the compiled core (``ruma.engine.native``) against the pure-Python reference.

For each of the five row-of-pots rulesets, 10,000 distinct random positions (seeded) — short and
long rows, empty and full runs, full pots (``FULL`` and the ``FULL + k`` counts that sowing onto
a full pot leaves), counts around the one-byte key limit (254, 255, 256) and big counts — must
give identical Left/Right/all options (same order), normalised states and mirror flags,
components, decompositions, keys (of raw and normalised states) and sizes. Values: 10,000
positions per ruleset valued by both engines, each with its own memo, must give equal values,
components, keys, positions valued — and both memos must end up holding exactly the same entries.
The notation parser is compared on random texts (both results or both errors, same message).

The expected results come from the reference implementation (``ruma.engine.rulesets``), which
the rest of the suite tests against the papers, cgt-py and pycgt.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from ruma.engine.evaluator import evaluate
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets.atomic_wari import ATOMIC_WARI, IMPARTIAL_ATOMIC_WARI
from ruma.engine.rulesets.atomic_wari_board import ATOMIC_WARI_BOARD
from ruma.engine.rulesets.base import Ruleset, State
from ruma.engine.rulesets.notation import FULL
from ruma.engine.rulesets.sowing import IMPARTIAL_SOWING, SOWING
from tests.support.positions import random_position

try:
    from ruma.engine.native import rulesets as native_rulesets
except ImportError as error:  # the compiled core must be built wherever the suite runs
    pytest.fail(f"the compiled engine is not built ({error}): reinstall with a C compiler present",
                pytrace=False)

N_POSITIONS = 10_000
REFERENCES: dict[str, Ruleset] = {
    r.name: r for r in (SOWING, IMPARTIAL_SOWING, ATOMIC_WARI, IMPARTIAL_ATOMIC_WARI, ATOMIC_WARI_BOARD)
}
NAMES = sorted(REFERENCES)


def compiled(name: str) -> Ruleset:
    rules: Ruleset = native_rulesets.COMPILED[name]
    assert type(rules).native is not None and rules.reference is REFERENCES[name]  # type: ignore[attr-defined]
    return rules


def random_sowing(rng: random.Random) -> State:
    """Rows of 0-40 pots (sometimes 60-200): small counts, empty and full runs, FULL + k, big counts."""
    n = rng.choice((rng.randint(0, 12), rng.randint(0, 40), rng.randint(60, 200) if rng.random() < 0.05 else 5))
    pots: list[int] = []
    while len(pots) < n:
        r = rng.random()
        if r < 0.2:
            pots.extend([0] * rng.randint(1, 6))
        elif r < 0.32:
            pots.extend([rng.choice((FULL, FULL, FULL + rng.randint(1, 5)))] * rng.randint(1, 4))
        elif r < 0.36:
            pots.append(rng.choice((254, 255, 256, 9, 10, 40, rng.randint(11, 999))))
        else:
            pots.append(rng.choice((1, 1, 1, 2, 2, 3, 4, 5)))
    return tuple(pots[:n])


def random_wari(rng: random.Random) -> State:
    """Rows of 0-40 pots (sometimes 60-150): small counts with gaps, occasionally 250-300 seeds."""
    n = rng.choice((rng.randint(0, 12), rng.randint(0, 40), rng.randint(60, 150) if rng.random() < 0.05 else 5))
    pots: list[int] = []
    while len(pots) < n:
        r = rng.random()
        if r < 0.25:
            pots.extend([0] * rng.randint(1, 5))
        elif r < 0.28:
            pots.append(rng.choice((254, 255, 256, 300, rng.randint(6, 60))))
        else:
            pots.append(rng.choice((1, 1, 2, 2, 2, 3, 3, 4, 5)))
    return tuple(pots[:n])


def generator(name: str) -> Callable[[random.Random], State]:
    return random_sowing if "sowing" in name else random_wari


def distinct(name: str, seed: str, count: int, make: Callable[[random.Random], State]) -> list[State]:
    rng = random.Random(seed)
    seen: dict[State, None] = {}
    while len(seen) < count:
        seen[make(rng)] = None
    return list(seen)


@pytest.mark.parametrize("name", NAMES)
def test_rules_agree_on_random_positions(name: str) -> None:
    fast, ref = compiled(name), REFERENCES[name]
    states = distinct(name, f"native-{name}", N_POSITIONS, generator(name))
    split = mirrored = 0
    for state in states:
        assert fast.left_options(state) == ref.left_options(state), state
        assert fast.right_options(state) == ref.right_options(state), state
        assert fast.options(state) == ref.options(state), state
        canonical = ref.normalise(state)
        assert fast.normalise(state) == canonical, state
        assert fast.components(state) == list(ref.components(state)), state
        pieces = ref.decompose(state)
        assert fast.decompose(state) == pieces, state
        assert fast.key(state) == ref.key(state), state
        assert fast.key(canonical[0]) == ref.key(canonical[0]), state
        assert fast.canonical_key(state) == ref.canonical_key(state) == (ref.key(canonical[0]), canonical[1])
        assert fast.size(state) == ref.size(state), state
        for option in ref.options(state)[:3]:  # followers: FULL + k counts, grown rows
            assert fast.decompose(option) == ref.decompose(option), option
            assert fast.normalise(option) == ref.normalise(option), option
        split += len(pieces) > 1
        mirrored += canonical[1]
    # the positions exercise the rules: splits and mirror images are common
    assert split > N_POSITIONS // 50 and mirrored > N_POSITIONS // 10, (split, mirrored)


@pytest.mark.parametrize("name", NAMES)
def test_values_agree_on_random_positions(name: str) -> None:
    fast, ref = compiled(name), REFERENCES[name]
    fast_memo, ref_memo = InMemoryMemo(), InMemoryMemo()
    # positions both engines value quickly: up to 9 pots and 9 seeds, gaps, full pots
    for state in distinct(name, f"native-values-{name}", N_POSITIONS, lambda rng: random_position(name, rng)):
        a = evaluate(fast, state, fast_memo)
        b = evaluate(ref, state, ref_memo)
        assert (a.value, a.key, a.mirrored, a.canonical.state) == (b.value, b.key, b.mirrored, b.canonical.state)
        assert a.stats.positions_valued == b.stats.positions_valued, state
        assert [(c.position.state, c.key, c.value, c.mirrored, c.from_memo) for c in a.components] == [
            (c.position.state, c.key, c.value, c.mirrored, c.from_memo) for c in b.components
        ], state
    assert fast_memo.entries == ref_memo.entries


@pytest.mark.parametrize("name", ["impartial-sowing", "sowing", "impartial-atomic-wari", "atomic-wari"])
def test_values_agree_on_the_benchmark_positions(name: str) -> None:
    """Longer searches: every follower of a few bigger positions, memos compared entry by entry."""
    texts = {"sowing": ["1^8", "2^5", "3^5"], "impartial-sowing": ["1^10", "2^6", "3^6"],
             "atomic-wari": ["333", "4444"], "impartial-atomic-wari": ["3333", "4444"]}[name]
    fast_memo, ref_memo = InMemoryMemo(), InMemoryMemo()
    for text in texts:
        a, b = evaluate(compiled(name), text, fast_memo), evaluate(REFERENCES[name], text, ref_memo)
        assert a.value == b.value and a.stats.positions_valued == b.stats.positions_valued
    assert fast_memo.entries == ref_memo.entries


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", call()
    except Exception as error:  # noqa: BLE001 - both engines must fail the same way
        return type(error).__name__, str(error)


def valid_text(rng: random.Random, depth: int = 0) -> str:
    """Well-formed notation: digit or comma mode, groups, plain and braced exponents, full pots, spaces."""
    parts = []
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.15 and depth < 3:
            atom = "(" + valid_text(rng, depth + 1) + ")"
        elif r < 0.25:
            atom = rng.choice(("•", "#", "●"))
        else:
            atom = str(rng.choice((0, 1, 1, 2, 3, 9)))
        if rng.random() < 0.3:
            atom += rng.choice(("^", "^")) + (f"{{{rng.randint(0, 12)}}}" if rng.random() < 0.3 else str(rng.randint(0, 12)))
        parts.append(atom)
    return rng.choice(("", " ", "\t")).join(parts)


def random_text(rng: random.Random) -> str:
    """Valid notation (digit mode, or comma mode with multi-digit pots), sometimes mutated into junk."""
    text = valid_text(rng)
    if rng.random() < 0.3:
        text = text.replace("1", rng.choice(("12,", "10,", "254,", "255,", "1000,")), rng.randint(1, 3))
    if rng.random() < 0.2:
        junk = rng.choice(["x", "-1", "(", ")", "{", "}", "^", "^{3", "^10001", "1234567890,", "٣", ",,", "^x"])
        at = rng.randint(0, len(text))
        text = text[:at] + junk + text[at:]
    if rng.random() < 0.05:
        text = f"({text})^{rng.randint(0, 300)}"
    return text


@pytest.mark.parametrize("name", NAMES)
def test_parser_agrees(name: str) -> None:
    fast, ref = compiled(name), REFERENCES[name]
    rng = random.Random(f"native-parse-{name}")
    texts = [random_text(rng) for _ in range(N_POSITIONS)]
    texts += ["312", "1^8", "(10)^3 03 (01)^2", "12,0,3", "110••1", "#1^8#", "1^10000", "1^10001", "(1^100)^100",
              "(1^100)^101", "9^9999", "(" * 150 + "1" + ")" * 150, "()", "", "  ", "999999999,1", "1000000000,1"]
    texts += ["(" * depth + "1" + ")" * depth for depth in (63, 64, 65, 66, 80, 100, 101)]  # the reference: at most 64
    parsed = 0
    for text in texts:
        got, expected = outcome(lambda: fast.parse(text)), outcome(lambda: ref.parse(text))
        assert got == expected, text
        parsed += got[0] == "ok"
    assert parsed > len(texts) // 3  # many texts parse; the rest exercise the errors


@pytest.mark.parametrize("name", NAMES)
def test_inputs_the_compiled_code_does_not_take_go_to_the_reference(name: str) -> None:
    fast, ref = compiled(name), REFERENCES[name]
    odd: list[Any] = [(3, -1, 2), (True, 2, 1), (2**70, 1), [3, 1, 2], (3.0, 1), "312", (1, FULL * 10**4)]
    for state in odd:
        for method in ("left_options", "right_options", "normalise", "components", "decompose", "key", "size",
                       "canonical_key"):
            got = outcome(lambda: getattr(fast, method)(state))
            expected = outcome(lambda: getattr(ref, method)(state))
            assert got == expected, (method, state)
    assert outcome(lambda: fast.parse(312)) == outcome(lambda: ref.parse(312))  # type: ignore[arg-type]
    # the compiled search hands such components to the reference search: same values, same errors
    for state in [(3, -1, 2), (2, 10**13, 1, 0, 0, 3, 1), (2, 2**70)]:
        got = outcome(lambda: evaluate(fast, state).value)
        assert got == outcome(lambda: evaluate(ref, state).value), state
