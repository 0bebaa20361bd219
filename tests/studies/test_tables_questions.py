"""``ruma tables``: the questions' sections of docs/tables.md, checked against a brute force that
shares nothing with ruma's sweep, tally or census code.

The brute force enumerates every row of at most 9 seeds and 9 pots with its own recursion,
values each with the reference evaluators of ``tests/support/reference_evaluators`` (cgt-py for
Sowing, pycgt for Impartial Atomic Wari: their own move generators, no normalisation), names the
values by building the targets in cgt-py (``1/8``, ``^`` added up, ``{0|{0|-x}}``, ``*k``), and
finds the simplest and fewest-pots rows and the raw counts itself. The generator's documents at
the same bound must agree entry for entry.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

import pytest

from ruma.client.cli import main
from ruma.client.sweep.driver import StoreSink
from ruma.engine.rulesets import get_ruleset
from ruma.studies import open_questions as questions
from ruma.studies import tally_parts
from ruma.studies.commands import splice
from ruma.studies.followers import count_followers

BOUND = 9


def stripped_rows(seeds: int, pots: int) -> Iterator[tuple[int, ...]]:
    """Every row of 1..pots pots, at most ``seeds`` seeds, first and last pot nonempty."""
    def grow(prefix: tuple[int, ...], left: int, more: int) -> Iterator[tuple[int, ...]]:
        if more == 0:
            yield prefix
            return
        low = 1 if not prefix or more == 1 else 0
        for count in range(low, left + 1):
            yield from grow(prefix + (count,), left - count, more - 1)

    for n in range(1, pots + 1):
        yield from grow((), seeds, n)


def paddings(row: tuple[int, ...], pots: int) -> int:
    """Raw rows of at most ``pots`` pots that are ``row`` with empty pots at its ends."""
    return sum(n - len(row) + 1 for n in range(len(row), pots + 1))


def cgt_targets() -> dict[str, tuple[str, Fraction]]:
    """cgt-py's text of each value the questions ask about (within reach of 9 seeds and more)."""
    import cgt_py

    form = cgt_py.CanonicalForm
    targets: dict[str, tuple[str, Fraction]] = {}
    up, star = form("^"), form("*")
    total = form("0")
    for n in range(1, 16):
        targets[repr(form(f"1/{2 ** n}"))] = ("2^-n", Fraction(n))
        total = total + up
        targets[repr(total)] = ("n.^", Fraction(n))
        targets[repr(total + star)] = ("n.^*", Fraction(n))
        targets[repr(form(f"*{n}"))] = ("*n", Fraction(n))
    for denominator in (1, 2, 4, 8, 16):
        for numerator in range(1, 16 * denominator):
            x = Fraction(numerator, denominator)
            targets.setdefault(repr(form("{0|{0|-" + str(x) + "}}")), ("+_x", x))
    return targets


def brute_force(ruleset: str) -> dict[tuple[str, Fraction], dict[str, Any]]:
    """Per (kind, parameter): raw count, simplest row, fewest-pots row (and ∗0 with a move)."""
    from tests.support.reference_evaluators import CgtPyEvaluator, PycgtEvaluator, moves

    impartial = ruleset.startswith("impartial")
    evaluator = PycgtEvaluator(ruleset) if impartial else CgtPyEvaluator(ruleset)
    targets = cgt_targets() if not impartial else {}
    import pycgt

    nimbers = {k: pycgt.nimber(k) for k in range(0, 16)}
    found: dict[tuple[str, Fraction], dict[str, Any]] = {}
    for row in stripped_rows(BOUND, BOUND):
        value = evaluator.value(row)
        if impartial:
            k = next(k for k, nim in nimbers.items() if value == nim)
            if k == 0 and not moves(ruleset, row)[0]:
                continue  # ∗0 counts positions with a move
            kind: tuple[str, Fraction] | None = ("*n", Fraction(k))
        else:
            kind = targets.get(repr(value))
        if kind is None:
            continue
        books = found.setdefault(kind, {"raw": 0, "simplest": row, "fewest": row})
        books["raw"] += paddings(row, BOUND)
        if (sum(row), len(row), row) < (sum(books["simplest"]), len(books["simplest"]), books["simplest"]):
            books["simplest"] = row
        if (len(row), sum(row), row) < (len(books["fewest"]), sum(books["fewest"]), books["fewest"]):
            books["fewest"] = row
    return found


