"""Questions by value: ``ruma find`` and ``ruma census --value``, and the census they share.

    ruma find sowing '*3' --seeds ..13                 # the simplest Sowing positions of value ∗3
    ruma find impartial-sowing '*10' '*11' --seeds ..13 --simplest 1 --server HOST:PORT
    ruma census sowing --seeds 13 --value '*3' --value '^'
    ruma find sowing '^9' --beyond --seeds 14 --pots 14 --data DIR --seconds 600   # beyond the bound

``--beyond`` searches for positions of each value beyond the bound swept into the store, from the
stored positions of its option values (``studies.beyond``, resumable: run it again to go on); its
options are ``--seconds``, ``--candidate-seconds``, ``--starts`` and ``--grow``.

A census streams through the family (``ruma.engine.families.stream``): memory holds its rows, not
its millions of classes; restricted to some values, a local census compares the ids the store
keeps under each class (``census.values_among``) and builds no other value. When every class of the family is
stored, nothing is computed; otherwise the family is swept first (locally) or valued by the
server (``--server``).

Every answer states the exact bound searched: the seeds and the pots. Without ``--pots`` the pots
are what the seeds can fill (``ruma.engine.families.bounds``: the longest row of that many seeds
that the decomposition rules do not split), as far as a walk of ``WALK_BUDGET`` rows reaches; a
range narrower than the fill is said loudly, with the rows it leaves out.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from ruma.client.cli.errors import Exit, UsageError
from ruma.client.cli.options import add_format_option, add_notation_option, connect
from ruma.client.cli.output import Output
from ruma.client.sweep.commands import add_family_options, parse_range, run_family_sweep, store_sink

CENSUS_COLUMNS = ("by", "group", "nim_value", "classes", "raw_positions", "simplest")


@dataclass
class Question:
    """A family, the values asked about (none: every value) and what the answer holds."""

    family: Any
    fill: int
    values: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    classes: int = 0
    raw_positions: int = 0
    computed: int = 0
    missing: int = 0
    unverified: int = 0
    seconds: float = 0.0

    def bound(self) -> str:
        """The exact bound searched, in one line."""
        f = self.family
        return (f"searched {f.ruleset}: every row of {f.seeds_min}..{f.seeds_max} seeds in {f.pots_min}..{f.pots_max} "
                f"pots ({self.classes:,} classes, {self.raw_positions:,} raw positions"
                + (f"; {self.computed:,} classes valued first" if self.computed else "; all stored already")
                + (f"; {self.missing:,} classes NOT STORED, left out" if self.missing else "")
                + (f"; {self.unverified:,} classes counted by values uploaded to the server and not re-valued by it "
                   f"yet (unverified: they may be wrong)" if self.unverified else "") + ")")

    def narrower(self) -> str | None:
        """The loud line when the pots searched fall short of what the seeds can fill, else ``None``."""
        f = self.family
        if f.pots_max >= self.fill:
            return None
        return (f"NOT SEARCHED: rows of {f.pots_max + 1}..{self.fill} pots. Up to {f.seeds_max} seeds can fill "
                f"{self.fill} pots without splitting into independent parts; give --pots 1..{self.fill} to search "
                f"them (a longer walk)")


def family_of(args: argparse.Namespace) -> tuple[Any, int]:
    """The family of a question and what its seeds can fill: ``--pots`` as given, else the pots
    the seeds can fill as far as the walk budget reaches (``bounds.question_pots``)."""
    from ruma.engine.families.bounds import fill_pots, question_pots
    from ruma.engine.families.classes import Family

    seeds = parse_range(args.seeds, 0, "seeds")
    if args.pots:
        family = Family.of(args.ruleset, seeds, parse_range(args.pots, 1, "pots"))
        return family, fill_pots(family.ruleset, family.seeds_max)
    family = Family.of(args.ruleset, seeds)  # (checks the ruleset and the seeds first)
    pots, fill = question_pots(family.ruleset, (family.seeds_min, family.seeds_max))
    return Family.of(family.ruleset, seeds, (1, pots)), fill


def parse_values(rules: Any, texts: Sequence[str]) -> list[Any]:
    """The values asked about, as games (an error quotes the text)."""
    from ruma.engine.cgt.notation import parse_game
    from ruma.engine.errors import RumaInputError

    out = []
    for text in texts:
        try:
            out.append(parse_game(text))
        except RumaInputError as error:
            raise UsageError(f"value {text!r}: {error}") from None
    return out


def row_record(rules: Any, by: str, row: Any, notation: str) -> dict[str, Any]:
    """The ``census-row`` record of a local row."""
    group = row.group
    nim = group if isinstance(group, int) and not isinstance(group, bool) else getattr(group, "nim_value", None)
    return {"by": by, "group": row.label(notation), "nim_value": nim, "classes": row.classes,
            "raw_positions": row.raw_positions, "simplest": [rules.format(rep) for rep, _, _ in row.simplest],
            "simplest_canonical": [rules.format(state) for _, state, _ in row.simplest], "unverified": row.unverified}


def ask_locally(args: argparse.Namespace, question: Question, by: str, simplest: int) -> None:
    """The census of ``question`` from the local store, sweeping the family first if any of its
    classes is not stored."""
    from ruma.engine.families.census import tally, values_among, wanted_values
    from ruma.engine.families.stream import stream_classes
    from ruma.engine.memo import capabilities

    started = time.perf_counter()
    family = question.family
    rules = family.rules
    wanted = wanted_values(rules, parse_values(rules, question.values)) if question.values else None
    sink = store_sink(args)  # (a missing store is created, as a sweep does: what it lacks is valued first)
    try:
        store = sink.store
        values_of = values_among(store, rules, wanted) if wanted is not None else store.lookup_many
        persistent = capabilities(store).store
        marked = persistent.provenance.unverified_among if persistent is not None else None
        counted = tally(rules, stream_classes(family), values_of, by, simplest, wanted, stop_at_missing=True,
                        marked=marked)
        if counted.missing:  # the family is not swept yet: sweep it, then count again
            question.computed = run_family_sweep(args, family, sink).classes_valued
            sink.flush()
            if wanted is not None:
                values_of = values_among(store, rules, wanted)  # (the sweep may have stored them first)
            counted = tally(rules, stream_classes(family), values_of, by, simplest, wanted, marked=marked)
    finally:
        sink.close()
    question.records = [row_record(rules, by, row, args.notation) for row in counted.rows()]
    question.classes, question.raw_positions, question.missing = counted.classes, counted.raw_positions, counted.missing
    question.unverified = counted.unverified
    question.seconds = time.perf_counter() - started


def ask_server(args: argparse.Namespace, question: Question, by: str, simplest: int) -> None:
    """The census of ``question`` from the server, which values what it lacks first."""
    family = question.family
    parse_values(family.rules, question.values)  # (a malformed value is refused here, quoted)
    with connect(args) as client:
        result = client.census(family.ruleset, (family.seeds_min, family.seeds_max), (family.pots_min, family.pots_max),
                               by=by, simplest=simplest, notations=[args.notation], compute_missing=True,
                               values=question.values)
    question.records = [row.to_dict(args.notation) for row in result.rows]
    s = result.summary
    if s is not None:
        question.classes, question.raw_positions, question.computed = s.classes, s.raw_positions, s.computed
        question.missing, question.seconds, question.unverified = s.missing, s.seconds, s.unverified


def ask(args: argparse.Namespace, values: Sequence[str], by: str, simplest: int) -> Question:
    """The question of ``args`` answered (locally, or by ``--server``)."""
    family, fill = family_of(args)
    question = Question(family, fill, list(values))
    (ask_server if args.server else ask_locally)(args, question, by, simplest)
    return question


def state_bound(question: Question, stream: Any = None) -> None:
    """Print the bound searched (and the loud line when it falls short of the fill) to ``stream``."""
    out = stream if stream is not None else sys.stderr
    sys.stdout.flush()  # (after the records, when the two streams share a terminal)
    print(f"# {question.bound()}", file=out)
    loud = question.narrower()
    if loud is not None:
        print(f"# {loud}", file=out)


def run_census_command(args: argparse.Namespace) -> int:
    """``ruma census``: per group, how many classes and raw positions, and the simplest positions
    (``--value``: only those values); the bound searched goes to stderr."""
    question = ask(args, args.value or [], args.by, args.simplest)
    columns = CENSUS_COLUMNS + ("unverified",) if question.unverified else CENSUS_COLUMNS
    with Output(args.format, columns) as out:
        for record in question.records:
            shown = dict(record)
            if args.format != "json":
                shown["simplest"] = " ".join(record["simplest"])
            out.emit(shown)
    state_bound(question)
    return Exit.OK


def run_find(args: argparse.Namespace) -> int:
    """``ruma find``: the simplest positions of each value, within the bound it states. A value
    with no position there is a correct answer, said as one line on stderr (exit 0). ``--beyond``:
    the search beyond the bound (``studies.beyond_command``)."""
    if args.beyond:
        from ruma.studies.beyond_command import run_find_beyond

        return run_find_beyond(args)
    question = ask(args, args.values, "value", args.simplest)
    rules = question.family.rules
    wanted = parse_values(rules, args.values)
    found = {record["group"]: record for record in question.records}
    text = args.format == "text"
    if text:
        state_bound(question, sys.stdout)
    status = Exit.OK
    with Output(args.format, CENSUS_COLUMNS) as out:
        for value, asked in zip(wanted, args.values):
            from ruma.client.records import formatted

            label = formatted(value, args.notation) or asked
            record = found.get(label)
            if record is None:
                print(f"{args.command_prog}: no {rules.name} position of value {label} in this bound", file=sys.stderr)
                continue
            unverified = f" ({record['unverified']:,} of them by unverified uploads)" if record["unverified"] else ""
            lines = [f"{label}: {record['classes']:,} classes{unverified}, {record['raw_positions']:,} raw positions; "
                     f"the simplest {len(record['simplest'])}:"]
            lines += [f"  {p}  ({_size(p, rules)})" for p in record["simplest"]]
            out.emit(record, "\n".join(lines))
    if not text:
        state_bound(question)
    return status


def _size(position: str, rules: Any) -> str:
    state = rules.parse(position)
    return f"{sum(state)} seeds, {len(state)} pots"


def register_census(subparsers: Any) -> None:
    """Register ``ruma census``."""
    census = subparsers.add_parser(
        "census", help="count a family's classes and raw positions per value",
        description="For a family (sweeping first what the store lacks): per value (or outcome, atomic weight, "
        "temperature), how many classes and raw positions have it, and the K simplest positions — fewest "
        "seeds, then fewest pots, then the smallest row. --value keeps only some values. The bound searched "
        "is stated on stderr. See docs/sweeps.md.")
    add_family_options(census, question=True)
    census.add_argument("--by", choices=("value", "outcome", "atomic-weight", "temperature"), default="value")
    census.add_argument("--value", action="append", metavar="V",
                        help="only the positions of this value, e.g. '*3' or '^' (repeatable)")
    census.add_argument("--simplest", type=int, default=3, metavar="K", help="positions listed per row (default 3)")
    add_format_option(census)
    add_notation_option(census)
    census.set_defaults(handler=run_census_command)


def register_find(subparsers: Any) -> None:
    """Register ``ruma find``."""
    find = subparsers.add_parser(
        "find", help="the simplest positions of a value in a family (a question by value)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_family_options(find, question=True)
    find.add_argument("values", nargs="+", metavar="VALUE", help="a value: *3, ^, {1|0}, 1/2 (several: each answered)")
    find.add_argument("--simplest", type=int, default=5, metavar="K", help="positions listed per value (default 5)")
    add_format_option(find, formats=("text", "table", "json", "csv"))
    add_notation_option(find)
    from ruma.studies.beyond_command import add_beyond_options

    add_beyond_options(find)
    find.set_defaults(handler=run_find)
