"""The web tests' browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.support.browser import headless_chromium


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium (skipped where there is none, unless ``RUMA_REQUIRE_CHROMIUM=1``)."""
    with headless_chromium(tmp_path / "chromium-profile") as driver:
        yield driver
