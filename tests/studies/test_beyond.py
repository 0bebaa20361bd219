"""``ruma find --beyond`` (``ruma.studies.beyond``) and what it published in docs/data/beyond.jsonl.

Expected values come from independent implementations: the reference move generators and
evaluators of ``tests/support/reference_evaluators`` (their own moves, cgt-py for Sowing, pycgt for
Impartial Atomic Wari, no normalisation) and the pure-Python engine in a fresh process
(``RUMA_ENGINE=python``), compared with the values the compiled search recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ruma.client.cli import main
from ruma.engine.families.classes import Family, weighted_rows
from ruma.engine.rulesets import get_ruleset

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "docs" / "data" / "beyond.jsonl"
#: a published position the pure-Python engine re-values within this many seconds is checked
PURE_SECONDS = 20.0


def published() -> list[dict[str, Any]]:
    return [json.loads(line) for line in RECORDS.read_text(encoding="utf-8").splitlines() if line.strip()]


def reference(ruleset: str) -> Any:
    from tests.support.reference_evaluators import CgtPyEvaluator, PycgtEvaluator

    return PycgtEvaluator(ruleset) if ruleset.startswith("impartial") else CgtPyEvaluator(ruleset)


def agrees(evaluator: Any, ruleset: str, position: str, value: str) -> bool:
    """Whether a reference evaluator gives ``position`` the ``value`` (braces text: cgt-py reads it;
    an impartial ruleset's ``*n``, a pycgt nimber)."""
    import cgt_py
    import pycgt

    got = evaluator.value(get_ruleset(ruleset).parse(position))
    if ruleset.startswith("impartial"):
        return bool(got == pycgt.nimber(0 if value == "0" else int(value.lstrip("*") or 1)))
    return repr(got) == repr(cgt_py.CanonicalForm(value))


@pytest.mark.parametrize("ruleset", ["sowing", "impartial-sowing", "atomic-wari", "impartial-atomic-wari"])
def test_unmoves_are_exactly_the_positions_with_a_move_there(ruleset: str) -> None:
    """Against the reference move generator, over every row of at most 7 seeds and 6 pots: each
    row is among the unmoves of each of its options (capturing at most what it captured), and
    each unmove has a move to the row it was undone from."""
    from tests.support.reference_evaluators import moves

    rules = get_ruleset(ruleset)
    rows = sorted({row for row, _ in weighted_rows(Family.of(ruleset, (1, 7), (1, 6)))})
    checked = 0
    for row in rows:
        for side, options in zip((True, False), moves(ruleset, row)):
            for option in set(options):
                undone = rules.unmoves(option, side, sum(row) - sum(option))
                assert undone is not None and row in undone, (row, side, option)
                for source in undone:
                    assert option in (moves(ruleset, source)[0 if side else 1]), (source, side, option)
                checked += 1
    assert checked > 1000


def test_a_ruleset_that_cannot_undo_its_moves_says_so() -> None:
    assert get_ruleset("octal:0.37").unmoves((5,), True) is None


@pytest.mark.parametrize(("ruleset", "value", "seeds"), [("sowing", "1/4", 6), ("impartial-atomic-wari", "*4", 5)])
def test_the_search_finds_a_value_just_beyond_a_small_bound_and_goes_on_where_it_stopped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], ruleset: str, value: str, seeds: int) -> None:
    """1/4 (Sowing's simplest, 12202, has 7 seeds) and ∗4 (Impartial Atomic Wari's, 223, has 7)
    lie beyond bounds of 6 and 5 seeds; every position found has the value by the reference."""
    command = ["find", ruleset, value, "--beyond", "--seeds", str(seeds), "--pots", str(seeds), "--data",
               str(tmp_path / "data"), "--workers", "1", "--seconds", "3", "--json"]
    assert main(command) == 0
    out, err = capsys.readouterr()
    found = [json.loads(line) for line in out.splitlines()]
    mine = [f for f in found if f["value"] == value.replace("*", "∗")]
    assert mine and all(f["seeds"] > seeds or f["pots"] > seeds for f in found), found
    assert all(f["new"] for f in found) and "searched:" in err and "candidates valued" in err
    evaluator = reference(ruleset)
    for f in mine[:10]:
        assert agrees(evaluator, ruleset, f["position"], value), f
    # resumable: a second run reads the state back, values nothing twice and keeps what was found
    assert main(command) == 0
    again, err = capsys.readouterr()
    assert {json.loads(line)["position"] for line in again.splitlines()} >= {f["position"] for f in found}
    assert "over 2 run(s)" in err


