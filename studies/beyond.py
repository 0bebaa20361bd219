"""A value-directed search beyond the exhaustive bound: positions of a wanted value V built from
stored positions of the values of V's options (``ruma find RULESET VALUE --beyond``).

A position of value ``V = {L1, ... | R1, ...}`` (canonical form) usually has a Left option of
each value ``Li`` and a Right option of each ``Ri`` (a reversible option can stand in for one, so
this is a heuristic, never a proof of absence). So the search starts from the *starts*: stored
positions, within the swept bound, of the rarer option values (a value held by more than
``COMMON`` raw positions of the bound, such as 0 or ∗, says nothing about a predecessor). Its
candidates are

- **predecessors**: the positions with a Left move to a start of a Left option value, or a Right
  move to one of a Right option value (``Ruleset.unmoves``: the moves undone, "unsowing");
- **extensions**: a start with one seed more in one of its pots, or with a one-seed pot added at
  either end (the simplest positions of the neighbouring values, grown a little);
- **chains**: an option value held by fewer than ``RARE`` positions of the bound is a *goal* of its
  own (to ``DEPTH`` levels), and every position the search finds of a goal's value becomes a start
  of the goals above it — ``2^-n = {0 | 2^-(n-1)}`` and ``n·↑ = {0 | (n-1)·↑∗}`` of
  ``studies.chains``, generalised to any canonical form.

Candidates are valued simplest first (fewest seeds, then pots; among equals a candidate reached
by two routes first) — in this process, or by worker processes (``studies.beyond_pool``) — each by
the store-backed evaluator within ``candidate_seconds`` and the evaluator's
position limit (``ruma.engine.limits``) — a predecessor of a position the search found, a link of
a chain, ``CHAIN_FACTOR`` times as long —, the values going into the store. A candidate the budget
stopped is counted as *given up*: its value is unknown (a later run with more time a candidate
values it again). Every valued candidate is remembered, so
the search is **resumable**: its state — goals, starts, the frontier not yet valued, what was
valued, what was found and the time spent — is a document of the store, ``beyond/RULESET/VALUE``
(``DOCUMENT_PREFIX``), saved every ``SAVE_SECONDS`` and at the end; the same search run again goes
on from there.

Found positions are exact: each was valued in full. What the search did not find it does not
rule out: ``extent`` states what was searched.
"""

from __future__ import annotations

import heapq
import json
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Callable, Iterable

from ruma.engine.cgt import ZERO, Game, Value, as_game, format_value
from ruma.engine.rulesets.base import Ruleset, State, strip_ends

__all__ = ["Beyond", "Goal", "option_values", "DOCUMENT_PREFIX", "FORMAT", "document_name", "extent", "read_state"]

FORMAT = 1
DOCUMENT_PREFIX = "beyond/"
#: an option value held by more raw positions of the bound gives no starts
COMMON = 50_000
#: an option value held by fewer raw positions of the bound is a goal of its own
RARE = 40
#: goals below the asked value, at most
DEPTH = 3
#: save the state at least this often (seconds)
SAVE_SECONDS = 30.0
#: seeds a predecessor may have beyond its start (Atomic Wari's captures)
EXTRA_SEEDS = 2
#: a predecessor of a position the search found (a link of a chain) may take this many times the
#: time of another candidate: it is the likeliest to have the value wanted
CHAIN_FACTOR = 6

Census = Callable[[list[Value]], dict[Value, tuple[int, list[State]]]]


def option_values(rules: Ruleset, value: Value) -> tuple[list[Value], list[Value]]:
    """The values of Left's and Right's options of ``value``'s canonical form (an impartial
    ruleset's nim value ``n``: ``0 .. n-1`` on both sides)."""
    if rules.impartial:
        n = value if isinstance(value, int) else as_game(value).nim_value
        assert n is not None
        return list(range(n)), list(range(n))
    game = as_game(value)
    return list(game.left_options), list(game.right_options)


def text(value: Value, style: str = "braces") -> str:
    """A value written in ``style``."""
    return format_value(value, style)


