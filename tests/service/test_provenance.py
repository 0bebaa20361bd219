"""Uploaded values carry their provenance: served marked unverified until the server re-values them.

The poisoned upload is like the one an outside probe made: 3,004 values of impartial Sowing with one
wrong, ``142101`` uploaded as ``*9``. Its true value comes from the independent references of
``tests/support/reference_evaluators.py`` (cgt-py and pycgt, each with its own move generator); the
other uploaded values are the payload (computed by ruma's engine), which the server must keep.
Every reply that carries the value marks it until then: ``Evaluate``, ``EvaluateBatch``, the
catalog's ``SearchStored`` and the ``Census`` (its rows and their simplest positions).

The verifier is prompt: 2,000 positions of 16 to 20 seeds uploaded with 20 values wrong (the probe
found 1,688 of such an upload still unverified after 92 s) are all re-valued, and the 20 replaced,
within a minute of idle time.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from ruma.client.cli import main
from ruma.engine.evaluator import evaluate
from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.server.rpc import sweeps
from ruma.server.store.memo import LmdbStore
from ruma.server.store.provenance import UploadVerifier
from ruma.server.store.verify import verify_store
from tests.support.grpc_harness import connect, running_server
from tests.support.reference_evaluators import CgtPyEvaluator, PycgtEvaluator

RULES = "impartial-sowing"
POISONED = "142101"


def true_value() -> int:
    """The nim value of ``142101`` by both references (they must agree)."""
    state = (1, 4, 2, 1, 0, 1)
    by_cgt_py = str(CgtPyEvaluator(RULES).value(state)).split("'")[1]
    by_pycgt = str(PycgtEvaluator(RULES).value(state))
    assert by_cgt_py == by_pycgt and by_pycgt.startswith("*")
    return int(by_pycgt[1:] or "1")


def poisoned_upload() -> tuple[list[tuple[bytes, Any]], bytes, int]:
    """An upload of every class of impartial Sowing with at most 9 seeds in at most 7 pots (3,004), with ``142101``
    as ``*9``; its entries, the poisoned key and the true value."""
    rules = get_ruleset(RULES)
    memo = InMemoryMemo()
    entries = [(c.key, evaluate(rules, c.state, memo).value) for c in enumerate_family(Family.of(RULES, (0, 9), (1, 7)))]
    key = rules.key(rules.normalise(rules.parse(POISONED))[0])
    truth = true_value()
    at = [k for k, _ in entries].index(key)
    assert entries[at][1] == truth and truth != 9 and len(entries) > 1000
    entries[at] = (key, 9)
    return entries, key, truth


@pytest.mark.alone
def test_a_poisoned_upload_is_served_unverified_and_corrected_by_the_verifier(tmp_path: Path) -> None:
    entries, key, truth = poisoned_upload()
    with running_server(tmp_path / "data", verify_fraction=0.0, catalog=True) as (server, address), \
            connect(address) as client:
        idle = [c for c in server.closers if isinstance(c, UploadVerifier)]
        assert len(idle) == 1
        idle[0].stop()  # (held back while the upload is looked at; started again below)
        assert client.upload(RULES, entries).stored == len(entries)
        served = client.evaluate(RULES, POISONED)
        assert (served.value.ascii, served.from_store, served.unverified) == ("*9", True, True)
        batch = client.evaluate_batch(RULES, [POISONED, "11111111"], brief=True)
        assert [item.evaluation.unverified for item in batch if item.evaluation] == [True, False]  # (8 pots: not uploaded)
        again = client.evaluate_batch(RULES, [POISONED])[0].evaluation  # (not brief: the other path)
        assert again is not None and again.unverified
        assert client.stats().unverified_entries == len(entries)
        canonical = rules_format(POISONED)
        assert [(s.position, s.unverified) for s in client.catalog.search_stored(RULES, "*9")] == [(canonical, True)]
        census = client.census(RULES, (0, 9), (1, 7), values=["*9"], simplest=1)
        assert [(row.label("ascii"), row.classes, row.unverified, [p.unverified for p in row.simplest])
                for row in census.rows] == [("*9", 1, 1, [True])]
        assert census.summary is not None and census.summary.unverified == 1

        verifier = sweeps.start_upload_verifier(server.servicer, pause=0.05)
        try:
            deadline = time.monotonic() + 120
            while client.stats().unverified_entries and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            verifier.stop()
        stats = client.stats()
        assert (stats.unverified_entries, stats.uploads_corrected) == (0, 1)
        served = client.evaluate(RULES, POISONED)
        assert (served.value.ascii, served.unverified) == (f"*{truth}", False)
        assert client.catalog.search_stored(RULES, "*9") == []
        assert client.census(RULES, (0, 9), (1, 7), values=["*9"]).rows == []  # (counted under its true value now)
        rows = client.census(RULES, (0, 9), (1, 7), values=[f"*{truth}"]).rows
        assert rows and all(not row.unverified for row in rows)
    with LmdbStore(tmp_path / "data", create=False) as store:
        kept = dict(entries)
        kept[key] = truth
        assert all(store.lookup(k) == v for k, v in kept.items())  # the rest of the upload kept as sent
        assert verify_store(store, sample=200, full=True).ok


def rules_format(text: str) -> str:
    """The canonical position of ``text`` as the store keeps it."""
    rules = get_ruleset(RULES)
    return rules.format(rules.normalise(rules.parse(text))[0])


def random_upload(count: int, seeds: tuple[int, int], wrong: int) -> tuple[list[tuple[bytes, Any]], dict[bytes, Any]]:
    """``count`` distinct random positions of impartial Sowing of ``seeds`` seeds in 3 to 8 pots,
    valued by the engine, ``wrong`` of them uploaded with another nim value; the entries and the
    true values of the wrong ones."""
    rules, memo, rng = get_ruleset(RULES), InMemoryMemo(), random.Random(41)
    states: dict[bytes, Any] = {}
    while len(states) < count:
        counts = [0] * rng.randint(3, 8)
        for _ in range(rng.randint(*seeds)):
            counts[rng.randrange(len(counts))] += 1
        state = rules.normalise(tuple(counts))[0]
        if state:
            states.setdefault(rules.key(state), state)
    entries = [(key, evaluate(rules, state, memo).value) for key, state in states.items()]
    truths = {}
    for at in rng.sample(range(len(entries)), wrong):
        key, value = entries[at]
        truths[key] = value
        entries[at] = (key, value + 1)
    return entries, truths


@pytest.mark.alone
def test_a_2000_entry_upload_is_reverified_within_a_minute(tmp_path: Path) -> None:
    entries, truths = random_upload(2000, (16, 20), 20)
    with running_server(tmp_path / "data", verify_fraction=0.0) as (server, address), connect(address) as client:
        assert client.upload(RULES, entries).stored == len(entries)
        started = time.monotonic()
        while client.stats().unverified_entries and time.monotonic() - started < 60:
            time.sleep(0.1)
        seconds = time.monotonic() - started
        stats = client.stats()
    print(f"2,000 uploaded positions re-valued in {seconds:.1f} s, {stats.uploads_corrected} corrected")
    assert (stats.unverified_entries, stats.uploads_corrected) == (0, 20), seconds
    with LmdbStore(tmp_path / "data", create=False) as store:
        kept = dict(entries)
        kept.update(truths)
        assert all(store.lookup(key) == value for key, value in kept.items())


def test_verify_revalue_corrects_an_upload_on_demand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries, key, truth = poisoned_upload()
    with LmdbStore(tmp_path, writer_process=False) as store:
        assert store.provenance.insert_unverified(entries) == len(entries)
        assert store.provenance.insert_unverified(entries[:10]) == 0  # stored already: kept as they are
        assert store.provenance.unverified_among([key, b"\x02\x01\x00\x07"]) == [True, False]
    with LmdbStore(tmp_path, create=False, hide_unverified=True) as hidden:  # what the evaluation workers open
        assert hidden.lookup(key) is None and hidden.lookup_many([key]) == [None]
    assert main(["store", "verify", "--data", str(tmp_path), "--full", "--revalue", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["revalued"]["checked"] == len(entries)
    rules = get_ruleset(RULES)
    canonical = rules.format(rules.normalise(rules.parse(POISONED))[0])
    assert [(c["position"], c["stored"], c["value"]) for c in record["revalued"]["corrected"]] == \
        [(canonical, "*9", f"*{truth}")]
    with LmdbStore(tmp_path, create=False) as store:
        assert store.lookup(key) == truth and store.provenance.unverified_count() == 0
        assert store.positions_with_value(get_ruleset(RULES).code, 9, limit=10_000).count(key) == 0
        assert key in store.positions_with_value(get_ruleset(RULES).code, truth, limit=10_000)


def test_repair_keeps_the_marks_of_kept_positions(tmp_path: Path) -> None:
    from ruma.server.store.repair import repair_store

    entries, key, _ = poisoned_upload()
    with LmdbStore(tmp_path, writer_process=False) as store:
        store.provenance.insert_unverified(entries)
    repair_store(tmp_path)
    with LmdbStore(tmp_path, create=False) as store:
        assert store.provenance.unverified_count() == len(entries) and store.provenance.unverified_among([key]) == [True]
