"""Sweeps end to end: in-process, local worker processes and a local Ray cluster give identical
stores; a killed sweep resumes without losing anything; uploads are verified and need a write
token; censuses agree locally and over gRPC."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ruma.client.sweep.driver import StoreSink, run_sweep, sweep_store
from ruma.client.sweeps_client import ServerSink
from ruma.engine.cgt import Game, nimber
from ruma.engine.evaluator import evaluate
from ruma.engine.families.census import census
from ruma.engine.families.classes import Family, enumerate_family, enumerate_states
from ruma.engine.frame import is_shared, payload_count, unpack_frame
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset
from ruma.engine.stores import open_store
from ruma.server.store.memo import LmdbStore
from ruma.server.store.runs import FOLDER, read_run
from ruma.server.work.limits import Limits
from tests.support.commands import ruma
from tests.support.grpc_harness import connect, running_server
from tests.support.stores import contents, everything

FAMILIES = [("sowing", (0, 7), (1, 7)), ("impartial-atomic-wari", (0, 6), (1, 6))]


def committed(path: Path) -> int:
    """Entries committed to the store at ``path`` so far (0 before it exists), read as another
    process sees them, and those in the runs an impartial sweep keeps beside it (``store.runs``)."""
    kept = 0
    for run in sorted((path / FOLDER).glob("*.run")):
        try:
            kept += payload_count(read_run(run))
        except OSError:  # (stored and removed at the sweep's end meanwhile)
            pass
    if not (path / "data.mdb").exists():
        return kept
    try:
        store = open_store(str(path), create=False)
    except Exception:  # noqa: BLE001 - (being created by the sweep at this moment)
        return kept
    try:
        return kept + sum(r["entries"] for r in store.admin.stats()["rulesets"])
    finally:
        store.close()


@pytest.mark.parametrize("ruleset,seeds,pots", FAMILIES)
def test_one_and_two_workers_give_identical_stores(tmp_path: Path, ruleset: str, seeds: tuple[int, int],
                                                   pots: tuple[int, int]) -> None:
    family = Family.of(ruleset, seeds, pots)
    one = sweep_store(family, str(tmp_path / "one"), workers=1)
    two = sweep_store(family, str(tmp_path / "two"), workers=2)
    assert (one.backend, two.backend) == ("inline", "processes")
    assert one.classes == two.classes == len(enumerate_family(family))
    first, second = contents(tmp_path / "one"), contents(tmp_path / "two")
    assert first == second and len(first) >= one.classes
    rules = get_ruleset(ruleset)
    memo = InMemoryMemo()
    for c in enumerate_family(family)[::37]:  # spot checks against a fresh evaluation
        assert first[c.key] == evaluate(rules, c.state, memo).value


@pytest.mark.alone
def test_ray_local_cluster_gives_the_same_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    from ruma.client.sweep.ray import RayActors

    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    # (the actors share the tables of ruma.client.sweep.shared, the cluster being on this machine;
    # then, as the actors of a cluster elsewhere would, partizan values go in cells and packets,
    # their games as engine.cgt.game_bytes)
    families = [Family.of("sowing", (0, 7), (1, 7)), Family.of("impartial-sowing", (0, 9), (1, 9))]
    with RayActors(2) as backend:
        assert backend.shares_memory
        for n, family in enumerate(families):
            sweep_store(family, str(tmp_path / f"one{n}"), workers=1)
            summary = sweep_store(family, str(tmp_path / f"ray{n}"), backend=backend)
            assert summary.backend == "ray" and summary.workers == 2
            assert summary.classes == len(enumerate_family(family))
            assert contents(tmp_path / f"one{n}") == contents(tmp_path / f"ray{n}")
        backend.shares_memory = backend.local = False
        summary = sweep_store(families[0], str(tmp_path / "packets"), backend=backend)
        assert summary.backend == "ray" and contents(tmp_path / "one0") == contents(tmp_path / "packets")


def _kill_group_but_the_resource_tracker(group: int) -> int | None:
    """SIGKILL every process of ``group`` except multiprocessing's resource tracker, which is left
    to unlink the named semaphores of the processes killed (killed with them, it leaves them in
    /dev/shm); returns the tracker's pid, if there is one."""
    tracker = None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != group:
                continue
            if b"resource_tracker" in (entry / "cmdline").read_bytes():
                tracker = int(entry.name)
                continue
            os.kill(int(entry.name), signal.SIGKILL)
        except (ProcessLookupError, FileNotFoundError, PermissionError):
            pass
    return tracker


def _wait_gone(pid: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)  # (a tracker still there after its wait: not left behind)
    except ProcessLookupError:
        pass


