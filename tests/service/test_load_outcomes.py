"""Bulk work that always finishes: every position of a load and of an ``EvaluateBatch`` has its own
outcome. A real server (LMDB store, evaluation worker processes, a small memory budget) on a
loopback port; ``ruma load`` run as a user runs it.

Values: Erickson 1996, §2 (Sowing 312 = {0|-2}); impartial Sowing's values are checked against
the pure-Python reference engine of this repository (``RUMA_ENGINE=python`` is the reference
every fast path is tested against).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import grpc
import pytest

from ruma.server.work.limits import Limits
from tests.support.commands import ruma
from tests.support.grpc_harness import connect, running_server

pytestmark = pytest.mark.alone  # (it times what it runs)

#: Sowing 1^14 values about five million positions at 120-odd bytes each (1^13: 1.3 million in
#: 150-160 MB, docs/benchmarks.md "Partizan against impartial search"): far past the budget
HEAVY = "1^14"
BUDGET = 192 << 20


def _reasons(text: str) -> dict[str, str]:
    """A text failure file read back: each position with the ``%`` comment lines above it."""
    out: dict[str, str] = {}
    comment: list[str] = []
    for line in text.splitlines():
        if line.startswith("% "):
            comment.append(line[2:])
        else:
            out[line] = "\n".join(comment)
            comment = []
    return out


def _cheap(count: int) -> list[str]:
    rng = random.Random(31)
    out: set[str] = set()
    while len(out) < count:
        out.add("".join(str(rng.randint(0, 3)) for _ in range(rng.randint(2, 6))).strip("0") or "1")
    return sorted(out)


def test_a_load_with_heavy_and_bad_positions_finishes_and_names_them(tmp_path: Path) -> None:
    cheap = _cheap(60)
    bad = {"3x2": "'3x2'", "(10)^3 03 (01": "'(10)^3 03 (01'", "1^70": "64"}  # 1^70: more pots than the limit
    rows = cheap[:30] + [HEAVY] + list(bad) + cheap[30:]
    positions = tmp_path / "positions.txt"
    positions.write_text("\n".join(rows) + "\n")
    failed = tmp_path / "failed.txt"
    limits = Limits(max_memory=BUDGET, eval_workers=1)
    with running_server(tmp_path / "data", limits=limits) as (_, address):
        first = ruma("load", "--server", address, "sowing", str(positions), "--batch-size", "64",
                     "--failed", str(failed), "--json")
        assert first.returncode == 1, first.stderr
        summary = json.loads(first.stdout)
        # (a cheap position may be valued as a follower of another before its turn: then it was stored)
        assert (summary["total"], summary["valued"] + summary["already_stored"]) == (len(rows), len(cheap))
        assert first.stderr.strip().splitlines()[-1] == \
            f"ruma load: {len(bad) + 1} of {len(rows)} positions could not be valued: written to {failed} with their reasons"
        # the failure file names each heavy or bad position with its reason, and reads back as positions
        from ruma.client.loader import read_positions

        assert read_positions(failed) == [HEAVY, *bad]
        reasons = _reasons(failed.read_text())
        assert "memory budget" in reasons[HEAVY] and f"'{HEAVY}'" in reasons[HEAVY]
        for position, quoted in bad.items():
            assert quoted in reasons[position], (position, reasons[position])
        with connect(address) as client:
            assert all(item.found for item in client.lookup("sowing", cheap))
            assert client.evaluate("sowing", "312").value.ascii == "{0|-2}"
            # a rerun values nothing twice: the stored positions count as done before anything is sent
            seen: list[tuple[int, int]] = []
            again = client.load("sowing", rows, progress=lambda done, total: seen.append((done, total)))
            assert (again.valued, again.already_stored) == (0, len(cheap))
            assert [p for p, _ in again.failed] == [HEAVY, *bad]
            assert seen[0] == (len(cheap), len(rows)) and seen[-1] == (len(rows), len(rows))


def test_a_position_the_memory_budget_stops_fails_alone(tmp_path: Path) -> None:
    from ruma.v1 import ruma_pb2 as pb

    with running_server(tmp_path / "data", limits=Limits(max_memory=BUDGET, eval_workers=1)) as (_, address), \
            connect(address) as client:
        request = pb.EvaluateBatchRequest(ruleset="sowing", positions=["312", HEAVY, "2202", "11(01)^2"],
                                          notations=[pb.NOTATION_ASCII], brief=True)
        items = client.call(client.stub.EvaluateBatch, request, 120).items
        assert items[1].status.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert f"'{HEAVY}'" in items[1].status.message and "memory budget" in items[1].status.message
        # Erickson 1996: 312 = {0|-2} (§2), 2202 = ↑ (Table 1), 11(01)^2 = {3|0} (Theorem 2.4)
        assert [(i.status.code, i.evaluation.value.ascii) for i in (items[0], *items[2:])] == [
            (0, "{0|-2}"), (0, "^"), (0, "{3|0}")]


def test_each_position_of_a_batch_has_its_own_time(tmp_path: Path) -> None:
    from ruma.engine.evaluator import evaluate
    from ruma.engine.memo import InMemoryMemo
    from ruma.engine.rulesets.sowing import IMPARTIAL_SOWING
    from ruma.v1 import ruma_pb2 as pb

    cheap = _cheap(20)
    with running_server(tmp_path / "data", limits=Limits(eval_workers=1)) as (_, address), connect(address) as client:
        request = pb.EvaluateBatchRequest(ruleset="impartial-sowing", positions=[cheap[0], "1^16", *cheap[1:]],
                                          notations=[pb.NOTATION_ASCII], brief=True, max_seconds=1.0)
        reply = client.call(client.stub.EvaluateBatch, request, 120)
        heavy = reply.items[1]
        assert heavy.status.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert "'1^16'" in heavy.status.message and "1 s each position may take" in heavy.status.message
        memo = InMemoryMemo()
        for item in [reply.items[0], *reply.items[2:]]:
            assert item.status.code == 0, item.status.message
            expected = evaluate(IMPARTIAL_SOWING, IMPARTIAL_SOWING.parse(item.position), memo).value
            assert item.evaluation.value.ascii == ("0" if expected == 0 else f"*{expected}" if expected > 1 else "*")


def test_a_heavy_neighbour_never_costs_a_cheap_position_its_time(tmp_path: Path) -> None:
    """A file of cheap positions, heavy ones and malformed lines, under a server limit of 2 s a
    request: every cheap position is valued (a heavy one in the same call does not use up its
    time), every heavy one fails with the time limit as its reason, every malformed one with its
    parse error, nothing stored is reported failed, and a line starting with ``#`` (a full pot) is
    a position while ``%`` starts a comment."""
    cheap = _cheap(150)
    heavy = ["1^16", "9^40", "2^14"]
    bad = {"3x2": "'3x2'", "(10)^3 03 (01": "missing ')'", "1^70": "64"}
    full = "#1^3#"  # Erickson 1996 Table 2: •1^3• = 0
    rows = [f"% {len(cheap)} cheap positions, heavy ones and malformed lines", *cheap[:40], heavy[0],
            *cheap[40:90], heavy[1], *bad, full, *cheap[90:], heavy[2]]
    positions = tmp_path / "positions.txt"
    positions.write_text("\n".join(rows) + "\n")
    failed = tmp_path / "failed.txt"
    with running_server(tmp_path / "data", limits=Limits(max_seconds=2, eval_workers=2)) as (_, address):
        first = ruma("load", "--server", address, "sowing", str(positions), "--failed", str(failed), "--json")
        assert first.returncode == 1, first.stderr
        summary = json.loads(first.stdout)
        loaded = len(rows) - 1  # (the comment line is no position)
        assert summary["total"] == loaded
        assert summary["valued"] + summary["already_stored"] == len(cheap) + 1, summary["failed"]
        reasons = _reasons(failed.read_text())
        assert sorted(reasons) == sorted([*heavy, *bad])
        for position in heavy:  # (had it all: "ran longer", or "was not valued" when its worker had to be stopped)
            reason = reasons[position]
            assert f"'{position}'" in reason and "ran longer than this server's limit of 2 s" in reason, reason
            assert "send it" not in reason and "was not started" not in reason, reason
        for position, words in bad.items():
            assert words in reasons[position], (position, reasons[position])
        with connect(address) as client:
            assert all(item.found for item in client.lookup("sowing", [*cheap, full]))
            assert client.lookup("sowing", [full])[0].evaluation.value.ascii == "0"
            assert not any(item.found for item in client.lookup("sowing", heavy))  # (reported failed: not stored)
        # the failures file reads back as the failed positions, and a rerun fails those alone
        again = ruma("load", "--server", address, "sowing", str(failed), "--json")
        assert again.returncode == 1
        assert sorted(f["position"] for f in json.loads(again.stdout)["failed"]) == sorted([*heavy, *bad])


def test_a_batch_says_which_positions_its_call_kept_from_their_time(tmp_path: Path) -> None:
    """``EvaluateBatch`` under the server's limit a request: the position running when the call's
    time runs out fails with the limit when it had (nearly) all of it, else it is ``cut short``
    (send it alone); the positions after it were not started (send it again)."""
    from ruma.v1 import ruma_pb2 as pb

    def batch(client: object, positions: list[str]) -> list[tuple[int, str]]:
        request = pb.EvaluateBatchRequest(ruleset="sowing", positions=positions, notations=[pb.NOTATION_ASCII],
                                          brief=True)
        reply = client.call(client.stub.EvaluateBatch, request, 60)  # type: ignore[attr-defined]
        return [(item.status.code, item.status.message) for item in reply.items]

    exhausted = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    with running_server(tmp_path / "data", limits=Limits(max_seconds=6, eval_workers=1)) as (_, address), \
            connect(address) as client:
        while batch(client, ["1"])[0][0]:  # (the worker may still be starting on a busy machine)
            pass
        first, after = batch(client, ["1^16", "312"])
        assert first[0] == exhausted and "'1^16' ran longer than this server's limit of 6 s" in first[1]
        assert after[0] == exhausted and "'312' was not started" in after[1] and "send it again" in after[1]
        # 1^11 takes about a second (well over 5 % of the call's time): 1^16 after it is cut short
        cheap, late, after = batch(client, ["1^11", "1^16", "2202"])
        assert cheap == (0, "")
        assert late[0] == exhausted and "'1^16' was stopped after" in late[1] and "send it alone" in late[1]
        assert after[0] == exhausted and "send it again" in after[1]