@dataclass
class Goal:
    """A value looked for: the asked one (``depth`` 0) or an option value of a goal above it."""

    value: Value
    depth: int
    stored: int  # raw positions of the value within the bound
    parents: list[int] = field(default_factory=list)


@dataclass(order=True)
class _Item:
    priority: tuple[int, int, int, State]
    row: State = field(compare=False)


def document_name(rules: Ruleset, value: Value) -> str:
    """The store document of the search for ``value``."""
    return f"{DOCUMENT_PREFIX}{rules.name}/{text(value)}"


class Beyond:
    """The search for ``target`` (see the module docstring). ``census(values)`` answers, for each
    value, how many raw positions of the bound have it and its simplest positions there (rows of
    counts); ``valuer(row, seconds)`` values a row within ``seconds`` (``None``: it gave up), and
    returns ``(value, positions computed, memo hits)``; ``documents`` keeps the state."""

    def __init__(self, rules: Ruleset, target: Value, bound: dict[str, int], documents: Any,
                 valuer: Callable[[State, float], tuple[Value | None, int, int]],
                 census: Census, starts: int = 100, grow: int = 3, candidate_seconds: float = 10.0) -> None:
        self.rules, self.target, self.bound, self.documents = rules, target, bound, documents
        self.valuer, self.census = valuer, census
        self.starts_per_value, self.grow, self.candidate_seconds = starts, grow, candidate_seconds
        self.name = document_name(rules, target)
        self.goals: list[Goal] = []
        self.values: dict[State, str | None] = {}  # every row valued: its value (braces), None: gave up
        self.useful: dict[str, Value] = {}  # the values whose positions make candidates
        self.how: dict[State, str] = {}
        self.frontier: list[_Item] = []
        self.routes: dict[State, int] = {}
        self.found: list[dict[str, Any]] = []
        self.starts: dict[str, list[str]] = {}
        self.stats: dict[str, Any] = {"candidates": 0, "gave_up": 0, "from_store": 0, "memo_hits": 0,
                                      "computed": 0, "seconds": 0.0, "least_seeds": None, "most_seeds": None,
                                      "runs": []}
        self._side_cache: dict[str, tuple[bool, bool]] = {}
        self.links: set[State] = set()  # predecessors of positions found: more time each
        self.gave_up: dict[State, float] = {}  # the seconds a candidate was given up after
        self.pending: set[State] = set()  # candidates handed to a pool's workers, not back yet
        self.deadline = self._started = self._saved = 0.0  # (a run's end, by ``time.monotonic()``)
        self._report: Callable[[dict[str, Any]], None] | None = None
        self._run: dict[str, Any] = {}
        if not self._load():
            self._plan()

    # -- the plan: goals and starts ----------------------------------------------------------
    def _plan(self) -> None:
        """Goals down the option values, and the starts from the census of the bound."""
        asked = [self.target]
        counts: dict[str, tuple[int, list[State]]] = {}
        depth_of = {text(self.target): 0}
        level = [self.target]
        for depth in range(DEPTH + 1):
            wanted = {text(v): v for g in level for side in option_values(self.rules, g) for v in side}
            new = [v for t, v in wanted.items() if t not in counts]
            if new:
                for value, answer in self.census(new).items():
                    counts[text(value)] = answer
            for v in new:
                counts.setdefault(text(v), (0, []))
            nxt = []
            for t, v in wanted.items():
                held = counts[t][0]
                if held <= COMMON:
                    self.useful[t] = v
                if held < RARE and depth < DEPTH and t not in depth_of and not _zero(v):
                    depth_of[t] = depth + 1
                    asked.append(v)
                    nxt.append(v)
            level = nxt
            if not level:
                break
        for value in asked:
            t = text(value)
            self.goals.append(Goal(value, depth_of[t], counts.get(t, (0, []))[0] if t != text(self.target) else 0))
        for t in self.useful:
            rows = counts[t][1][: self.starts_per_value]
            self.starts[t] = [self.rules.format(r) for r in rows]
            for row in rows:
                self._from_position(row, t, "stored")

    def _sides(self, value_text: str) -> tuple[bool, bool]:
        """Whether positions of the value are Left (first) or Right options of some goal."""
        if value_text in self._side_cache:
            return self._side_cache[value_text]
        left = right = False
        for goal in self.goals:
            lefts, rights = option_values(self.rules, goal.value)
            left = left or any(text(v) == value_text for v in lefts)
            right = right or any(text(v) == value_text for v in rights)
        self._side_cache[value_text] = (left, right)
        return left, right

    def _from_position(self, row: State, value_text: str, origin: str) -> None:
        """Push the candidates a position of a useful value makes: its predecessors, its extensions."""
        label = f"`{self.rules.format(row)}` = {value_text} ({origin})"
        left, right = self._sides(value_text)
        for side, wanted in ((True, left), (False, right)):
            if not wanted or (self.rules.impartial and not side):
                continue
            undone = self.rules.unmoves(row, side, EXTRA_SEEDS) or []
            who = "a move" if self.rules.impartial else ("a Left move" if side else "a Right move")
            for g in undone:
                if origin == "found":
                    self.links.add(strip_ends(g))
                self._push(g, f"{who} to {label}")
        for g, what in _extensions(row):
            self._push(g, f"{what} {label}")

    def _push(self, row: State, how: str) -> None:
        row = strip_ends(row)
        if not row or row in self.values or sum(row) > self.bound["seeds"] + self.grow:
            return
        routes = self.routes.get(row, 0) + 1
        self.routes[row] = routes
        self.how.setdefault(row, how)
        heapq.heappush(self.frontier, _Item(_priority(row, routes), row))

    # -- the search ------------------------------------------------------------------------------
    def run(self, seconds: float, report: Callable[[dict[str, Any]], None] | None = None,
            command: str = "", pool: Any = None) -> list[dict[str, Any]]:
        """Value candidates for ``seconds`` (saving the state as it goes); returns the positions
        found in this run. ``pool`` (a ``studies.beyond_pool.CandidatePool``) values them in its
        worker processes; without it, ``valuer`` values them one by one in this process."""
        started = time.monotonic()
        self.deadline, self._started, self._saved, self._report = started + seconds, started, started, report
        found_before = len(self.found)
        self._run = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "seconds": 0.0,
                     "command": command, "candidates": 0}
        self.stats["runs"].append(self._run)
        try:
            if pool is None:
                while (row := self.next_candidate()) is not None:
                    budget = self.budget(row)
                    value, computed, hits = self.valuer(row, budget)
                    self.record(row, budget, None if value is None else text(value), computed, hits)
            else:
                pool.drive(self)
        finally:
            for row in list(self.pending):  # (valued by no one: back in the frontier)
                self.pending.discard(row)
                heapq.heappush(self.frontier, _Item(_priority(row, self.routes.get(row, 1)), row))
            now = time.monotonic()
            self._run["seconds"] = round(now - started, 1)
            self.save(now - self._saved)
        return self.found[found_before:]

    def next_candidate(self) -> State | None:
        """The simplest candidate not valued nor being valued (``None``: none, or the run's time is up)."""
        while self.frontier and time.monotonic() < self.deadline:
            row = heapq.heappop(self.frontier).row
            if row not in self.values and row not in self.pending:
                return row
        return None

    def budget(self, row: State) -> float:
        """The seconds ``row`` may take: ``candidate_seconds`` (a link of a chain ``CHAIN_FACTOR``
        times that), within the run's time left."""
        allowed = self.candidate_seconds * (CHAIN_FACTOR if row in self.links else 1)
        return min(allowed, max(self.deadline - time.monotonic(), 0.1))

    def record(self, row: State, budget: float, got: str | None, computed: int, hits: int) -> None:
        """Keep a candidate's value (``got``, braces text; ``None``: given up after ``budget``
        seconds), push the candidates it makes, and save the state every ``SAVE_SECONDS``."""
        self.pending.discard(row)
        self.stats["candidates"] += 1
        self._run["candidates"] += 1
        self.stats["computed"] += computed
        self.stats["memo_hits"] += hits
        seeds = sum(row)
        least, most = self.stats["least_seeds"], self.stats["most_seeds"]
        self.stats["least_seeds"] = seeds if least is None else min(least, seeds)
        self.stats["most_seeds"] = seeds if most is None else max(most, seeds)
        if got is None:
            self.stats["gave_up"] += 1
            self.values[row] = None
            self.gave_up[row] = budget
            return
        if computed == 0:
            self.stats["from_store"] += 1
        self.values[row] = got
        goals = {text(g.value): g for g in self.goals}
        if got in goals and not self._inside(row):
            self._found(row, got, goals[got], time.monotonic() - self._started)
        if got in self.useful:
            self._from_position(row, got, "found" if not self._inside(row) else "in the bound")
        now = time.monotonic()
        if self._report is not None and now - self._saved >= SAVE_SECONDS:
            self._run["seconds"] = round(now - self._started, 1)
            self.save(now - self._saved)
            self._saved = now
            self._report(self.progress())

    def _inside(self, row: State) -> bool:
        return sum(row) <= self.bound["seeds"] and len(row) <= self.bound["pots"]

    def _found(self, row: State, got: str, goal: Goal, at: float) -> None:
        self.found.append({"ruleset": self.rules.name, "position": self.rules.format(row), "value": got,
                           "label": text(goal.value, "unicode"), "seeds": sum(row), "pots": len(row),
                           "how": self.how.get(row, ""), "goal_depth": goal.depth,
                           "searched_seconds": round(float(self.stats["seconds"]) + at, 1),
                           "date": datetime.now(UTC).strftime("%Y-%m-%d")})

    def progress(self) -> dict[str, Any]:
        """Counts so far, for a progress line."""
        return {"candidates": self.stats["candidates"], "found": len(self.found), "frontier": len(self.frontier),
                "gave_up": self.stats["gave_up"], "seconds": self.stats["seconds"]}

    # -- the state in the store --------------------------------------------------------------
    def save(self, spent: float) -> None:
        """Keep the state in the store's document (``spent``: seconds since the last save)."""
        self.stats["seconds"] = round(float(self.stats["seconds"]) + spent, 1)
        self.documents.put(self.name, zlib.compress(json.dumps(self.state(), ensure_ascii=False).encode(), 6))

    def state(self) -> dict[str, Any]:
        """The state as the store's document keeps it (JSON)."""
        fmt = self.rules.format
        return {"format": FORMAT, "ruleset": self.rules.name, "value": text(self.target), "bound": self.bound,
                 "starts_per_value": self.starts_per_value, "grow": self.grow,
                 "candidate_seconds": self.candidate_seconds,
                 "goals": [{"value": text(g.value), "depth": g.depth, "stored": g.stored} for g in self.goals],
                 "useful": sorted(self.useful), "starts": self.starts, "stats": self.stats, "found": self.found,
                 "valued": [[fmt(r), v] for r, v in self.values.items()],
                 "gave_up": [[fmt(r), t] for r, t in self.gave_up.items()],
                 "links": [fmt(r) for r in self.links],
                 "frontier": [[fmt(row), self.routes.get(row, 1), self.how.get(row, "")]
                              for row in dict.fromkeys([*self.pending, *(i.row for i in self.frontier)])
                              if row not in self.values]}

    def _load(self) -> bool:
        """Read the state back (``False``: none, or of another bound or format)."""
        state = read_state(self.documents, self.name)
        if state is None:
            return False
        if state.get("format") != FORMAT or state.get("bound") != self.bound:
            return False
        from ruma.engine.cgt.notation import parse_game

        parse = self.rules.parse
        self.goals = []
        for g in state["goals"]:
            value = parse_game(g["value"])
            self.goals.append(Goal(_nim(self.rules, value), g["depth"], g["stored"]))
        self.useful = {t: _nim(self.rules, parse_game(t)) for t in state["useful"]}
        self.starts, self.stats, self.found = state["starts"], state["stats"], state["found"]
        self.values = {parse(p): v for p, v in state["valued"]}
        self.links = {parse(p) for p in state.get("links", [])}
        for f in self.found:  # (the predecessors of what was found: links of the chains)
            if f["value"] in self.useful:
                left, right = self._sides(f["value"])
                sides = [True] if self.rules.impartial else [s for s, w in ((True, left), (False, right)) if w]
                for side in sides:
                    self.links.update(strip_ends(g) for g in self.rules.unmoves(parse(f["position"]), side,
                                                                               EXTRA_SEEDS) or [])
        earlier = state["candidate_seconds"]
        self.gave_up = {parse(p): t for p, t in state.get("gave_up", [[p, earlier] for p, v in state["valued"]
                                                                     if v is None])}
        for row, after in list(self.gave_up.items()):  # given more time now: valued again
            if after < self.candidate_seconds * (CHAIN_FACTOR if row in self.links else 1) * 0.99:
                del self.values[row], self.gave_up[row]
                self.routes[row] = 1
                heapq.heappush(self.frontier, _Item(_priority(row, 1), row))
        for position, routes, how in state["frontier"]:
            row = parse(position)
            self.how[row] = how
            self.routes[row] = -routes[0] if isinstance(routes, list) else routes
            heapq.heappush(self.frontier, _Item(_priority(row, self.routes[row]), row))
        return True


