"""What every test folder shares: the ``both_engines`` marker and Ray kept on loopback. The harnesses (a real server,
``ruma serve``, the explorer, commands in a fresh process) and the oracles are modules of
``tests/support``; a folder's own fixtures are in its ``conftest.py`` (``web/``: the browser)."""

from __future__ import annotations

import os

import pytest

# Ray reads this when it is first imported: with it, every cluster a test starts, and every driver
# that joins one, stays on 127.0.0.1 (never the machine's other addresses)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def pytest_configure(config: pytest.Config) -> None:
    """Register ``both_engines`` (beside the markers ``pyproject.toml`` declares)."""
    config.addinivalue_line(
        "markers", "both_engines: code paths that differ between the engines; tests/engine/test_native_engine.py "
        "re-runs these tests with RUMA_ENGINE=python")
