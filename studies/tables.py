"""Generate ``docs/tables.md``: Erickson's Tables 2, 3 and 4 from sweeps, extended, and an
atomic-weight census of Atomic Wari.

    python -m ruma.studies.tables --data ./ruma-data --seeds3 12 --budget 20 --aw-seeds 12 > docs/tables.md

Re-runnable: everything goes through the store in ``--data`` (what is stored is not valued
again), and the knobs say how far each table reaches — ``--seeds3`` (Table 3's exhaustive sweep:
impartial Sowing, every row of at most that many seeds and pots), ``--budget`` (seconds one
starting position of Tables 2 and 4 may take: it is stopped then and its series ends; what it
valued stays in the store, so a re-run goes on from there), ``--aw-seeds``
(the atomic-weight census covers 1..N seeds; or ``--aw-seconds``: as many as fit in that time).
Each section says how long it took, and is written out as soon as it is done (a stopped run keeps
the sections it finished). Entries that differ from the paper are marked ``≠``. The sections of
``ruma tables`` the store keeps (``studies.open_questions``) follow, as they were computed; ``ruma tables``
(``studies.commands``) generates any of these sections alone and splices it into the file.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from typing import Any, Callable

from ruma.client.sweep.driver import StoreSink, run_sweep
from ruma.engine.cgt import Game, format_value, nimber
from ruma.engine.errors import CancelledError, LimitExceededError
from ruma.engine.evaluator import evaluate
from ruma.engine.families.census import census
from ruma.engine.families.classes import Family, enumerate_family, simplicity

#: Table 3 as the paper prints it (value -> (fewest seeds, fewest pots))
PAPER_TABLE_3 = {0: ("102", "102"), 1: ("11", "11"), 2: ("111", "111"), 3: ("1112", "1112"),
                 4: ("110111", "11131"), 5: ("111121", "12113"), 6: ("10111121", "111312"),
                 7: ("11101112", "1111113"), 8: ("11112111", "11112111"), 9: ("11111122", "11132112")}
#: Table 4 (impartial) as printed, where legible: series -> {n: nim value}
PAPER_TABLE_4 = {
    "1^n": {2: 1, 3: 2, 4: 0, 5: 0, 6: 1, 7: 2, 8: 0, 9: 0, 10: 1, 11: 0, 12: 0},
    "•1^n•": {1: 1, 2: 2, 3: 0, 4: 0, 5: 1, 6: 0, 7: 4, 8: 0, 9: 2, 10: 0},
    "←•1^n•→": {1: 1, 2: 0},
    "2^n": {3: 1, 4: 2, 5: 3, 6: 0, 7: 0, 8: 2},
    "•2^n•": {2: 1, 3: 1, 4: 1, 5: 0, 6: 0, 7: 2},
    "3^n": {4: 1, 5: 2, 6: 0, 7: 3, 8: 3},
    "•3^n•": {3: 1, 4: 1, 5: 3, 6: 0, 7: 2},
}
#: Table 2 (partizan) as printed, where legible (CGSuite plain text)
PAPER_TABLE_2 = {
    "1^n": {2: "*", 3: "0", 4: "+-1/2", 5: "0", 6: "0", 7: "*2", 8: "*", 9: "0"},
    "•1^n•": {1: "*", 2: "0", 3: "0", 4: "{0,{1|0}|0,{0|-1}}", 5: "0", 6: "*", 8: "0"},
    "←•1^n•→": {1: "*", 2: "0", 3: "0", 4: "0", 6: "0"},
    "2^n": {3: "*", 4: "*", 5: "0", 7: "*"},
    "•2^n•": {2: "*", 3: "*2", 5: "*", 6: "0"},
    "←•2^n•→": {2: "0", 3: "+-1", 4: "0", 6: "*"},
    "3^n": {4: "*", 5: "*", 6: "*", 7: "*"},
    "•3^n•": {3: "*", 5: "{1/2,{1|*}|-1/2,{*|-1}}", 6: "*"},
    "←•3^n•→": {2: "0", 3: "+-1"},
}
#: values longer than this are summarised in the tables (mean, temperature, how to print them)
LONG = 60
SERIES = {"1^n": (1, "{n}"), "•1^n•": (1, "•{n}•"), "←•1^n•→": (1, "←{n}"), "2^n": (2, "{n}"),
          "•2^n•": (2, "•{n}•"), "←•2^n•→": (2, "←{n}"), "3^n": (3, "{n}"), "•3^n•": (3, "•{n}•"),
          "←•3^n•→": (3, "←{n}")}


def series_position(name: str, n: int) -> str:
    """The position ``n`` of a series, in ruma's notation (``←`` means full pots forever: as many
    as the seeds suffice, rule N3)."""
    digit, shape = SERIES[name]
    core = f"{digit}^{{{n}}}"
    if shape.startswith("←"):
        return f"#^{{{digit * n}}} {core} #^{{{digit * n}}}"
    if shape.startswith("•"):
        return f"#{core}#"
    return core


def _say(out: list[str], line: str = "") -> None:
    out.append(line)


def table_3(store: Any, seeds: int, workers: int | None, out: list[str]) -> None:
    """Simplest impartial Sowing positions per nim value, from an exhaustive sweep."""
    started = time.perf_counter()
    family = Family.of("impartial-sowing", (0, seeds), (1, seeds))
    classes = enumerate_family(family)
    run_sweep(family, store, workers=workers, classes=classes)
    rules = family.rules
    by_seeds: dict[int, tuple[Any, ...]] = {}
    by_pots: dict[int, tuple[Any, ...]] = {}
    counts: dict[int, int] = defaultdict(int)
    lookup = store.store.lookup
    for c in classes:
        value = lookup(c.key)
        rep = c.simplest()
        if value == 0 and not list(rules.options(c.state)):
            continue  # Erickson's 0 is the simplest position with a move (102), not an empty row
        counts[value] += c.raw_total
        s_key = simplicity(rep)
        p_key = (len(rep), sum(rep), rep)
        if value not in by_seeds or s_key < by_seeds[value][0]:
            by_seeds[value] = (s_key, rep)
        if value not in by_pots or p_key < by_pots[value][0]:
            by_pots[value] = (p_key, rep)
    seconds = time.perf_counter() - started
    _say(out, "## Table 3 — simplest impartial Sowing positions with value ∗n")
    _say(out)
    _say(out, f"Exhaustive: every row of at most {seeds} seeds and at most {seeds} pots "
              f"({len(classes):,} classes, {sum(c.raw_total for c in classes):,} raw positions), "
              f"{seconds:,.0f} s including the sweep. Fewest seeds (ties: fewest pots, then the smallest "
              f"row); fewest pots (ties: fewest seeds, then the smallest row). For 0, the simplest "
              f"position with a move. Positions with more pots than {seeds} were not searched, so a "
              f"fewest-seeds entry is certain only among rows of at most {seeds} pots.")
    _say(out)
    _say(out, "| value | fewest seeds | seeds/pots | paper | fewest pots | pots/seeds | paper | raw positions with the value |")
    _say(out, "|---|---|---|---|---|---|---|---:|")
    for value in sorted(by_seeds):
        (s_key, s_rep), (p_key, p_rep) = by_seeds[value], by_pots[value]
        paper = PAPER_TABLE_3.get(value, ("—", "—"))
        s_text, p_text = rules.format(s_rep), rules.format(p_rep)
        s_mark = "" if paper[0] in ("—", s_text) else " ≠"
        p_mark = "" if paper[1] in ("—", p_text) else " ≠"
        _say(out, f"| ∗{value} | `{s_text}` | {s_key[0]}/{s_key[1]} | `{paper[0]}`{s_mark} | `{p_text}` | "
                  f"{p_key[0]}/{p_key[1]} | `{paper[1]}`{p_mark} | {counts[value]:,} |")
    _say(out)


def starting_positions(store: Any, ruleset: str, paper: dict[str, dict[int, Any]], budget: float,
                       max_n: int, fmt: Callable[[Any], str], title: str, out: list[str]) -> None:
    """Series of starting positions valued until one takes more than ``budget`` seconds."""
    started = time.perf_counter()
    memo = store.store
    _say(out, title)
    _say(out)
    _say(out, "| series | n: value (`≠`: differs from the paper's entry) |")
    _say(out, "|---|---|")
    reach: list[str] = []
    for name in SERIES:
        if name not in paper:
            continue
        cells = []
        for n in range(1, max_n + 1):
            position = series_position(name, n)
            deadline = time.monotonic() + budget
            try:
                value = evaluate(ruleset, position, memo, max_positions=50_000_000,
                                 should_cancel=lambda: time.monotonic() > deadline).value
            except (LimitExceededError, CancelledError):  # stopped: what it valued stays in the store
                break
            text = fmt(value)
            if len(text) > LONG:
                game = value if isinstance(value, Game) else nimber(value)
                text = (f"(a canonical form of {len(text):,} characters: mean {game.mean}, temperature "
                        f"{game.temperature}; `ruma eval {ruleset} '{position}'`)")
            printed = paper[name].get(n)
            mark = "" if printed is None or _same(value, printed) else f" ≠ paper {printed}"
            cells.append(f"{n}: {text}{mark}")
        reach.append(f"{name} to n = {len(cells)}")  # cells hold n = 1, 2, ... without a gap
        _say(out, f"| `{name}` | " + "; ".join(cells) + " |")
    _say(out)
    _say(out, f"Reached: {', '.join(reach)} ({time.perf_counter() - started:,.0f} s; a series ends at the first "
              f"position not valued within {budget:g} s).")
    _say(out)


def _same(value: Any, printed: Any) -> bool:
    """Whether a computed value equals the paper's entry (a nim value, or CGSuite text)."""
    if isinstance(printed, int):
        return bool(value == printed)
    from ruma.engine.cgt import parse_game

    return bool(parse_game(printed) == value)


