"""Named property claims of theorems, checked on each instance by ``theorem verify``.

* ``sparse-atomic-wari`` — Erickson's Theorem 3.1: an atomic-wari position whose pots all hold at
  most two seeds has the value of the same impartial-atomic-wari position, which is the nim sum of
  octal ``·37`` heaps, one heap per maximal run of deuces (pots with two seeds) of its length.
  A position with a pot of three or more seeds fails the check.
* ``outcome:X`` — the value's outcome class is ``X`` (``L``, ``R``, ``N`` or ``P``).
* ``impartial-twin`` — a partizan value equals the nim value of the same position in the
  ruleset's impartial variant (``Ruleset.impartial_twin``: ``sowing``→``impartial-sowing``,
  ``atomic-wari``→``impartial-atomic-wari``).

Which rulesets a property is about, the rulesets say (``Ruleset.properties``, ``impartial_twin``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ruma.engine.cgt import format_value, nimber
from ruma.engine.cgt.nim import mex
from ruma.engine.errors import BrokenRulesetError, RumaInputError
from ruma.engine.rulesets import Ruleset, ruleset_names, sample_ruleset

PROPERTIES = ("sparse-atomic-wari", "outcome:X", "impartial-twin")


def octal_037(n: int, _cache: list[int] = [0]) -> int:  # noqa: B006 - a deliberate memo
    """Nim value of a heap of ``n`` in octal game ·37 (remove 1, or 2 optionally splitting the rest)."""
    while len(_cache) <= n:
        h = len(_cache)
        options = {_cache[h - 1]} if h >= 1 else set()
        if h >= 2:
            rest = h - 2
            options.update(_cache[a] ^ _cache[rest - a] for a in range(rest + 1))
        _cache.append(mex(options))
    return _cache[n]


def deuce_runs(state: Iterable[int]) -> list[int]:
    """Lengths of the maximal runs of pots holding exactly two seeds."""
    runs, current = [], 0
    for count in state:
        if count == 2:
            current += 1
        elif current:
            runs.append(current)
            current = 0
    if current:
        runs.append(current)
    return runs


def claim_kind(claim: str) -> tuple[str, str]:
    """``("value", text)`` or ``("property", name)`` for a claim; refuses unknown properties."""
    if not isinstance(claim, str) or not claim.strip():
        raise RumaInputError(f"empty claim {claim!r}")
    text = claim.strip()
    if text.startswith("property:"):
        prop = text.partition(":")[2].strip()
        base = "outcome:X" if prop.startswith("outcome:") else prop
        if base not in PROPERTIES:
            raise RumaInputError(f"unknown property {prop!r}; known: {', '.join(PROPERTIES)}")
        if base == "outcome:X" and prop.partition(":")[2].strip().upper() not in ("L", "R", "N", "P"):
            raise RumaInputError(f"outcome property needs L, R, N or P: {claim!r}")
        return "property", prop
    return "value", text


def _rulesets_where(test: Callable[[Ruleset], object]) -> list[str]:
    """The names of the rulesets that pass ``test``, sorted (an installed ruleset that is broken
    passes none: asked for by name, it says why)."""
    names = []
    for name in ruleset_names():
        try:
            if test(sample_ruleset(name)):
                names.append(name)
        except BrokenRulesetError:
            continue
    return sorted(names)


def check_property(claim: str, ev: Any, evaluate: Callable[[str, str], Any]) -> tuple[bool, str]:
    """Whether the evaluated instance ``ev`` has property ``claim``, and what was expected.

    ``evaluate(ruleset, position)`` values the same position in another ruleset (the twin).
    """
    rules: Ruleset = ev.ruleset
    ruleset, position = rules.name, str(ev.position)
    if claim.startswith("outcome:"):
        want = claim.partition(":")[2].strip().upper()
        return ev.game.outcome.value == want, f"outcome {want} (got {ev.game.outcome.value})"
    if claim == "impartial-twin":
        twin = rules.impartial_twin
        if twin is None:
            twinned = _rulesets_where(lambda r: r.impartial_twin)
            raise RumaInputError(f"property impartial-twin needs one of {twinned}, not {ruleset!r}")
        other = evaluate(twin, position)
        return ev.game is other.game, f"{format_value(other.value)} ({twin})"
    if claim == "sparse-atomic-wari":
        twin = rules.impartial_twin
        if claim not in rules.properties or twin is None:
            about = ", ".join(_rulesets_where(lambda r: claim in r.properties))
            raise RumaInputError(f"property sparse-atomic-wari is about {about}, not {ruleset!r}")
        state = ev.position.state
        if any(c > 2 for c in state):
            return False, "a sparse position (every pot ≤ 2)"
        other = evaluate(twin, position)
        heaps = 0
        for run in deuce_runs(state):
            heaps ^= octal_037(run)
        same = ev.game is other.game is nimber(heaps)
        return same, f"{format_value(other.value)} (impartial) = *{heaps} (·37 heaps)"
    raise RumaInputError(f"unknown property {claim!r}; known: {', '.join(PROPERTIES)}")
