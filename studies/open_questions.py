"""The tables that answer Erickson's open questions as far as a sweep reaches, as documents.

Three sections of ``docs/tables.md`` (``ruma tables``; rendered by ``studies.markdown``):

- ``sowing-values`` (§2): for the values ``2^-n``, ``n·↑``, ``n·↑+∗``, the tinies ``+_x`` and
  ``∗n`` (``ruma.studies.kinds``), the simplest Sowing position of each value found
  among every row of at most S seeds and P pots, how many raw positions have it, and the
  one-parameter families the pattern search (``studies.patterns``) finds among them;
- ``wari-nim`` (§3): Erickson's Table 3 for Impartial Atomic Wari — per nim value the position
  with the fewest seeds and the one with the fewest pots;
- ``followers`` (§3): how many positions are reachable from an Atomic Wari position
  (``studies.followers``), along families and at the most per number of seeds.

Each is computed from the store — the family is swept into it first (what it holds already is
not valued again), then tallied (``studies.tally``) — and kept in the store as a JSON document
``tables/NAME`` (``Store.documents``): the record of what was found, the bound, the
command, the wall time and the peak memory. A later run with the same bound reads the document
back instead of tallying again (``recount=True`` tallies anyway), and the web explorer serves
it. ``FORMAT`` changes when a document's content would; a document of another format is
recomputed.
"""

from __future__ import annotations

import json
import os
import resource
import time
from datetime import UTC, datetime
from fractions import Fraction
from math import comb
from typing import Any, Callable, Iterable

from ruma.client.sweep.driver import StoreSink
from ruma.engine.cgt import Game, Value, format_value
from ruma.engine.errors import LimitExceededError
from ruma.engine.families.classes import Family, weighted_rows
from ruma.engine.native import active_engine
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import Ruleset, State
from ruma.studies.chains import CHAINS, extend
from ruma.studies.followers import Followers, count_followers, stripped
from ruma.studies.kinds import KINDS, kind_label, kind_of
from ruma.studies.patterns import Pattern, find_patterns
from ruma.studies.tally import Tally
from ruma.studies.tally_parts import sweep_and_tally

__all__ = ["FORMAT", "SECTIONS", "DOCUMENT_PREFIX", "sowing_values", "wari_nim", "followers", "stored",
           "FOLLOWER_FAMILIES"]

FORMAT = 1
DOCUMENT_PREFIX = "tables/"
#: the sections kept in the store as documents, in the order of docs/tables.md: this module's three
#: and ``beyond`` (``studies.beyond_tables``: what the searches of ``ruma find --beyond`` found)
SECTIONS = ("sowing-values", "wari-nim", "followers", "beyond")
#: simplest positions per value the pattern search starts from (for two blocks growing together)
PATTERN_SEEDS = 100
PAIR_SEEDS = 20
#: chains beyond the bound: positions of a value whose un-moves are tried, seconds a candidate
CHAIN_LEVEL = 100
CHAIN_POSITION = 20.0
#: heaps of ·37 whose nim values give deuce runs of each value (wari-nim)
DEUCE_HEAPS = 20_000
#: positions listed per row besides the simplest
LISTED = 5
#: families whose followers are counted: (ruleset, name, template with n)
FOLLOWER_FAMILIES = (
    ("atomic-wari", "1^n", "1^{n}"),
    ("atomic-wari", "2^n", "2^{n}"),
    ("atomic-wari", "3^n", "3^{n}"),
    ("atomic-wari", "(13)^n", "(13)^{n}"),
    ("atomic-wari", "(12)^n", "(12)^{n}"),
    ("atomic-wari", "(01300)^n", "(01300)^{n}"),
    ("sowing", "1^n", "1^{n}"),
)