@pytest.mark.alone
@pytest.mark.parametrize("ruleset, seeds", [("impartial-sowing", 12), ("sowing", 11)])
def test_a_killed_sweep_resumes_and_loses_nothing(tmp_path: Path, ruleset: str, seeds: int) -> None:
    data = tmp_path / "data"
    # (a second or two — killed once the first values are in runs, from 0.25 s on, well before
    # the end: impartial Sowing <= 11 is over in half a second, <= 12 has 657,709 classes; Sowing
    # <= 11 174,877. Both keep their drains as runs: nim values, or a partizan sweep's values with
    # the store's ids of the games its workers interned)
    command = [sys.executable, "-m", "ruma.client.cli", "sweep", ruleset, "--seeds", str(seeds),
               "--data", str(data), "--workers", "2", "--json", "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None and not committed(data):
        time.sleep(0.02)
    assert process.poll() is None, "the sweep ended before it could be killed"
    tracker = _kill_group_but_the_resource_tracker(process.pid)  # the driver and its workers
    process.wait()
    if tracker is not None:  # (it unlinks the killed processes' semaphores in /dev/shm, then ends)
        _wait_gone(tracker, 30)
    kept = [read_run(path) for path in (data / FOLDER).glob("*.run")]
    assert kept, "the drains were not kept as runs"
    if ruleset == "sowing":  # (its workers interned their games as they drained: the store's own codes)
        assert all(not is_shared(run) and all(code & 1 for code in unpack_frame(run)[1]) for run in kept)
    with LmdbStore(data, create=False) as store:  # (what a server or the next sweep opening it does)
        assert store.adopt_runs() > 0
    # (nim values are the same record bytes in every store, read at LMDB's speed; a partizan value
    # names a game by its store id, which differs between stores: compared as games)
    stored = contents if ruleset == "sowing" else (lambda path: dict(everything(path)[b"positions"]))
    partial = stored(data)
    assert partial, "nothing was committed before the kill"
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    import json

    summary = json.loads(resumed.stdout)
    assert summary["already_stored"] > 0 and summary["classes_valued"] < summary["classes"]
    final = stored(data)
    assert all(final[key] == value for key, value in partial.items())  # nothing lost or changed
    family = Family.of(ruleset, (0, seeds), (1, seeds))
    sweep_store(family, str(tmp_path / "fresh"), workers=1)
    assert final == stored(tmp_path / "fresh")


def _descendants(pid: int) -> list[int]:
    """The processes descended from ``pid`` now (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _semaphores(pids: list[int]) -> set[str]:
    """The named semaphores (files in /dev/shm) that the processes ``pids`` have mapped."""
    names = set()
    for pid in pids:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
        except OSError:
            continue
        names.update(line.split()[-1] for line in maps.splitlines() if "/dev/shm/sem." in line)
    return names


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _gone_within(pids: list[int], files: set[str], seconds: float) -> tuple[list[int], list[str]]:
    """The processes still alive and the files still there after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [pid for pid in pids if _alive(pid)]
        left = [name for name in files if Path(name).exists()]
        if (not alive and not left) or time.monotonic() > deadline:
            return alive, left
        time.sleep(0.05)


def _default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _running_sweep(data: Path, ruleset: str, workers: str) -> tuple["subprocess.Popen[str]", list[int], set[str]]:
    """A sweep of ``ruleset`` (12 seeds) into ``data`` once it has committed values and started its
    workers; its processes and the semaphores they have mapped."""
    command = [sys.executable, "-m", "ruma.client.cli", "sweep", ruleset, "--seeds", "12",
               "--data", str(data), "--workers", workers, "--no-progress"]
    # (a new session, as a terminal's foreground job: a Ctrl-C goes to the driver and its workers;
    # and with Ctrl-C's default action, as a terminal's job has it: a child inherits an ignored
    # signal, and in full runs on pytest-xdist's workers the test process was seen to ignore it)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=_default_ctrl_c)
    deadline = time.monotonic() + 120
    children = int(workers) if int(workers) > 1 else 0  # (in one process, an impartial sweep starts none)
    while time.monotonic() < deadline and process.poll() is None and not (
            committed(data) and len(_descendants(process.pid)) >= children):
        time.sleep(0.02)
    assert process.poll() is None, "the sweep ended before it could be stopped"
    processes = _descendants(process.pid)
    return process, processes, _semaphores([process.pid, *processes])


@pytest.mark.alone
def test_a_sweep_killed_outright_leaves_no_process_and_no_semaphore(tmp_path: Path) -> None:
    process, processes, semaphores = _running_sweep(tmp_path / "data", "impartial-sowing", "2")
    assert processes and semaphores
    os.kill(process.pid, signal.SIGKILL)  # the driver alone: its workers must not go on for nobody
    process.communicate(timeout=60)
    alive, left = _gone_within(processes, semaphores, 5.0)
    for pid in alive:  # (not left behind by a failing test)
        os.kill(pid, signal.SIGKILL)
    assert not alive and not left, (alive, left)


@pytest.mark.alone
@pytest.mark.parametrize("ruleset, workers", [("impartial-sowing", "1"), ("impartial-sowing", "2"), ("sowing", "2")])
def test_ctrl_c_stops_a_sweep_and_keeps_what_it_committed(tmp_path: Path, ruleset: str, workers: str) -> None:
    # (both through the shared tables: nim values; partizan Sowing's as shared games)
    data = tmp_path / "data"
    process, processes, semaphores = _running_sweep(data, ruleset, workers)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    assert _gone_within(processes, semaphores, 5.0) == ([], [])
    stored = contents(data)
    states, keys, _ = enumerate_states(Family.of(ruleset, (0, 12)))
    checked = [(state, stored[key]) for state, key in zip(states[::499], keys[::499]) if key in stored]
    assert checked
    rules, memo = get_ruleset(ruleset), InMemoryMemo()
    assert all(evaluate(rules, state, memo).value == value for state, value in checked)  # what was committed is right


def _entries(ruleset: str, family: Family) -> list[tuple[bytes, Any]]:
    rules = get_ruleset(ruleset)
    memo = InMemoryMemo()
    return [(c.key, evaluate(rules, c.state, memo).value) for c in enumerate_family(family) if c.state]


def test_an_upload_with_one_wrong_value_is_rejected_whole(tmp_path: Path) -> None:
    family = Family.of("sowing", (1, 5), (1, 5))
    entries = _entries("sowing", family)
    wrong_at = len(entries) // 2
    key, value = entries[wrong_at]
    entries[wrong_at] = (key, value + Game.from_options([value], []))  # a different game
    with running_server(tmp_path / "data", verify_fraction=1.0) as (_, address), connect(address) as client:
        with pytest.raises(Exception) as caught:
            client.upload("sowing", entries)
        assert caught.value.code.name == "INVALID_ARGUMENT"
        assert "nothing of the upload was stored" in str(caught.value)
        assert not any(client.contains("sowing", [k for k, _ in entries]))
        entries[wrong_at] = (key, value)
        result = client.upload("sowing", entries)
        assert (result.stored, result.verified) == (len(entries), len(entries))
        assert all(client.contains("sowing", [k for k, _ in entries]))


def test_a_single_wrong_value_is_caught_at_the_default_fraction(tmp_path: Path) -> None:
    rules = get_ruleset("impartial-sowing")
    key = rules.key(rules.normalise(rules.parse("111"))[0])  # *2
    with running_server(tmp_path / "data") as (_, address), connect(address) as client:
        with pytest.raises(Exception) as caught:  # one entry: the sample of at least one is all of it
            client.upload("impartial-sowing", [(key, 1)])
        assert caught.value.code.name == "INVALID_ARGUMENT"
        assert client.upload("impartial-sowing", [(key, 2)]).stored == 1


def test_an_uploads_bad_entries_are_rejected_alone(tmp_path: Path) -> None:
    rules = get_ruleset("impartial-sowing")
    memo = InMemoryMemo()
    good = [(rules.key(rules.normalise(rules.parse(p))[0]), evaluate(rules, rules.parse(p), memo).value)
            for p in ("111", "1112", "312", "2202")]  # Erickson's Table 3: 111 = *2, 1112 = *3
    assert [v for _, v in good[:2]] == [2, 3]
    not_canonical = (rules.key((2, 1, 1)), 2)  # the mirror image of the canonical 112
    not_a_key = (b"\xff" * 12, 1)
    too_large = (rules.key(rules.normalise((1,) * 80)[0]), 0)  # 80 pots: over the server's 64
    entries = [good[0], not_canonical, good[1], not_a_key, good[2], too_large, good[3]]
    with running_server(tmp_path / "data", verify_fraction=1.0) as (_, address), connect(address) as client:
        result = client.upload("impartial-sowing", entries)
        assert (result.stored, result.verified) == (4, 4)
        reasons = dict(result.rejected)
        assert set(reasons) == {not_canonical[0], not_a_key[0], too_large[0]}
        assert "not normalised" in reasons[not_canonical[0]] and "not a stored-position key" in reasons[not_a_key[0]]
        assert "64" in reasons[too_large[0]]
        assert client.contains("impartial-sowing", [k for k, _ in entries]) == [True, False, True, False, True, False, True]
    heavy = (rules.key(rules.normalise(rules.parse("1^16"))[0]), 0)  # docs/tables.md: 1^16 = 0, 77 million positions
    with running_server(tmp_path / "slow", verify_fraction=1.0, limits=Limits(max_seconds=2.0)) as (_, address), \
            connect(address) as client:
        result = client.upload("impartial-sowing", [*good, heavy])
        assert (result.stored, result.verified) == (4, 4)
        assert [k for k, _ in result.rejected] == [heavy[0]] and "ran longer" in result.rejected[0][1]


def test_a_read_only_token_cannot_upload(tmp_path: Path) -> None:
    tokens = {"reader-token": "read", "writer-token": "write"}
    entries = _entries("impartial-sowing", Family.of("impartial-sowing", (1, 4), (1, 4)))
    with running_server(tmp_path / "data", tokens=tokens) as (_, address):
        with connect(address, token="reader-token") as reader:
            with pytest.raises(Exception) as caught:
                reader.upload("impartial-sowing", entries)
            assert caught.value.code.name == "PERMISSION_DENIED"
            assert not any(reader.contains("impartial-sowing", [k for k, _ in entries]))
        with connect(address, token="writer-token") as writer:
            assert writer.upload("impartial-sowing", entries).stored == len(entries)


def test_sweep_to_a_server_then_census_over_grpc_matches_the_local_census(tmp_path: Path) -> None:
    family = Family.of("atomic-wari", (0, 6), (1, 6))
    with running_server(tmp_path / "data", verify_fraction=0.2) as (_, address), connect(address) as client:
        empty = client.census("atomic-wari", (0, 6))  # nothing stored yet: every class is missing
        assert empty.rows == [] and empty.summary is not None
        assert empty.summary.missing == empty.summary.classes > 0
        summary = run_sweep(family, ServerSink(client, "atomic-wari", batch_size=100), workers=2)
        assert summary.classes_valued == summary.classes
        again = run_sweep(family, ServerSink(client, "atomic-wari"), workers=1)
        assert again.already_stored == again.classes and again.classes_valued == 0
        remote = client.census("atomic-wari", (0, 6), by="atomic-weight", simplest=2, notations=["ascii"])
    local_store = tmp_path / "local"
    sweep_store(family, str(local_store), workers=1)
    sink = StoreSink(str(local_store))
    try:
        rows = census(family.rules, enumerate_family(family), sink.store.lookup, "atomic-weight", 2)
    finally:
        sink.close()
    assert [(r.label("ascii"), r.classes, r.raw_positions) for r in rows] == \
        [(r.label("ascii"), r.classes, r.raw_positions) for r in remote.rows]
    assert ([[family.rules.format(p) for p, _, _ in r.simplest] for r in rows]
            == [[p.position for p in r.simplest] for r in remote.rows])
    assert remote.summary is not None and remote.summary.raw_positions == sum(r.raw_positions for r in rows)
    assert remote.summary.missing == 0


def test_census_counts_and_simplest_positions_from_erickson_table_3(tmp_path: Path) -> None:
    # Table 3 (left column, fewest seeds): 11 = *, 111 = *2, 1112 = *3, 110111 = *4, 111121 = *5
    family = Family.of("impartial-sowing", (0, 7), (1, 7))
    sweep_store(family, str(tmp_path), workers=1)
    sink = StoreSink(str(tmp_path))
    try:
        classes = enumerate_family(family)
        rows = census(family.rules, classes, sink.store.lookup, "value", 1)
        by_outcome = census(family.rules, classes, sink.store.lookup, "outcome", 0)
    finally:
        sink.close()
    simplest = {row.group: family.rules.format(row.simplest[0][0]) for row in rows}
    assert [simplest[k] for k in (1, 2, 3, 4, 5)] == ["11", "111", "1112", "110111", "111121"]
    assert sum(r.raw_positions for r in rows) == sum(c.raw_total for c in classes)
    assert [r.group for r in by_outcome] == ["P", "N"]
    assert by_outcome[0].raw_positions == next(r.raw_positions for r in rows if r.group == 0)
    assert nimber(2).nim_value == 2


def test_partizan_census_counts_mirror_images_under_the_negative(tmp_path: Path) -> None:
    family = Family.of("sowing", (0, 5), (1, 5))
    sweep_store(family, str(tmp_path), workers=1)
    sink = StoreSink(str(tmp_path))
    try:
        rows = {r.group: r for r in census(family.rules, enumerate_family(family), sink.store.lookup, "value", 0)}
    finally:
        sink.close()
    for group, row in rows.items():
        if isinstance(group, Game) and group != -group:
            assert rows[-group].raw_positions == row.raw_positions  # mirror images have negated values


def test_cli_sweep_and_census(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    swept = ruma("sweep", "impartial-sowing", "--seeds", "6", "--data", data, "--workers", "1", "--json")
    assert swept.returncode == 0, swept.stderr
    assert '"classes_valued"' in swept.stdout and "created a new store" in swept.stderr
    again = ruma("sweep", "impartial-sowing", "--seeds", "7", "--data", data, "--workers", "1")
    assert again.returncode == 0 and " classes valued by searching " in again.stdout
    assert "a class made of components already valued is summed, not searched" in again.stdout
    table = ruma("census", "impartial-sowing", "--seeds", "6", "--data", data, "--format", "csv", "--simplest", "1")
    assert table.returncode == 0 and table.stdout.splitlines()[0].startswith("by,group")
    assert "value,∗2,2," in table.stdout
    bad = ruma("census", "impartial-sowing", "--seeds", "6..2", "--data", data)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    unknown = ruma("sweep", "nim", "--seeds", "3", "--data", data)
    assert unknown.returncode == 2 and "cannot sweep 'nim'" in unknown.stderr
    down = ruma("census", "sowing", "--seeds", "3", "--server", "127.0.0.1:1", "--timeout", "5")
    assert down.returncode == 3, down.stderr
    # like sweep, a census creates the store it is told to use and values what is missing into it
    fresh = ruma("census", "sowing", "--seeds", "3", "--data", str(tmp_path / "fresh"), "--format", "csv")
    assert fresh.returncode == 0, fresh.stderr
    assert (tmp_path / "fresh").is_dir() and "created a new store" in fresh.stderr
    # a server that takes 4 pots at most stores the rest of a sweep to 5 pots, and says what it rejected
    with running_server(tmp_path / "narrow", limits=Limits(max_pots=4)) as (_, address):
        remote = ruma("sweep", "impartial-sowing", "--seeds", "5", "--server", address, "--workers", "1", "--json")
        assert remote.returncode == 1, remote.stderr
        last = remote.stderr.strip().splitlines()[-1]
        assert last.startswith("ruma sweep: the server rejected ") and "(it stored the others)" in last
        assert "exceeds this server's limits (4 pots" in remote.stderr
        with connect(address) as client:
            rules = get_ruleset("impartial-sowing")
            assert client.contains("impartial-sowing", [rules.key((1, 1, 1, 1)), rules.key((1, 1, 1, 1, 1))]) == [True, False]


@pytest.mark.parametrize("ruleset", ["sowing", "atomic-wari"])
def test_a_partizan_ruleset_is_swept_on_every_core_unless_fewer_workers_are_asked_for(tmp_path: Path,
                                                                                     ruleset: str) -> None:
    from ruma.client.sweep.driver import default_workers

    cores = default_workers()
    family = Family.of(ruleset, (0, 6))
    default = sweep_store(family, str(tmp_path / "default"))
    assert (default.workers, default.backend) == (cores, "inline" if cores == 1 else "processes")
    one = sweep_store(family, str(tmp_path / "one"), workers=1)
    assert (one.workers, one.backend) == (1, "inline")
    impartial = sweep_store(Family.of("impartial-" + ruleset, (0, 6)), str(tmp_path / "impartial"))
    assert impartial.workers == cores
    assert contents(tmp_path / "default") == contents(tmp_path / "one")


@pytest.mark.parametrize("ruleset", ["sowing", "atomic-wari", "impartial-sowing"])
def test_a_sweep_walks_its_family_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ruleset: str) -> None:
    # No shared table serves the values of the pure-Python engine: such a sweep must go straight to
    # the packets' way, not walk the family for a table first and then again without it; a sweep
    # through a table (impartial or partizan) walks it once too.
    import ruma.client.sweep.driver as sweep
    import ruma.client.sweep.shared as sweep_shared

    walks: list[str] = []

    def counted(name: str, walk: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            walks.append(name)
            return walk(*args, **kwargs)
        return run

    for module in (sweep, sweep_shared):
        monkeypatch.setattr(module, "enumerate_states", counted(module.__name__, module.enumerate_states))
    family = Family.of(ruleset, (0, 6))
    summary = sweep_store(family, str(tmp_path / "store"), workers=1)
    assert len(walks) == 1, walks
    assert summary.classes == len(enumerate_family(family))
    assert len(contents(tmp_path / "store")) >= summary.classes