def atomic_weights(store: Any, seconds: float, workers: int | None, out: list[str], upto: int | None = None) -> None:
    """Atomic weights of Atomic Wari positions, per number of seeds: ``s = 1..upto``, or until
    ``seconds`` are spent (the next family, about 3x larger, would not fit)."""
    started = time.perf_counter()
    columns: dict[int, dict[str, int]] = {}
    examples: dict[str, str] = {}
    s = 0
    while (s < upto) if upto is not None else (time.perf_counter() - started < seconds):
        s += 1
        family = Family.of("atomic-wari", (s, s), (1, s))
        t = time.perf_counter()
        classes = enumerate_family(family)
        run_sweep(family, store, workers=workers, classes=classes)
        rows = census(family.rules, classes, store.store.lookup, "atomic-weight", 1)
        columns[s] = {row.label("unicode"): row.raw_positions for row in rows}
        for row in rows:
            label = row.label("unicode")
            if label not in examples and row.simplest:
                examples[label] = family.rules.format(row.simplest[0][0])
        if upto is None and (time.perf_counter() - t) * 3 > seconds - (time.perf_counter() - started):
            break  # the next family (about 3x larger) would not fit
    weights = sorted({w for column in columns.values() for w in column}, key=_weight_order)
    _say(out, "## Atomic weights of Atomic Wari positions")
    _say(out)
    _say(out, f"Every row of exactly s seeds in at most s pots (raw positions, both orientations), s = 1..{s}; "
              f"{time.perf_counter() - started:,.0f} s. The paper saw 0, ±1, ±2 and, rarely, ±3.")
    _say(out)
    _say(out, "| atomic weight | simplest | " + " | ".join(f"s = {k}" for k in columns) + " |")
    _say(out, "|---|---|" + "---:|" * len(columns))
    for w in weights:
        _say(out, f"| {w} | `{examples.get(w, '')}` | " + " | ".join(f"{columns[k].get(w, 0):,}" for k in columns) + " |")
    _say(out)


