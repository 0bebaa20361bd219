"""What every test folder shares: the ``both_engines`` marker. The harnesses (a real server,
``ruma serve``, the explorer, commands in a fresh process) and the oracles are modules of
``tests/support``; a folder's own fixtures are in its ``conftest.py`` (``web/``: the browser)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register ``both_engines`` (beside the markers ``pyproject.toml`` declares)."""
    config.addinivalue_line(
        "markers", "both_engines: code paths that differ between the engines; tests/engine/test_native_engine.py "
        "re-runs these tests with RUMA_ENGINE=python")