def _peak_rss() -> int:
    """The peak resident memory of this process or of any child it waited for (bytes)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) * 1024


def _generated(command: str, started: float, parts: dict[str, float]) -> dict[str, Any]:
    """How a document was computed: ``seconds`` of this run; ``parts`` the costs of its pieces
    (a tally's, summed over the runs that did its parts); the peak memory of any of them."""
    peak = max(_peak_rss(), int(parts.pop("peak_rss_bytes", 0)))
    return {"command": command, "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "engine": active_engine(), "seconds": round(time.perf_counter() - started, 1),
            "parts": {name: round(seconds, 1) for name, seconds in parts.items()},
            "peak_rss_bytes": peak, "load_average": [round(x, 2) for x in os.getloadavg()]}


def stored(sink: StoreSink, section: str) -> dict[str, Any] | None:
    """The document of ``section`` kept in the store, or ``None`` (absent, or of another format)."""
    raw = sink.store.documents.get(DOCUMENT_PREFIX + section)
    if raw is None:
        return None
    document: dict[str, Any] = json.loads(raw)
    return document if document.get("format") == FORMAT else None


def _keep(sink: StoreSink, document: dict[str, Any]) -> dict[str, Any]:
    sink.store.documents.put(DOCUMENT_PREFIX + document["section"], json.dumps(document, ensure_ascii=False).encode())
    return document


def _reusable(sink: StoreSink, section: str, bound: dict[str, Any], recount: bool) -> dict[str, Any] | None:
    held = None if recount else stored(sink, section)
    return held if held is not None and held.get("bound") == bound else None


def _values(value: Value) -> dict[str, str]:
    return {style: format_value(value, style) for style in ("unicode", "ascii", "braces")}


def _position(rules: Ruleset, row: State) -> dict[str, Any]:
    return {"position": rules.format(row), "seeds": sum(row), "pots": len(row)}


def _parameter(parameter: int | Fraction) -> int | str:
    return parameter if isinstance(parameter, int) else str(parameter)


def _rows(rules: Ruleset, counted: Tally) -> list[dict[str, Any]]:
    """The table rows of the wanted values, in ``KINDS`` order then by parameter."""
    rows = []
    for value, books in counted.rows.items():
        kind = kind_of(value)
        if kind is None or not books.simplest:
            continue
        name, parameter = kind
        row, _ = books.simplest[0]
        assert books.fewest_pots is not None
        rows.append({"kind": name, "parameter": _parameter(parameter), "label": kind_label(name, parameter),
                     "value": _values(value), "nim_value": value if isinstance(value, int) else None,
                     **_position(rules, row), "raw_positions": books.raw_positions,
                     "fewest_pots": _position(rules, books.fewest_pots),
                     "others": [rules.format(r) for r, _ in books.simplest[1:LISTED + 1]]})
    rows.sort(key=lambda r: (KINDS.index(r["kind"]), Fraction(r["parameter"])))
    return rows


def _bounded_lookup(sink: StoreSink, rules: Ruleset, seeds: int, pots: int) -> Callable[[State], Value | None]:
    lookup = sink.store.lookup

    def value(row: State) -> Value | None:
        row = stripped(row)
        if sum(row) > seeds or len(row) > pots:
            return None
        canonical, mirrored = rules.normalise(row)
        found = lookup(rules.key(canonical))
        return -found if mirrored and isinstance(found, Game) else found

    return value


def _pattern(rules: Ruleset, p: Pattern) -> dict[str, Any]:
    return {"kind": p.kind, "template": p.template, "first": p.first, "last": p.last, "start": p.start,
            "step": p.step, "reaches_bound": p.reaches_bound,
            "instances": [{"m": m, "position": rules.format(stripped(p.row(m))),
                           "label": kind_label(p.kind, p.parameter(m))} for m in range(p.first, p.last + 1)]}


def sowing_values(sink: StoreSink, seeds: int, pots: int, command: str, workers: int | None = None,
                  recount: bool = False, pieces: int = 1, minutes: float | None = None,
                  chain_seconds: float = 300.0) -> dict[str, Any]:
    """The ``sowing-values`` document: every Sowing row of at most ``seeds`` seeds and ``pots``
    pots swept and tallied (see the module docstring), the tally in ``pieces`` parts kept in the
    store (``studies.tally_parts``; ``minutes``: stop between two parts once they have passed); then the
    chains of Right's moves beyond the bound for ``chain_seconds`` (``studies.chains``)."""
    bound = {"seeds": seeds, "pots": pots}
    family = Family.of("sowing", (0, seeds), (1, pots))
    held = _reusable(sink, "sowing-values", bound, recount)
    if held is not None and held.get("chains", {}).get("seconds") == chain_seconds:
        return held  # (asked for other chains: the tally is read back from its parts, the chains done again)
    started, parts, swept = time.perf_counter(), dict[str, float](), dict[str, Any]()
    rules = family.rules
    counted = sweep_and_tally(sink, family, lambda v: kind_of(v) is not None, PATTERN_SEEDS, workers, pieces, minutes,
                              parts, swept, _peak_rss, recount)
    begun = time.perf_counter()
    starts = [(row, kind) for value, books in counted.rows.items() if (kind := kind_of(value)) is not None
              for row, _ in books.simplest]
    fewer = [(row, kind) for value, books in counted.rows.items() if (kind := kind_of(value)) is not None
             for row, _ in books.simplest[:PAIR_SEEDS]]
    lookup = _bounded_lookup(sink, rules, seeds, pots)
    patterns = sorted(find_patterns(starts, lookup, shapes=("runs", "pots")) + find_patterns(fewer, lookup, shapes=("pairs",)),
                      key=lambda p: (-p.instances, not p.reaches_bound, len(p.template), p.template))
    parts["patterns"] = time.perf_counter() - begun
    begun = time.perf_counter()
    chains = _chains(sink, rules, counted, chain_seconds)
    parts["chains"] = time.perf_counter() - begun
    return _keep(sink, {"format": FORMAT, "section": "sowing-values", "ruleset": "sowing", "bound": bound,
                        "raw_positions": counted.raw_positions, "rows_walked": counted.walked,
                        "sweep": swept, "rows": _rows(rules, counted),
                        "patterns": [_pattern(rules, p) for p in patterns],
                        "chains": {"seconds": chain_seconds, "per_level": CHAIN_LEVEL, "position_seconds": CHAIN_POSITION,
                                   "found": chains},
                        "generated": _generated(command, started, parts)})


def _chains(sink: StoreSink, rules: Ruleset, counted: Tally, seconds: float) -> list[dict[str, Any]]:
    """Positions of the chains' values beyond the census (``studies.chains``), each valued
    directly through the store within ``CHAIN_POSITION`` seconds."""
    if seconds <= 0:
        return []
    from ruma.engine.errors import CancelledError, LimitExceededError
    from ruma.engine.evaluator import evaluate

    starts: dict[Any, list[State]] = {}
    for held, books in counted.rows.items():
        known = kind_of(held)
        if known is not None and known[0] in CHAINS:
            starts[known] = [row for row, _ in books.simplest]

    def value(row: State) -> Value | None:
        deadline = time.monotonic() + CHAIN_POSITION
        try:
            return evaluate(rules.name, row, sink.store, should_cancel=lambda: time.monotonic() > deadline).value
        except (CancelledError, LimitExceededError):
            return None

    found = extend(starts, value, seconds, CHAIN_LEVEL)
    out = []
    for (kind, n), rows in sorted(found.items(), key=lambda item: (KINDS.index(item[0][0]), item[0][1])):
        out.append({"kind": kind, "parameter": n, "label": kind_label(kind, n), "count": len(rows),
                    "positions": [_position(rules, row) for row in rows[:LISTED]],
                    "new": not starts.get((kind, n))})
    return out


def wari_nim(sink: StoreSink, seeds: int, pots: int, command: str, workers: int | None = None,
             recount: bool = False, pieces: int = 1, minutes: float | None = None) -> dict[str, Any]:
    """The ``wari-nim`` document: Table 3 for Impartial Atomic Wari over every row of at most
    ``seeds`` seeds and ``pots`` pots (the tally as ``sowing_values``'s). For ∗0, the simplest
    position *with a move*."""
    bound = {"seeds": seeds, "pots": pots}
    family = Family.of("impartial-atomic-wari", (0, seeds), (1, pots))
    held = _reusable(sink, "wari-nim", bound, recount)
    if held is not None:
        return held
    started, parts, swept = time.perf_counter(), dict[str, float](), dict[str, Any]()
    counted = sweep_and_tally(sink, family, lambda v: True, LISTED + 1, workers, pieces, minutes, parts, swept, _peak_rss,
                              recount)
    rules = family.rules
    rows = _rows(rules, counted)
    zero = counted.rows.get(0)
    if zero is not None:
        rows.insert(0, _zero_row(rules, family, zero.raw_positions, _bounded_lookup(sink, rules, seeds, pots)))
    begun = time.perf_counter()
    deuces = deuce_runs(DEUCE_HEAPS)
    parts["deuce runs"] = time.perf_counter() - begun
    return _keep(sink, {"format": FORMAT, "section": "wari-nim", "ruleset": rules.name, "bound": bound,
                        "raw_positions": counted.raw_positions, "rows_walked": counted.walked, "sweep": swept,
                        "rows": rows, "deuce_runs": deuces, "generated": _generated(command, started, parts)})


def deuce_runs(heaps: int) -> dict[str, Any]:
    """Erickson's Theorem 3.1 makes the sparse Atomic Wari position ``2^k`` (``k`` pots of two seeds)
    the heap ``k`` of the octal game ·37, whose nim value it has: per ``n``, the least ``k`` below
    ``heaps`` with ``G(k) = n`` — a position of value ∗n for every ``n`` up to ``complete``."""
    from ruma.engine.octal import OctalGame

    values = OctalGame("0.37").values(heaps)
    least: dict[int, int] = {}
    for k, n in enumerate(values):
        least.setdefault(n, k)
    complete = next(n for n in range(len(values) + 1) if n not in least) - 1
    return {"heaps": heaps, "complete": complete, "largest": max(values),
            "least": [[n, least[n]] for n in range(complete + 1)]}


def _zero_row(rules: Ruleset, family: Family, zero_raw: int, value: Callable[[State], Value | None]) -> dict[str, Any]:
    """∗0's row, as in Erickson's Table 3: the simplest and the fewest-pots positions *with a
    move* of value 0, and how many raw positions with a move have it (``zero_raw`` less the raw
    rows in which no pot holds two seeds: Atomic Wari's positions without a move)."""
    def zero_with_move(row: State) -> bool:
        return value(row) == 0 and any(True for _ in rules.options(row))

    simplest = next(row for row, _ in weighted_rows(family) if zero_with_move(row))
    fewest = None
    for pots in range(1, family.pots_max + 1):
        found = [row for row, _ in weighted_rows(Family.of(rules.name, (0, family.seeds_max), (pots, pots)))
                 if len(row) == pots and zero_with_move(row)]
        if found:
            fewest = min(found, key=lambda row: (sum(row), row))
            break
    assert fewest is not None
    idle = sum(comb(n, k) for n in range(family.pots_min, family.pots_max + 1)
               for k in range(family.seeds_min, min(n, family.seeds_max) + 1))
    return {"kind": "*n", "parameter": 0, "label": "∗0", "value": _values(0), "nim_value": 0,
            **_position(rules, simplest), "raw_positions": zero_raw - idle, "fewest_pots": _position(rules, fewest),
            "others": []}


def followers(sink: StoreSink, largest_seeds: int, pots: int, budget: float, command: str,
              recount: bool = False, families: Iterable[tuple[str, str, str]] = FOLLOWER_FAMILIES,
              limit: int = 3_000_000, max_n: int = 30) -> dict[str, Any]:
    """The ``followers`` document: followers along ``families`` (``n = 1, 2, ... max_n`` until one
    would pass ``limit`` followers or ``budget`` seconds), and the most followers of an Atomic
    Wari position of exactly ``s`` seeds and at most ``pots`` pots, ``s = 1..largest_seeds``."""
    bound = {"seeds": largest_seeds, "pots": pots, "limit": limit, "budget": budget, "max_n": max_n}
    held = _reusable(sink, "followers", bound, recount)
    if held is not None:
        return held
    started, parts = time.perf_counter(), dict[str, float]()
    series = []
    for ruleset, name, template in families:
        begun = time.perf_counter()
        counts: list[dict[str, Any]] = []
        n = 1
        rules = get_ruleset(ruleset)
        while n <= max_n and time.perf_counter() - begun < budget:
            position = rules.parse(template.replace("{n}", str(n)))
            try:
                count = count_followers(rules, position, limit)
            except LimitExceededError:
                break
            counts.append({"n": n, "position": rules.format(position), "followers": count.positions,
                           "components": count.components})
            n += 1
        series.append({"ruleset": ruleset, "family": name, "counts": counts,
                       "seconds": round(time.perf_counter() - begun, 1)})
        parts[f"{ruleset} {name}"] = time.perf_counter() - begun
    begun = time.perf_counter()
    largest = _largest(largest_seeds, pots)
    parts["largest"] = time.perf_counter() - begun
    return _keep(sink, {"format": FORMAT, "section": "followers", "ruleset": "atomic-wari", "bound": bound,
                        "series": series, "largest": largest, "generated": _generated(command, started, parts)})


def _largest(seeds: int, pots: int) -> list[dict[str, Any]]:
    """Per ``s = 1..seeds``: the Atomic Wari row of exactly ``s`` seeds (at most ``pots`` pots,
    no empty end pot) with the most followers — the simplest of those tied — and how many rows
    were walked (one of each mirror pair: a row and its mirror image have as many)."""
    rules = get_ruleset("atomic-wari")
    out = []
    for s in range(1, seeds + 1):
        best: tuple[Followers, State] | None = None
        walked = 0
        for row, _ in weighted_rows(Family.of("atomic-wari", (s, s), (1, pots))):
            if row[::-1] < row:
                continue
            walked += 1
            count = count_followers(rules, row)
            if best is None or count.positions > best[0].positions:
                best = (count, row)
        assert best is not None
        out.append({"seeds": s, "rows_walked": walked, "followers": best[0].positions,
                    "components": best[0].components, **_position(rules, best[1])})
    return out
