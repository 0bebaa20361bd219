"""Re-value the entries of the questions' tables in docs/tables.md with the reference evaluators.

    python tests/support/reference_tables.py [--max-seeds N] [--seconds S] [--doc docs/tables.md]

The positions of the ``sowing-values`` section (simplest and fewest pots) are valued by the
cgt-py reference evaluator, those of ``wari-nim`` by the pycgt one (``reference_evaluators``: their
own move generators, no normalisation, one cache of followers for all), smallest first, and each
is compared with the value its row names, built in cgt-py or pycgt from its definition
(``2^-3`` is ``1/8``, ``2·↑`` is ``^`` added twice, ``+_x`` is ``{0|{0|-x}}``, ``∗n``). Prints
one line an entry and a summary; exits 1 on a disagreement. ``--seconds`` stops starting new
positions after that long (the reference evaluators value every follower without the
evaluator's reductions: seconds to minutes a position at 12 to 14 seeds).
``tests/studies/test_tables_entries.py`` runs it on the entries of at most 10 seeds.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "tables.md"
SECTIONS = {"## Sowing values of Erickson's §2 questions": "sowing",
            "## Table 3 for Impartial Atomic Wari": "impartial-atomic-wari"}
ROW = re.compile(r"^\| (?P<label>[^|]+?) \| `(?P<simplest>[^`]+)` \| (?P<seeds>\d+)/(?P<pots>\d+) \| `(?P<fewest>[^`]+)` \|")


@dataclass(frozen=True)
class Entry:
    """One position of a table: its ruleset, the row's label, the position and its role."""

    ruleset: str
    label: str
    position: str
    role: str  # "simplest" or "fewest pots"


def rows(doc: Path, heading: str) -> list[re.Match[str]]:
    """The table rows of one section."""
    text = doc.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return [m for m in map(ROW.match, text[start:end if end >= 0 else len(text)].splitlines()) if m]


def entries(doc: Path = DOC) -> Iterator[Entry]:
    """Every simplest and fewest-pots position of the two sections."""
    for heading, ruleset in SECTIONS.items():
        for m in rows(doc, heading):
            yield Entry(ruleset, m["label"], m["simplest"], "simplest")
            if m["fewest"] != m["simplest"]:
                yield Entry(ruleset, m["label"], m["fewest"], "fewest pots")


def named(label: str, impartial: bool) -> Any:
    """The value a row's label names, in cgt-py (or pycgt for an impartial table)."""
    if impartial:
        import pycgt

        return pycgt.nimber(int(label[1:]))
    import cgt_py

    form = cgt_py.CanonicalForm
    if label.startswith("2^-"):
        return form(f"1/{2 ** int(label[3:])}")
    if label.startswith("+_"):
        return form("{0|{0|-" + str(Fraction(label[2:])) + "}}")
    if label.startswith("∗"):
        return form(f"*{label[1:]}")
    n, _, rest = label.partition("·↑")
    total = form("0")
    for _ in range(int(n)):
        total = total + form("^")
    return total + form("*") if rest == "+∗" else total


class Checker:
    """Values entries with one reference evaluator per ruleset (their caches shared)."""

    def __init__(self) -> None:
        from tests.support.reference_evaluators import CgtPyEvaluator, PycgtEvaluator

        self.evaluators = {"sowing": CgtPyEvaluator("sowing"), "impartial-atomic-wari": PycgtEvaluator("impartial-atomic-wari")}

    def agrees(self, entry: Entry) -> bool:
        """Whether the entry's position has the value its label names (∗0: and a move)."""
        from ruma.engine.rulesets import get_ruleset
        from tests.support.reference_evaluators import moves

        state = get_ruleset(entry.ruleset).parse(entry.position)
        impartial = entry.ruleset.startswith("impartial")
        got = self.evaluators[entry.ruleset].value(state)
        same = got == named(entry.label, True) if impartial else repr(got) == repr(named(entry.label, False))
        return bool(same and (entry.label != "∗0" or moves(entry.ruleset, state)[0]))


def seeds(entry: Entry) -> int:
    """The entry position's seeds."""
    from ruma.engine.rulesets import get_ruleset

    return sum(get_ruleset(entry.ruleset).parse(entry.position))


def main(argv: list[str] | None = None) -> int:
    """Check the entries; prints a line each and a summary."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--doc", default=str(DOC))
    parser.add_argument("--max-seeds", type=int, default=99)
    parser.add_argument("--seconds", type=float, default=float("inf"))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    todo = sorted((e for e in entries(Path(args.doc)) if seeds(e) <= args.max_seeds), key=lambda e: (seeds(e), e.position))
    checker, started, done, wrong = Checker(), time.perf_counter(), 0, 0
    for entry in todo:
        if time.perf_counter() - started > args.seconds:
            break
        begun = time.perf_counter()
        ok = checker.agrees(entry)
        done += 1
        wrong += not ok
        print(f"{'ok ' if ok else 'BAD'} {entry.ruleset} {entry.label} {entry.role} {entry.position} "
              f"({seeds(entry)} seeds, {time.perf_counter() - begun:.1f} s)", flush=True)
    left = [e for e in todo[done:]]
    print(f"{done} of {len(todo)} entries valued in {time.perf_counter() - started:.0f} s: {done - wrong} agree, "
          f"{wrong} disagree; not reached: {', '.join(f'{e.label} {e.position}' for e in left) or 'none'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
