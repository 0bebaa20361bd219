"""Where a sweep's CPU goes, stage by stage, and what Amdahl's law makes of it (``bench_sweep.py``).

``stages(family, workers)`` sweeps ``family`` into a fresh store the way ``ruma sweep`` does —
its own worker processes, started and ended by the sweep, and the store rewritten densely at the
end where it needs it — in this process, and measures the CPU of every process taking part:
this process (the driver: the walk's hand-over, the drains, the commits' hand-over), the dense
rewrite (this process, during ``close``), the store's writer process, the worker processes'
valuing (the summary's ``worker_cpu_seconds``) and the rest of their CPU (their start, the fork
server's), found by reading ``/proc`` every few milliseconds while the sweep runs (a process's
last reading is at most one interval short) and checked against ``RUSAGE_CHILDREN``.

The **serial part** is everything that does not shrink when workers are added: the driver, the
rewrite and the writer (and this process's own start and imports, which a command adds:
``command_cpu``). Amdahl's law then gives, for ``n`` cores, ``T(n) = S + P / n + o`` (``S`` the
serial CPU, ``P`` the workers' valuing, ``o`` one worker's start-up, paid by every worker at once)
and the speed-up ``(S + P + o) / T(n)`` over one worker.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruma.client.sweep.driver import StoreSink, run_sweep
from ruma.engine.families.classes import Family

_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_of(pid: str) -> tuple[int, float, str] | None:
    """(parent, CPU seconds, command line) of a live process, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, IndexError):
        return None
    return int(stat[1]), (int(stat[11]) + int(stat[12])) / _TICK, line


class _Watch(threading.Thread):
    """Reads the CPU of this process's descendants every ``every`` seconds (the last reading of
    each is kept once it is gone)."""

    def __init__(self, every: float = 0.01) -> None:
        super().__init__(daemon=True)
        self.every, self.seen, self.parents, self.lines = every, {}, {}, {}
        self.stop = threading.Event()
        self.before = dict(self._read())  # (processes alive before the sweep: their CPU then)

    def _read(self) -> list[tuple[int, float]]:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                got = _cpu_of(entry)
                if got is not None:
                    self.parents[int(entry)] = got[0]
                    if got[2] or int(entry) not in self.lines:  # (an ending process's is empty)
                        self.lines[int(entry)] = got[2]
                    found.append((int(entry), got[1]))
        return found

    def run(self) -> None:
        while not self.stop.wait(self.every):
            self.seen.update(self._read())

    def descendants(self) -> dict[int, float]:
        """CPU spent during the watch by each descendant of this process."""
        self.seen.update(self._read())
        mine, changed = {os.getpid()}, True
        while changed:
            changed = False
            for pid, parent in self.parents.items():
                if parent in mine and pid not in mine:
                    mine.add(pid)
                    changed = True
        return {pid: cpu - self.before.get(pid, 0.0) for pid, cpu in self.seen.items()
                if pid in mine and pid != os.getpid()}


@dataclass
class Stages:
    """CPU seconds of each stage of one sweep (see the module docstring)."""

    workers: int
    wall: float
    driver: float
    rewrite: float
    writer: float
    valuing: float
    worker_rest: float
    other: float
    children_checked: float

    @property
    def serial(self) -> float:
        """The CPU that does not shrink when workers are added."""
        return self.driver + self.rewrite + self.writer + self.other

    @property
    def total(self) -> float:
        return self.serial + self.valuing + self.worker_rest

    def amdahl(self, cores: int) -> float:
        """Amdahl's speed-up on ``cores`` cores over one worker, from these stages."""
        startup = self.worker_rest / max(1, self.workers)
        one = self.serial + self.valuing + startup
        return one / (self.serial + self.valuing / cores + startup)


def stages(family: Family, workers: int) -> Stages:
    """Sweep ``family`` into a fresh store on ``workers`` processes, stage by stage."""
    directory = tempfile.mkdtemp(prefix="ruma-bench-stages-")
    watch = _Watch()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    watch.start()
    started, cpu = time.perf_counter(), time.process_time()
    sink = StoreSink(directory, merge_last=True)  # (as ``ruma sweep``'s)
    clock = time.pthread_getcpuclockid(watch.ident or 0)  # (the watch's own CPU, in this process's)
    try:
        summary = run_sweep(family, sink, workers=workers)
        watched = time.clock_gettime(clock)
        driver = time.process_time() - cpu - watched
        cpu = time.process_time()
    finally:
        sink.close(dense=True)
    rewrite = time.process_time() - cpu - (time.clock_gettime(clock) - watched)
    wall = time.perf_counter() - started
    watch.stop.set()
    watch.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    used = watch.descendants()
    writer = sum(cpu for pid, cpu in used.items() if "writer_child" in watch.lines[pid])
    workers_all = sum(cpu for pid, cpu in used.items() if "multiprocessing" in watch.lines[pid]
                      and "resource_tracker" not in watch.lines[pid])
    other = sum(used.values()) - writer - workers_all
    shutil.rmtree(directory)
    return Stages(workers, wall, driver, rewrite, writer, summary.worker_cpu_seconds,
                  max(0.0, workers_all - summary.worker_cpu_seconds), other, reaped)


def command_cpu(ruleset: str, seeds: int, workers: int) -> tuple[float, float]:
    """(CPU of the whole process tree, the workers' valuing CPU) of ``ruma sweep RULESET --seeds
    SEEDS --workers W --json`` into a fresh store: the serial share as a command pays it."""
    directory = tempfile.mkdtemp(prefix="ruma-bench-command-")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "ruma.client.cli", "sweep", ruleset, "--seeds", str(seeds),
                           "--workers", str(workers), "--json", "--no-progress", "--data", directory + "/store"],
                          capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(directory)
    import json

    summary: dict[str, Any] = json.loads(done.stdout)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, summary["worker_cpu_seconds"]


def report(family: Family, workers: int, ruleset: str, seeds: int, cores: int = 16) -> dict[str, Any]:
    """Print the stages of a sweep on ``workers`` processes and Amdahl's speed-up for ``cores``;
    returns them as a record."""
    s = stages(family, workers)
    tree, valuing = command_cpu(ruleset, seeds, workers)
    watched = s.writer + s.other + s.valuing + s.worker_rest
    print(f"  stages at {workers} workers (CPU s): driver {s.driver:.2f}, dense rewrite {s.rewrite:.2f}, "
          f"writer process {s.writer:.2f}, other {s.other:.2f} | workers valuing {s.valuing:.2f}, "
          f"workers' start-up and rest {s.worker_rest:.2f} (children per /proc {watched:.2f}, "
          f"per rusage {s.children_checked:.2f})")
    print(f"  serial share (driver, rewrite, writer) {s.serial / s.total:.1%} of {s.total:.2f} s; "
          f"Amdahl for {cores} cores: {s.amdahl(cores):.1f}x over one worker")
    print(f"  ruma sweep {ruleset} --seeds {seeds} --workers {workers}: process tree {tree:.2f} s CPU, workers valuing "
          f"{valuing:.2f} s: serial share {(tree - valuing) / tree:.1%}")
    return {"workers": workers, "driver": s.driver, "rewrite": s.rewrite, "writer": s.writer, "other": s.other,
            "valuing": s.valuing, "worker_rest": s.worker_rest, "serial_share": s.serial / s.total,
            f"amdahl_{cores}": s.amdahl(cores), "command_tree_cpu": tree, "command_worker_cpu": valuing,
            "command_serial_share": (tree - valuing) / tree}
