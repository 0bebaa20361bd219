"""How many pots a family's rows can fill, and the pot range a question by value searches.

A row of ``B`` seeds fills ``B`` pots one seed each, but it can be longer: empty pots between the
seeds, as in Sowing's ``110001111111`` (8 seeds, 12 pots, value ∗3). ``fill_pots(ruleset, B)``
is the most pots a row of at most ``B`` seeds spans without the decomposition rules splitting it
into independent parts; a longer row is a sum of shorter ones, whose value is found with fewer
pots (the same parts closer together, as long as the gap still splits them). Up to two seeds it
is ``B`` (at least one pot); from three on the ruleset says (``Ruleset.fill_pots``: one pot a seed
by default; Sowing's and Atomic Wari's gaps by their rules D1, each stated in its module as F1).

``question_pots`` is the pot range ``ruma find`` and ``ruma census`` search when none is given:
everything the seeds can fill while the family's walk stays within ``WALK_BUDGET`` rows (the
size of Sowing's 0..13 seeds in 1..13 pots), and never less than one pot a seed. When that is
narrower than ``fill_pots``, the answer says so.
"""

from __future__ import annotations

from ruma.engine.families.classes import Family, walk_count
from ruma.engine.rulesets import get_ruleset

__all__ = ["WALK_BUDGET", "fill_pots", "question_pots"]

#: rows a question by value walks at most when it chooses the pot range itself
WALK_BUDGET = 6_000_000


def fill_pots(ruleset: str, seeds: int) -> int:
    """The most pots a row of at most ``seeds`` seeds spans as one part (see the module docstring)."""
    rules = get_ruleset(ruleset)
    return max(1, seeds) if seeds <= 2 else rules.fill_pots(seeds)


def question_pots(ruleset: str, seeds: tuple[int, int], budget: int = WALK_BUDGET) -> tuple[int, int]:
    """``(pots_max, fill)``: the pots a question by value searches (``1..pots_max``) and what the
    seeds can fill; ``pots_max < fill`` when the walk of the whole fill exceeds ``budget`` rows."""
    low, high = seeds
    fill = fill_pots(ruleset, high)
    pots = max(1, high)
    while pots < fill and walk_count(Family.of(ruleset, (low, high), (1, pots + 1))) <= budget:
        pots += 1
    return pots, fill