def document(tmp_path: Path, section: str) -> dict[str, Any]:
    sink = StoreSink(str(tmp_path / "store"))
    try:
        if section == "sowing-values":
            return questions.sowing_values(sink, BOUND, BOUND, "test", workers=1, chain_seconds=5)
        return questions.wari_nim(sink, BOUND, BOUND, "test", workers=1)
    finally:
        sink.close()


@pytest.mark.parametrize("section,ruleset", [("sowing-values", "sowing"), ("wari-nim", "impartial-atomic-wari")])
def test_every_entry_and_its_minimality_agree_with_a_brute_force(tmp_path: Path, section: str, ruleset: str) -> None:
    doc = document(tmp_path, section)
    rules = get_ruleset(ruleset)
    truth = brute_force(ruleset)
    entries = {(r["kind"], Fraction(r["parameter"])): r for r in doc["rows"]}
    assert set(entries) == set(truth)  # the same values found, none missed, none extra
    for kind, books in truth.items():
        entry = entries[kind]
        assert rules.parse(entry["position"]) == books["simplest"], kind
        assert rules.parse(entry["fewest_pots"]["position"]) == books["fewest"], kind
        assert entry["raw_positions"] == books["raw"], kind


def test_the_brute_force_sees_the_values_it_is_compared_on() -> None:
    kinds = {kind for kind, _ in brute_force("sowing")}
    assert kinds == {"2^-n", "n.^", "n.^*", "+_x", "*n"}  # every kind occurs within 9 seeds and pots


def reference_followers(row: tuple[int, ...]) -> int:
    """Followers of an Atomic Wari row by the reference move generator (a second walk, stripped rows)."""
    from tests.support.reference_evaluators import moves

    def strip(r: tuple[int, ...]) -> tuple[int, ...]:
        start, end = 0, len(r)
        while start < end and r[start] == 0:
            start += 1
        while end > start and r[end - 1] == 0:
            end -= 1
        return r[start:end]

    seen: set[tuple[int, ...]] = set()
    todo = [row]
    while todo:
        lefts, rights = moves("atomic-wari", todo.pop())
        for option in map(strip, lefts + rights):
            if option not in seen:
                seen.add(option)
                todo.append(option)
    return len(seen)


def test_the_most_followers_per_seeds_agree_with_a_walk_of_every_row(tmp_path: Path) -> None:
    sink = StoreSink(str(tmp_path / "store"))
    try:
        doc = questions.followers(sink, 6, 6, 0.5, "test", max_n=4)
    finally:
        sink.close()
    for entry in doc["largest"]:
        s = entry["seeds"]
        counts = {row: reference_followers(row) for row in stripped_rows(s, 6) if sum(row) == s}
        most = max(counts.values())
        assert entry["followers"] == most, s
        simplest = min((r for r, c in counts.items() if c == most), key=lambda r: (len(r), r))
        assert get_ruleset("atomic-wari").parse(entry["position"]) == simplest
    series = {(s["ruleset"], s["family"]): s["counts"] for s in doc["series"]}
    assert [c["n"] for c in series[("atomic-wari", "3^n")]] == [1, 2, 3, 4]
    for (ruleset, _), counts in series.items():
        for c in counts:
            assert c["followers"] == count_followers(ruleset, c["position"]).positions


def test_splice_replaces_a_section_by_its_heading_and_keeps_the_rest() -> None:
    text = "# Tables\n\nintro\n\n## A\n\nold a\n\n## B\n\nold b\n"
    assert splice(text, "## A", "## A\n\nnew a\n") == "# Tables\n\nintro\n\n## A\n\nnew a\n\n## B\n\nold b\n"
    assert splice(text, "## B", "## B\n\nnew b\n") == "# Tables\n\nintro\n\n## A\n\nold a\n\n## B\n\nnew b\n"
    assert splice(text, "## C", "## C\n\nc\n") == text + "\n## C\n\nc\n"
    assert splice("", "## C", "## C\n") == "## C\n"


