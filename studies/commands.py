"""The research commands: ``ruma census`` and ``ruma find`` (questions by value:
``studies.questions``), and ``ruma tables``: generate sections of ``docs/tables.md`` from sweeps
into the store.

    ruma census impartial-sowing --seeds 10 --simplest 3 --format csv
    ruma census atomic-wari --seeds 8 --by atomic-weight --server HOST:PORT
    ruma census sowing --seeds 13 --value '*3'             # only the positions of value ∗3
    ruma find sowing '*3' --seeds ..13                     # the simplest of them
    ruma tables sowing-values --seeds 14 --data DIR --write docs/tables.md
    ruma tables wari-nim --seeds 15 --data DIR --write docs/tables.md
    ruma tables followers --seeds 10 --budget 120 --data DIR --write docs/tables.md
    ruma tables table-3 --seeds 13 --data DIR          # Erickson's Tables 2-4, the atomic weights

Sections (``SECTIONS``): the questions' tables (``studies.open_questions``: ``sowing-values``,
``wari-nim``, ``followers``; and ``beyond``, gathered from the searches of ``ruma find --beyond``:
``studies.beyond_tables``), kept in the store as documents, so a run with the same bound reads
them back in seconds (``--recount`` computes them again); and Erickson's Tables 3, 4 and 2 and
the atomic-weight census (``studies.tables``: ``table-3``, ``table-4``, ``table-2``,
``atomic-weights``). ``--write FILE`` replaces each section in FILE (found by its heading; a new
section is added at the end) and leaves the rest of the file alone; without it the sections are
printed. ``--parts N`` tallies a large family in N parts, each kept in the store as it is done,
and ``--minutes M`` stops between two parts once M minutes have passed: the same command goes on
from there (``studies.tally_parts``), so a long census runs in pieces. ``python -m
ruma.studies.tables`` still writes the older four sections in one go.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any, Callable

from ruma.client.cli.errors import UsageError
from ruma.client.cli.options import add_data_option, positive, seconds

__all__ = ["register", "splice", "SECTIONS", "run_tables_command"]

QUESTIONS = ("sowing-values", "wari-nim", "followers")
ERICKSON = ("table-3", "table-4", "table-2", "atomic-weights")
BEYOND = "beyond"
SECTIONS = QUESTIONS + (BEYOND,) + ERICKSON
#: the headings of the older sections (``studies.tables``)
ERICKSON_HEADINGS = {
    "table-3": "## Table 3 — simplest impartial Sowing positions with value ∗n",
    "table-4": "## Table 4 — impartial Sowing starting positions (nim values)",
    "table-2": "## Table 2 — Sowing starting positions (CGSuite plain text)",
    "atomic-weights": "## Atomic weights of Atomic Wari positions",
}
DEFAULTS = {"sowing-values": 12, "wari-nim": 12, "followers": 8, "table-3": 12, "atomic-weights": 12}


def splice(text: str, heading: str, section: str) -> str:
    """``text`` with the section under ``heading`` (a ``## `` line, up to the next one) replaced
    by ``section``, or ``section`` added at the end when there is none."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == heading), None)
    body = section if section.endswith("\n") else section + "\n"
    if start is None:
        joined = "".join(lines)
        return joined + ("" if not joined or joined.endswith("\n\n") else "\n" if joined.endswith("\n") else "\n\n") + body
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = "".join(lines[end:])
    return "".join(lines[:start]) + body + ("\n" if tail and not body.endswith("\n\n") else "") + tail


def _question(args: argparse.Namespace, section: str, sink: Any, command: str) -> str:
    from ruma.studies import open_questions as questions
    from ruma.studies.markdown import render

    if section == BEYOND:
        from ruma.studies.beyond_tables import beyond, records

        document = beyond(sink, command)
        if args.records:
            lines = [json.dumps(record, ensure_ascii=False) for record in records(document)]
            Path(args.records).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            print(f"ruma tables: wrote {len(lines)} positions into {args.records}", file=sys.stderr)
        return render(document)
    seeds = args.seeds if args.seeds is not None else DEFAULTS[section]
    pots = args.pots if args.pots is not None else seeds
    if section == "sowing-values":
        document = questions.sowing_values(sink, seeds, pots, command, args.workers, args.recount, args.parts, args.minutes,
                                           args.chains)
    elif section == "wari-nim":
        document = questions.wari_nim(sink, seeds, pots, command, args.workers, args.recount, args.parts, args.minutes)
    else:
        document = questions.followers(sink, seeds, pots, args.budget, command, args.recount)
    return render(document)


def _erickson(args: argparse.Namespace, section: str, sink: Any) -> str:
    from ruma.studies import tables

    out: list[str] = []
    seeds = args.seeds if args.seeds is not None else DEFAULTS.get(section, 12)
    if section == "table-3":
        tables.table_3(sink, seeds, args.workers, out)
    elif section == "atomic-weights":
        tables.atomic_weights(sink, 0.0, args.workers, out, seeds)
    else:
        table, ruleset, fmt = ((tables.PAPER_TABLE_4, "impartial-sowing", str) if section == "table-4"
                               else (tables.PAPER_TABLE_2, "sowing", tables.ascii_of))
        tables.starting_positions(sink, ruleset, table, args.budget, args.max_n, fmt, ERICKSON_HEADINGS[section], out)
    return "\n".join(out).rstrip() + "\n"


def _command(args: argparse.Namespace, sections: list[str]) -> str:
    """The command as a person would type it again (the options that matter to the sections)."""
    words = ["ruma", "tables", *sections]
    if args.seeds is not None:
        words += ["--seeds", str(args.seeds)]
    if args.pots is not None:
        words += ["--pots", str(args.pots)]
    if "followers" in sections or "table-2" in sections or "table-4" in sections:
        words += ["--budget", f"{args.budget:g}"]
    if args.workers is not None:
        words += ["--workers", str(args.workers)]
    if args.parts != 1:
        words += ["--parts", str(args.parts)]
    if "sowing-values" in sections and args.chains != 300.0:
        words += ["--chains", f"{args.chains:g}"]
    words += ["--data", str(args.data)]
    if args.records and BEYOND in sections:
        words += ["--records", str(args.records)]
    if args.write:
        words += ["--write", str(args.write)]
    return " ".join(shlex.quote(w) for w in words)


def run_tables_command(args: argparse.Namespace) -> int:
    """``ruma tables``: compute the sections asked for and print them or splice them into a file."""
    from ruma.client.sweep.driver import StoreSink
    from ruma.studies.markdown import heading

    sections = args.sections or list(QUESTIONS)
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        raise UsageError(f"unknown section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    target = Path(args.write) if args.write else None
    if target is not None and target.exists() and not target.is_file():
        raise UsageError(f"--write {args.write!r} is not a file")
    command = _command(args, sections)
    sink = StoreSink(str(Path(args.data).expanduser()))
    try:
        for section in sections:
            text = (_question(args, section, sink, command) if section in QUESTIONS + (BEYOND,)
                    else _erickson(args, section, sink))
            if target is None:
                sys.stdout.write(text + "\n")
                sys.stdout.flush()
                continue
            title = heading(section) if section in QUESTIONS + (BEYOND,) else ERICKSON_HEADINGS[section]
            old = target.read_text(encoding="utf-8") if target.exists() else ""
            target.write_text(splice(old, title, text), encoding="utf-8")  # each section as soon as it is done
            print(f"ruma tables: wrote {section} into {target}", file=sys.stderr)
    finally:
        sink.close()
    return 0


def register(subparsers: Any) -> None:
    """Register ``census`` and ``find`` (``studies.questions``), and ``tables``."""
    from ruma.studies.questions import register_census, register_find

    register_census(subparsers)
    register_find(subparsers)
    parser = subparsers.add_parser(
        "tables", help="generate sections of docs/tables.md from sweeps into the store",
        description="Sweep what a section needs into the store, compute the section and print it (or splice it "
        "into --write FILE). Sections: " + ", ".join(SECTIONS) + " (default: the first three). The first three "
        "are kept in the store as documents: a re-run with the same bound reads them back. See docs/tables.md.")
    parser.add_argument("sections", nargs="*", metavar="SECTION", help="sections to generate (default: "
                        + ", ".join(QUESTIONS) + ")")
    add_data_option(parser)
    parser.add_argument("--seeds", type=positive, default=None, metavar="S",
                        help="the bound: every row of at most S seeds (followers: the most followers for 1..S seeds; "
                             "default 12, followers 8)")
    parser.add_argument("--pots", type=positive, default=None, metavar="P", help="... and at most P pots (default S)")
    parser.add_argument("--budget", type=seconds, default=60.0,
                        help="followers: seconds per family; table-2/table-4: seconds per position (default 60)")
    parser.add_argument("--max-n", type=positive, default=30, help="table-2/table-4: the longest series (default 30)")
    parser.add_argument("--workers", type=positive, default=None, help="sweep workers (default as ruma sweep's)")
    parser.add_argument("--parts", type=positive, default=1, metavar="N",
                        help="sowing-values/wari-nim: tally in N parts, each kept in the store when done (default 1)")
    parser.add_argument("--minutes", type=seconds, default=None, metavar="M",
                        help="stop between two parts of a tally once M minutes have passed (the same command goes on)")
    parser.add_argument("--chains", type=float, default=300.0, metavar="SECONDS",
                        help="sowing-values: seconds to follow chains of Right's moves beyond the bound (default 300; "
                             "0: none)")
    parser.add_argument("--recount", action="store_true", help="compute the sections even when the store holds them")
    parser.add_argument("--write", metavar="FILE", help="splice the sections into FILE instead of printing them")
    parser.add_argument("--records", metavar="FILE",
                        help="beyond: also write every position it lists into FILE, one JSON record a line "
                             "(docs/data/beyond.jsonl)")
    handler: Callable[[argparse.Namespace], int] = run_tables_command
    parser.set_defaults(handler=handler)
