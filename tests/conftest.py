"""What every test folder shares: the ``both_engines`` marker (its pure-Python re-run started in the
background: ``tests/support/python_rerun.py``) and Ray kept on loopback. The harnesses (a real server,
``ruma serve``, the explorer, commands in a fresh process) and the oracles are modules of
``tests/support``; a folder's own fixtures are in its ``conftest.py`` (``web/``: the browser)."""

from __future__ import annotations

import os

import pytest

from tests.support import python_rerun

# Ray reads this when it is first imported: with it, every cluster a test starts, and every driver
# that joins one, stays on 127.0.0.1 (never the machine's other addresses)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def pytest_configure(config: pytest.Config) -> None:
    """Register ``both_engines`` (beside the markers ``pyproject.toml`` declares)."""
    config.addinivalue_line(
        "markers", "both_engines: code paths that differ between the engines; tests/engine/test_native_engine.py "
        "re-runs these tests with RUMA_ENGINE=python")


_RERUN = pytest.StashKey["python_rerun.Rerun | None"]()


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """When the pure-Python engine's re-run is selected, start it now in the background and check it last."""
    checks = [item for item in items if python_rerun.is_check(item.nodeid)]
    if checks:
        items[:] = [item for item in items if item not in checks] + checks
        config.stash[_RERUN] = python_rerun.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop a re-run the session did not wait for."""
    python_rerun.stop(config.stash.get(_RERUN, None))


@pytest.fixture
def python_engine_rerun(request: pytest.FixtureRequest) -> "python_rerun.Rerun | None":
    """The background re-run of the ``both_engines`` tests on the pure-Python engine."""
    return request.config.stash.get(_RERUN, None)