def test_ruma_tables_writes_its_sections_into_the_file_reads_them_back_and_recounts_on_demand(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "tables.md"
    target.write_text("# Tables\n\nkept as it is\n\n## Table 3 — simplest impartial Sowing positions with value ∗n\n\nold\n")
    args = ["tables", "sowing-values", "wari-nim", "--seeds", "6", "--data", str(tmp_path / "store"), "--chains", "2",
            "--write", str(target)]
    assert main(args) == 0
    first = target.read_text()
    assert first.startswith("# Tables\n\nkept as it is\n\n"
                            "## Table 3 — simplest impartial Sowing positions with value ∗n\n\nold\n")
    assert first.count("## Sowing values of Erickson") == 1 and first.count("## Table 3 for Impartial Atomic Wari") == 1
    assert "every Sowing row of at most **6 seeds** and at most **6 pots**" in first
    assert "| 2^-1 | `2111` | 5/4 |" in first  # Erickson's erratum to Table 1: 2111 = 1/2
    sink = StoreSink(str(tmp_path / "store"))
    try:
        assert sink.store.documents.names("tables/") == ["tables/sowing-values", "tables/wari-nim"]
        stored = json.loads(sink.store.documents.get("tables/sowing-values"))
    finally:
        sink.close()
    assert stored["bound"] == {"seeds": 6, "pots": 6}
    assert stored["generated"]["command"] == " ".join(["ruma", *args[:5], "--chains", "2", "--data", str(tmp_path / "store"),
                                                       "--write", str(target)])

    def no_tally(*args: object, **kwargs: object) -> None:
        raise AssertionError("tallied again")

    monkeypatch.setattr(tally_parts, "tally", no_tally)
    assert main(args) == 0  # the same bound: read back from the store, the file unchanged
    assert target.read_text() == first
    other = [a if a != "2" else "1" for a in args]  # other chains: the tally read back from its parts
    assert main(other) == 0 and "for 1 s in all" in target.read_text()
    capsys.readouterr()
    assert main(args + ["--recount"]) != 0 and "tallied again" in capsys.readouterr().err
    assert main(["tables", "wari-nim", "--seeds", "7", "--data", str(tmp_path / "store")]) != 0  # another bound
    assert "tallied again" in capsys.readouterr().err
    assert main(["tables", "sowing-value", "--data", str(tmp_path / "store")]) == 2
    assert "unknown section 'sowing-value'" in capsys.readouterr().err


def test_the_older_generator_appends_the_sections_the_store_keeps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ruma.studies import tables

    store = str(tmp_path / "store")
    assert main(["tables", "wari-nim", "--seeds", "5", "--data", store]) == 0
    capsys.readouterr()
    assert tables.main(["--data", store, "--seeds3", "4", "--aw-seeds", "2", "--workers", "1", "--budget", "2",
                        "--max-n", "3"]) == 0
    out = capsys.readouterr().out
    assert out.index("## Table 3 —") < out.index("## Atomic weights") < out.index("## Table 3 for Impartial Atomic Wari")


def test_a_tally_in_parts_goes_on_where_a_stopped_run_left_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    args = ["tables", "sowing-values", "--seeds", "7", "--data", store, "--parts", "3", "--minutes", "0.00001", "--chains", "1"]
    for done in (1, 2):  # each run does one part, then the time is up
        assert main(args) == 1
        assert f"stored in {done} of 3 parts; run the same command again to go on" in capsys.readouterr().err
    assert main(args) == 0
    in_parts = capsys.readouterr().out
    assert main(["tables", "sowing-values", "--seeds", "7", "--data", str(tmp_path / "one"), "--chains", "1"]) == 0
    at_once = capsys.readouterr().out

    def rows(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith("| ")]

    assert rows(in_parts) == rows(at_once) and len(rows(at_once)) > 10
    sink = StoreSink(store)
    try:
        parts = json.loads(sink.store.documents.get("tables/sowing-values"))["sweep"]
    finally:
        sink.close()
    assert parts["parts"] == 3 and parts["classes"] > 0


def test_deuce_runs_have_the_nim_values_of_37_heaps() -> None:
    """Theorem 3.1: 2^k is the ·37 heap k; the least k of each small value, valued by pycgt."""
    import pycgt

    from tests.support.reference_evaluators import PycgtEvaluator

    runs = questions.deuce_runs(600)
    least = dict(runs["least"])
    assert [least[n] for n in range(5)] == [0, 1, 2, 6, 10]  # the ·37 values 0 1 2 0 1 2 3 1 2 3 4 ...
    evaluator = PycgtEvaluator("impartial-atomic-wari")
    for n in range(1, 5):
        assert evaluator.value((2,) * least[n]) == pycgt.nimber(n)
    assert runs["complete"] >= 8 and all(k < 600 for _, k in runs["least"])
