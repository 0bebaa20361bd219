"""Tests in parallel, and the tests that must run with nothing beside them.

The suite runs on pytest-xdist's workers, one a core (``-n auto --dist loadfile``: a file's tests
stay together on one worker, so its module fixtures are made once). A test that measures a latency,
waits on a deadline or holds a machine-wide resource (a PostgreSQL database, a Ray cluster, the
shared-memory folder it counts) is marked ``alone`` and runs with no other test beside it.

Two lock files shared by the run's workers make that so: every test passes the *gate* and holds the
*room* shared for as long as it runs (its setup and teardown included); a test marked ``alone`` holds
the gate while it waits for the room alone and for as long as it runs, so the other workers finish
the test they are in and then wait at the gate — no new test starts beside it, and it does not wait
behind a queue of them. Outside xdist (``-n 0``, or one test run by hand) nothing is locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

#: the key of the lock files' folder in each worker's ``workerinput`` (the controller makes it)
WORKER_INPUT = "ruma_turnstile"

_files: dict[str, IO[bytes]] = {}


def make() -> Path:
    """The lock files' folder for one run (made by the controller, removed by ``remove``)."""
    return Path(tempfile.mkdtemp(prefix="ruma-tests-"))


def remove(folder: Path) -> None:
    """Remove the run's lock files (the controller, once its workers are gone)."""
    shutil.rmtree(folder, ignore_errors=True)


def _lock_file(folder: str, name: str) -> IO[bytes]:
    if name not in _files:
        _files[name] = open(Path(folder) / name, "a+b")  # noqa: SIM115 - (kept open for the worker's life)
    return _files[name]


@contextlib.contextmanager
def passage(folder: str | None, alone: bool) -> Iterator[None]:
    """Hold the room for one test: shared, or (``alone``) to itself; nothing without a ``folder``
    (not an xdist worker)."""
    if folder is None:
        yield
        return
    gate, room = _lock_file(folder, "gate"), _lock_file(folder, "room")
    fcntl.flock(gate, fcntl.LOCK_EX)
    try:
        fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
    finally:
        if not alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
    try:
        yield
    finally:
        fcntl.flock(room, fcntl.LOCK_UN)
        if alone:
            fcntl.flock(gate, fcntl.LOCK_UN)