def ascii_of(value: Any) -> str:
    """A value (a game or a nim value) in CGSuite plain text."""
    return format_value(value, "ascii")


def _weight_order(label: str) -> tuple[int, Any]:
    from fractions import Fraction

    try:
        return (0, Fraction(label.replace("−", "-").replace("½", "1/2")))
    except ValueError:
        return (1, label)


def main(argv: list[str] | None = None) -> int:
    """Write the tables (Markdown) to stdout."""
    parser = argparse.ArgumentParser(prog="python -m ruma.studies.tables", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="the store to sweep into and read from")
    parser.add_argument("--seeds3", type=int, default=12, help="Table 3: seeds and pots of the exhaustive sweep")
    parser.add_argument("--budget", type=float, default=60.0, help="Tables 2 and 4: seconds per position before a series stops")
    parser.add_argument("--max-n", type=int, default=30, help="Tables 2 and 4: the longest series")
    parser.add_argument("--aw-seconds", type=float, default=600.0, help="atomic-weight census: seconds to spend")
    parser.add_argument("--aw-seeds", type=int, default=None, help="atomic-weight census: seeds 1..N (instead of --aw-seconds)")
    parser.add_argument("--workers", type=int, default=None,
                        help="sweep workers (default: as ruma sweep's, all cores)")
    args = parser.parse_args(argv)
    store = StoreSink(args.data)
    out: list[str] = ["# Tables: Erickson's Tables 2, 3 and 4, extended, a census of atomic weights, and his open questions",
                      "",
                      "The sections on Erickson's open questions (Sowing values 2^-n, n·↑, +_x, ∗n; Table 3 for Impartial "
                      "Atomic Wari; followers) are generated by `ruma tables`, each with its own command, wall time, "
                      "peak memory and bound at its top.", "",
                      "Generated by `python -m ruma.studies.tables --data DIR "
                      f"--seeds3 {args.seeds3} --budget {args.budget:g} "
                      + (f"--aw-seeds {args.aw_seeds}` " if args.aw_seeds else f"--aw-seconds {args.aw_seconds:g}` ")
                      +
                      "(see `python -m ruma.studies.tables --help`); every value is exact and in the store. "
                      "Disagreements with the paper are discussed in docs/discrepancies.md.", ""]
    sections: list[Callable[[], None]] = [
        lambda: table_3(store, args.seeds3, args.workers, out),
        lambda: starting_positions(store, "impartial-sowing", PAPER_TABLE_4, args.budget, args.max_n, lambda v: str(v),
                                   "## Table 4 — impartial Sowing starting positions (nim values)", out),
        lambda: starting_positions(store, "sowing", PAPER_TABLE_2, args.budget, args.max_n, ascii_of,
                                   "## Table 2 — Sowing starting positions (CGSuite plain text)", out),
        lambda: atomic_weights(store, args.aw_seconds, args.workers, out, args.aw_seeds),
    ]
    try:
        for section in sections:
            section()
            sys.stdout.write("\n".join(out) + "\n")  # each section as soon as it is done
            sys.stdout.flush()
            out.clear()
        _stored_sections(store)
    finally:
        store.close()
    return 0


def _stored_sections(store: StoreSink) -> None:
    """The sections of ``ruma tables`` the store keeps (``studies.open_questions``), as they were computed."""
    from ruma.studies.markdown import render
    from ruma.studies.open_questions import SECTIONS, stored

    for name in SECTIONS:
        document = stored(store, name)
        if document is not None:
            sys.stdout.write(render(document) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["main", "series_position", "ascii_of", "table_3", "starting_positions", "atomic_weights", "Game"]