def read_state(documents: Any, name: str) -> dict[str, Any] | None:
    """A search's saved state (``None``: none under ``name``)."""
    raw = documents.get(name)
    if raw is None:
        return None
    state: dict[str, Any] = json.loads(zlib.decompress(raw))
    return state


def _priority(row: State, routes: int) -> tuple[int, int, int, State]:
    """Simplest first — fewest seeds (a seed more multiplies a candidate's cost), then fewest pots —
    and among equals a candidate reached by two routes (a Left and a Right option, say) first."""
    return (sum(row), len(row), -min(routes, 2), row)


def _nim(rules: Ruleset, value: Game) -> Value:
    return int(value.nim_value) if rules.impartial and value.nim_value is not None else value


def _zero(value: Value) -> bool:
    return value == 0 if isinstance(value, int) else value == ZERO


def _extensions(row: State) -> Iterable[tuple[State, str]]:
    """One seed more in a pot; a one-seed pot added at either end."""
    for i in range(len(row)):
        yield row[:i] + (row[i] + 1,) + row[i + 1:], f"a seed added to pot {i + 1} of"
    yield (1,) + row, "a one-seed pot put before"
    yield row + (1,), "a one-seed pot put after"


def extent(state: dict[str, Any]) -> str:
    """What a search searched, in one sentence, from its saved state (``Beyond.state()``)."""
    stats, bound = state["stats"], state["bound"]
    seeds = f"{stats['least_seeds']}..{stats['most_seeds']} seeds" if stats["least_seeds"] is not None else "none"
    return (f"{stats['candidates']:,} candidates valued ({seeds}) in {float(stats['seconds']):,.0f} s over "
            f"{len(stats['runs'])} run(s), {stats['gave_up']:,} of them given up at the limit of "
            f"{state['candidate_seconds']:g} s a candidate"
            + (f" or {state['candidate_seconds'] * CHAIN_FACTOR:g} s a predecessor of a position found"
               if state.get("links") else "")
            + " (their values unknown); the candidates were predecessors and "
            f"extensions of the stored positions of the bound ({bound['seeds']} seeds, {bound['pots']} pots; at most "
            f"{state['starts_per_value']} of each option value held by at most {COMMON:,} of its raw positions) and "
            f"of the positions found on the way, up to {bound['seeds'] + state['grow']} seeds, simplest first; "
            f"{len(state['frontier']):,} candidates were left in the frontier")
