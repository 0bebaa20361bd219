"""What every test folder shares: the ``both_engines`` marker (its pure-Python re-run started in the
background: ``tests/support/python_rerun.py``), the ``alone`` marker (tests run on pytest-xdist's
workers, and those marked so with no other beside them: ``tests/support/turnstile.py``) and Ray kept
on loopback. The harnesses (a real server, ``ruma serve``, the explorer, commands in a fresh
process) and the oracles are modules of ``tests/support``; a folder's own fixtures are in its
``conftest.py`` (``web/``: the browser)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import python_rerun, turnstile

# Ray reads this when it is first imported: with it, every cluster a test starts, and every driver
# that joins one, stays on 127.0.0.1 (never the machine's other addresses)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


_RERUN = pytest.StashKey["python_rerun.Rerun | None"]()
_TURNSTILE = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """Register ``both_engines`` and ``alone`` (beside the markers ``pyproject.toml`` declares); in
    the controller of a distributed run, make the turnstile's folder."""
    config.addinivalue_line(
        "markers", "both_engines: code paths that differ between the engines; tests/engine/test_native_engine.py "
        "re-runs these tests with RUMA_ENGINE=python")
    config.addinivalue_line(
        "markers", "alone: runs with no other test beside it (it measures latencies, waits on deadlines or holds a "
        "machine-wide resource); tests marked postgres are alone too")
    if _worker_input(config) is None and (getattr(config.option, "numprocesses", None) or 0) > 0:
        config.stash[_TURNSTILE] = turnstile.make()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each xdist worker where the turnstile is."""
    node.workerinput[turnstile.WORKER_INPUT] = str(node.config.stash[_TURNSTILE])


def _worker_input(config: pytest.Config) -> dict[str, Any] | None:
    return getattr(config, "workerinput", None)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """When the pure-Python engine's re-run is selected, start it now in the background and check it
    last; on an xdist worker, run its check first instead (the worker that gets it starts the re-run
    and waits for it while the others go on)."""
    checks = [item for item in items if python_rerun.is_check(item.nodeid)]
    if checks and _worker_input(config) is not None:
        items[:] = checks + [item for item in items if item not in checks]
    elif checks:
        items[:] = [item for item in items if item not in checks] + checks
        config.stash[_RERUN] = python_rerun.start()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Run each test (setup, call, teardown) through the turnstile: alone where it is marked so."""
    folder = (_worker_input(item.config) or {}).get(turnstile.WORKER_INPUT)
    if python_rerun.is_check(item.nodeid):  # (it only waits: the re-run's tests are not this suite's)
        folder = None
    alone = item.get_closest_marker("alone") is not None or item.get_closest_marker("postgres") is not None
    with turnstile.passage(folder, alone):
        return (yield)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop a re-run the session did not wait for; remove the turnstile's folder."""
    python_rerun.stop(config.stash.get(_RERUN, None))
    if _TURNSTILE in config.stash:
        turnstile.remove(config.stash[_TURNSTILE])


@pytest.fixture
def python_engine_rerun(request: pytest.FixtureRequest) -> "python_rerun.Rerun | None":
    """The re-run of the ``both_engines`` tests on the pure-Python engine: started in the background
    when the suite was collected, or (on an xdist worker) now."""
    if _worker_input(request.config) is not None and _RERUN not in request.config.stash:
        request.config.stash[_RERUN] = python_rerun.start()
    return request.config.stash.get(_RERUN, None)
