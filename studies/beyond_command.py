"""``ruma find RULESET VALUE --beyond``: the value-directed search of ``studies.beyond`` on a local
store, for ``--seconds`` (resumable: run it again to go on).

    ruma find sowing '1/512' --beyond --seeds 14 --data DIR --seconds 600
    ruma find impartial-atomic-wari '*9' --beyond --seeds 14 --data DIR --seconds 300 --json

``--workers N`` worker processes value the candidates (``studies.beyond_pool``; default: all
cores; 1: this process). ``--seeds``/``--pots`` name the bound swept into the store (what it lacks
is swept first, as ``ruma find`` does); the starts are the simplest stored positions of the option values there. The
positions found (every one so far, ``new`` when this run found it) are printed as
``beyond-position`` records; what was searched goes to stderr — never a claim that the value has
no position.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any

from ruma.client.cli.errors import Exit, UsageError
from ruma.client.cli.output import Output
from ruma.engine.cgt import Value
from ruma.engine.rulesets.base import State

COLUMNS = ("position", "value", "seeds", "pots", "how", "new")


class CensusCache:
    """The census of the bound for the values a search asks about, asked once for all of them
    (one pass over the family) and kept in the store (``beyond/census/RULESET/SEEDS-POTS``), so
    every later search of the bound reads it back."""

    def __init__(self, args: argparse.Namespace, rules: Any, bound: dict[str, int], documents: Any) -> None:
        self.args, self.rules, self.documents = args, rules, documents
        self.name = f"beyond/census/{rules.name}/{bound['seeds']}-{bound['pots']}-{args.starts}"
        raw = documents.get(self.name)
        self.held: dict[str, list[Any]] = json.loads(raw) if raw is not None else {}

    def prefetch(self, targets: list[Value], depth: int) -> None:
        """Count every option value ``depth`` levels down from ``targets`` in one pass."""
        from ruma.studies.beyond import option_values, text

        values: dict[str, Value] = {}
        level = list(targets)
        for _ in range(depth):
            level = [v for g in level for side in option_values(self.rules, g) for v in side]
            values.update({text(v): v for v in level})
        self._count([v for t, v in values.items() if t not in self.held])

    def __call__(self, values: list[Value]) -> dict[Value, tuple[int, list[State]]]:
        from ruma.studies.beyond import text

        self._count([v for v in values if text(v) not in self.held])
        return {v: (self.held[text(v)][0], [self.rules.parse(p) for p in self.held[text(v)][1]]) for v in values}

    def _count(self, values: list[Value]) -> None:
        if not values:
            return
        from ruma.engine.cgt.notation import parse_game
        from ruma.engine.families.census import wanted_values
        from ruma.studies.beyond import text
        from ruma.studies.questions import ask

        asked = argparse.Namespace(**{**vars(self.args), "notation": "braces"})
        question = ask(asked, [text(v) for v in values], "value", self.args.starts)
        for v in values:
            self.held[text(v)] = [0, []]
        for record in question.records:
            value = wanted_values(self.rules, [parse_game(record["group"])])[0]
            if text(value) in self.held:
                self.held[text(value)] = [record["raw_positions"], record["simplest"]]
        self.documents.put(self.name, json.dumps(self.held).encode())


def _record(found: dict[str, Any], notation: str, new: bool) -> dict[str, Any]:
    from ruma.engine.cgt import format_value
    from ruma.engine.cgt.notation import parse_game

    return {"ruleset": found["ruleset"], "position": found["position"],
            "value": format_value(parse_game(found["value"]), notation), "seeds": found["seeds"],
            "pots": found["pots"], "how": found["how"], "new": new}


def run_find_beyond(args: argparse.Namespace) -> int:
    """Search for positions of each value beyond the bound, for ``--seconds`` each."""
    from ruma.client.sweep.commands import store_sink
    from ruma.client.sweep.driver import default_workers
    from ruma.studies.beyond import DEPTH, Beyond, extent, text
    from ruma.studies.beyond_pool import CandidatePool, valuer
    from ruma.studies.questions import family_of, parse_values

    if args.server:
        raise UsageError("--beyond searches a local store", "give --data DIR instead of --server")
    family, _ = family_of(args)
    rules = family.rules
    from ruma.engine.families.census import wanted_values

    targets = wanted_values(rules, parse_values(rules, args.values))
    if len(targets) != len(args.values):
        raise UsageError(f"{rules.name} is impartial: its values are nimbers, not {' '.join(args.values)!r}")
    if rules.unmoves((1,), True) is None:
        raise UsageError(f"{rules.name} cannot undo its moves, so --beyond cannot search it")
    bound = {"seeds": family.seeds_max, "pots": family.pots_max}
    command = " ".join(["ruma find", rules.name, *args.values, "--beyond", "--seeds", str(args.seeds),
                        *(["--pots", str(args.pots)] if args.pots else []), "--seconds", f"{args.seconds:g}"])
    sink = store_sink(args)
    workers = args.workers or default_workers()
    pool = None
    stop = signal.signal(signal.SIGTERM, _interrupted)  # (a search stopped so saves its state first)
    try:
        census = CensusCache(args, rules, bound, sink.store.documents)
        census.prefetch(targets, DEPTH + 1)
        sink.flush()  # (the bound and the census committed before the workers read the store)
        pool = CandidatePool(rules, sink.store, workers) if workers > 1 else None
        with Output(args.format, COLUMNS) as out:
            for value, asked in zip(targets, args.values):
                search = Beyond(rules, value, bound, sink.store.documents, valuer(rules, sink.store),
                                census, args.starts, args.grow,
                                args.candidate_seconds)
                goals = ", ".join(f"{text(g.value, 'unicode')} (depth {g.depth})" for g in search.goals)
                print(f"{args.command_prog}: {asked}: goals {goals}; starts from "
                      + (", ".join(f"{t} ({len(p)})" for t, p in search.starts.items()) or "nothing"), file=sys.stderr)

                def report(p: dict[str, Any], asked: str = asked) -> None:
                    if args.progress:
                        print(f"{args.command_prog}: {asked}: {p['candidates']:,} candidates valued, {p['found']} found, "
                              f"{p['gave_up']} given up, frontier {p['frontier']:,}, {p['seconds']:,.0f} s", file=sys.stderr)

                new = search.run(args.seconds, report, command, pool)
                fresh = {f["position"] for f in new}
                for found in sorted(search.found, key=lambda f: (f["goal_depth"], f["seeds"], f["pots"], f["position"])):
                    record = _record(found, args.notation, found["position"] in fresh)
                    out.emit(record, f"{record['position']}  {record['value']}  ({record['seeds']} seeds, "
                                     f"{record['pots']} pots){' new' if record['new'] else ''}: {record['how']}")
                sink.flush()
                sys.stdout.flush()
                print(f"# {asked}: {len(search.found)} positions found; searched: {extent(search.state())}",
                      file=sys.stderr)
    finally:
        signal.signal(signal.SIGTERM, stop)
        if pool is not None:
            pool.close()
        sink.close()
    return Exit.OK


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def add_beyond_options(find: argparse.ArgumentParser) -> None:
    """``--beyond`` and its options on ``ruma find``."""
    from ruma.client.cli.options import positive, seconds

    find.add_argument("--beyond", action="store_true",
                      help="search for positions of each value beyond the bound, from the stored positions of its "
                           "option values (resumable; see docs/tables.md, 'Beyond the bound')")
    find.add_argument("--seconds", type=seconds, default=60.0, metavar="S",
                      help="--beyond: seconds this run searches for each value (default 60)")
    find.add_argument("--candidate-seconds", type=seconds, default=10.0, metavar="S",
                      help="--beyond: seconds one candidate may take to value (default 10)")
    find.add_argument("--starts", type=positive, default=100, metavar="K",
                      help="--beyond: stored positions of each option value to start from (default 100)")
    find.add_argument("--grow", type=int, default=3, metavar="N",
                      help="--beyond: candidates up to N seeds more than the bound (default 3)")