def test_worker_processes_value_the_same_candidates_and_find_the_same_positions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Up to 7 seeds (``--grow 1``) the frontier of the 6-seed search for 1/4 in Sowing empties within
    the run: two worker processes value the same candidates as this process alone and find the
    same positions, each of value 1/4 (or 1/2, the goal below it) by the reference."""
    runs = {}
    for workers in (1, 2):
        command = ["find", "sowing", "1/4", "--beyond", "--seeds", "6", "--pots", "6", "--grow", "1", "--data",
                   str(tmp_path / f"data-{workers}"), "--workers", str(workers), "--seconds", "60", "--json"]
        assert main(command) == 0
        out, err = capsys.readouterr()
        assert "0 candidates were left in the frontier" in err and "0 of them given up" in err, err
        valued = err.split("searched: ")[1].split(" candidates valued")[0]
        runs[workers] = (valued, {(f["position"], f["value"]) for f in map(json.loads, out.splitlines())})
    assert runs[1] == runs[2]
    found = runs[2][1]
    assert {value for _, value in found} == {"1/4", "1/2"}
    evaluator = reference("sowing")
    for position, value in sorted(found)[:12]:
        assert agrees(evaluator, "sowing", position, value), (position, value)


def test_a_search_on_workers_stopped_by_sigterm_saves_its_state_and_leaves_no_process(tmp_path: Path) -> None:
    """SIGTERM mid-search: the command ends, its worker processes with it, and the next run goes on
    from the state saved (its second run)."""
    import signal
    import time

    import psutil

    data = str(tmp_path / "data")
    command = [sys.executable, "-m", "ruma.client.cli", "find", "sowing", "1/16", "--beyond", "--seeds", "6",
               "--pots", "6", "--data", data, "--workers", "2", "--no-progress"]
    process = subprocess.Popen([*command, "--seconds", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    children: list[psutil.Process] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(children) < 4:  # the fork server and two workers, at least
        time.sleep(0.2)
        children = psutil.Process(process.pid).children(recursive=True)
    assert len(children) >= 4, children
    time.sleep(1)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode != 0 and "interrupted" in err, err
    _, alive = psutil.wait_procs(children, timeout=15)
    assert not alive, alive
    done = subprocess.run([*command, "--seconds", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "over 2 run(s)" in done.stderr, done.stderr


def test_the_beyond_section_and_its_records_come_from_the_stored_searches(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    assert main(["find", "sowing", "1/4", "--beyond", "--seeds", "6", "--pots", "6", "--data", data, "--workers", "1",
                 "--seconds", "2", "--no-progress"]) == 0
    doc, records = tmp_path / "tables.md", tmp_path / "beyond.jsonl"
    doc.write_text("# Tables\n\n## Another section\n\nkept\n", encoding="utf-8")
    assert main(["tables", "beyond", "--data", data, "--write", str(doc), "--records", str(records)]) == 0
    capsys.readouterr()
    text = doc.read_text(encoding="utf-8")
    assert "## Another section\n\nkept\n" in text and "## Beyond the bound" in text
    lines = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    assert lines and {"ruleset", "position", "value", "seeds", "pots", "how"} <= set(lines[0])
    assert all(f"`{line['position']}`" in text for line in lines) and "Searched: " in text
    assert lines[0]["bound"] == {"seeds": 6, "pots": 6}


def test_the_published_positions_have_their_values_by_the_pure_python_engine() -> None:
    """Each published position the pure-Python engine values within ``PURE_SECONDS`` of CPU (so
    other work on the machine beside it changes nothing), in a fresh process with
    RUMA_ENGINE=python and no store."""
    records = published()
    assert len({r["value"] for r in records}) >= 2
    code = (
        "import json, sys, time\n"
        "from ruma.engine.native import active_engine\n"
        "from ruma.engine.evaluator import evaluate\n"
        "from ruma.engine.errors import CancelledError\n"
        "from ruma.engine.cgt import format_value\n"
        "assert active_engine() == 'python', active_engine()\n"
        "for line in sys.stdin:\n"
        "    r = json.loads(line)\n"
        f"    deadline = time.process_time() + {PURE_SECONDS}\n"
        "    try:\n"
        "        v = evaluate(r['ruleset'], r['position'], should_cancel=lambda: time.process_time() > deadline).value\n"
        "    except CancelledError:\n"
        "        print(json.dumps(None)); continue\n"
        "    print(json.dumps(format_value(v, 'braces')), flush=True)\n")
    environment = {k: v for k, v in os.environ.items() if k != "RUMA_ENGINE"} | {"RUMA_ENGINE": "python"}
    done = subprocess.run([sys.executable, "-c", code], input="".join(json.dumps(r) + "\n" for r in records),
                          capture_output=True, text=True, env=environment, timeout=60 + 3 * PURE_SECONDS * len(records))
    assert done.returncode == 0, done.stderr
    values = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(values) == len(records)
    checked = [(r, v) for r, v in zip(records, values) if v is not None]
    assert all(v == r["value"] for r, v in checked), [(r["position"], r["value"], v) for r, v in checked if v != r["value"]]
    assert len({r["value"] for r, _ in checked}) >= 2, "too few published values re-valued in time"


def test_the_published_positions_have_their_values_by_cgt_py_and_pycgt() -> None:
    """The small published positions (at most ``REFERENCE_SEEDS`` seeds by ruleset) re-valued by the
    reference evaluators, which walk every follower without normalisation."""
    records = [r for r in published() if r["seeds"] <= REFERENCE_SEEDS.get(r["ruleset"], 0)]
    assert records
    evaluators: dict[str, Any] = {}
    for r in records:
        evaluator = evaluators.setdefault(r["ruleset"], reference(r["ruleset"]))
        assert agrees(evaluator, r["ruleset"], r["position"], r["value"]), r


def test_the_catalog_seeds_every_published_position() -> None:
    from ruma.server.catalog.seed import beyond_positions

    entries = {(e["ruleset"], e["position"]): e for e in beyond_positions()}
    records = published()
    assert len(entries) == len(records)
    for r in records:
        entry = entries[(r["ruleset"], r["position"])]
        assert entry["source_value"] == r["value"] and "beyond" in entry["tags"], entry
        assert r["search"] in entry["notes"] and entry["name"].startswith(r["ruleset"] + "-")


def test_catalog_seed_adds_them_only_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ruma.server.catalog.models import Catalog
    from ruma.server.catalog.ops import CatalogOps

    plain, beyond = str(tmp_path / "plain"), str(tmp_path / "beyond")
    assert main(["catalog", "seed", "--data", plain, "--json"]) == 0
    seeded = json.loads(capsys.readouterr().out)
    assert main(["catalog", "seed", "--beyond", "--data", beyond, "--json"]) == 0
    records = published()
    assert json.loads(capsys.readouterr().out) == {**seeded, "positions": seeded["positions"] + len(records)}
    for data, expected in ((plain, set()), (beyond, {(r["ruleset"], r["position"]) for r in records})):
        with Catalog.open(data) as catalog:
            listed = CatalogOps(catalog).list_positions(tag="beyond")
        assert {(e["ruleset"], e["position"]) for e in listed} == expected


#: the reference evaluators re-value published positions of at most this many seeds (they walk every
#: follower: an Impartial Atomic Wari position of 16 seeds takes a second or two, a Sowing position of
#: 13 seeds in 15 pots far longer — docs/tables.md records its re-valuation by the pure-Python engine)
REFERENCE_SEEDS = {"impartial-atomic-wari": 16, "sowing": 12}
