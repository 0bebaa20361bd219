"""Sowing positions of value 2^-n and n·↑ beyond a census, built back from Right's moves.

Canonical forms: ``2^-n = {0 | 2^-(n-1)}``, ``n·↑ = {0 | (n-1)·↑ + ∗}`` and
``n·↑ + ∗ = {0 | (n-1)·↑}`` for ``n >= 2`` (Conway, *On Numbers and Games*; checked in
``tests/studies/test_questions.py``). So a position of the next value of a chain can be looked for among
the positions ``G`` from which Right has a move to a position ``H`` of the previous value:
``right_unmoves(H)`` lists them (Sowing: Right takes the ``s`` seeds of pot ``j`` and sows them
one a pot leftwards, the last onto a nonempty pot; undone: ``s`` seeds back into pot ``j``, one
less in each of the ``s`` pots to its left). Each candidate is valued (directly, not by this
module) and kept when its value is the next of the chain. Nothing guarantees that such a
``G`` exists; what ``extend`` finds is a position, exactly valued, of that value.
"""

from __future__ import annotations

import time
from typing import Callable

from ruma.engine.cgt import Value
from ruma.engine.rulesets.base import State
from ruma.engine.rulesets.sowing import right_unmoves
from ruma.studies.kinds import Kind, value_of

__all__ = ["CHAINS", "right_unmoves", "extend"]

#: a chain's next kind from the kind of Right's option (the parameter goes up by one)
CHAINS = {"2^-n": "2^-n", "n.^*": "n.^", "n.^": "n.^*"}


def extend(starts: dict[Kind, list[State]], value: Callable[[State], Value | None], seconds: float,
           per_level: int = 60) -> dict[Kind, list[State]]:
    """Follow the chains from ``starts`` (positions of known kind, simplest first): for each
    ``(kind, n)`` in order of ``n``, the positions of kind ``CHAINS``-next and ``n + 1`` among
    the ``right_unmoves`` of the first ``per_level`` positions of ``(kind, n)``; ``value`` values
    a row (``None``: it gave up). Stops when ``seconds`` have passed. Returns every position
    found per ``(kind, n)``, simplest first (those of ``starts`` excluded)."""
    deadline = time.monotonic() + seconds
    known: dict[Kind, list[State]] = {k: list(v) for k, v in starts.items()}
    found: dict[Kind, list[State]] = {}
    tried: set[State] = set()
    level = min((n for _, n in known), default=0)
    top = max((n for _, n in known), default=0)
    while level <= top and time.monotonic() < deadline:
        for kind, following in CHAINS.items():
            target = (following, level + 1)
            want = value_of(*target)
            for row in known.get((kind, level), [])[:per_level]:
                for candidate in right_unmoves(row):
                    if candidate in tried or time.monotonic() > deadline:
                        continue
                    tried.add(candidate)
                    got = value(candidate)
                    if got is not None and got == want and candidate not in known.get(target, []):
                        found.setdefault(target, []).append(candidate)
            if target in found:
                merged = set(known.get(target, [])) | set(found[target])
                known[target] = sorted(merged, key=lambda r: (sum(r), len(r), r))
                top = max(top, level + 1)
        level += 1
    return {k: sorted(v, key=lambda r: (sum(r), len(r), r)) for k, v in found.items()}
