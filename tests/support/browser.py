"""A real headless Chromium (Debian's chromium + chromedriver, driven by selenium).

The browser is found at ``RUMA_CHROMIUM`` / ``RUMA_CHROMEDRIVER`` (default ``/usr/bin/chromium``
and ``/usr/bin/chromedriver``); without them a test that asks for it is skipped, unless
``RUMA_REQUIRE_CHROMIUM=1`` (set by ``.ci/run``), which makes their absence a failure.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Iterator

import pytest

CHROMIUM = os.environ.get("RUMA_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("RUMA_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900"]


def require_browser() -> None:
    """Skip the test (or fail it, with ``RUMA_REQUIRE_CHROMIUM=1``) when there is no browser."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    try:
        import selenium  # noqa: F401
    except ModuleNotFoundError:
        missing.append("the selenium package")
    if missing:
        message = f"no headless browser: {', '.join(missing)} missing (apt-get install chromium chromium-driver)"
        if os.environ.get("RUMA_REQUIRE_CHROMIUM") == "1":
            pytest.fail(message)
        pytest.skip(message)


@contextlib.contextmanager
def headless_chromium(profile: Path) -> Iterator[Any]:
    """A selenium driver of a headless Chromium whose profile is in ``profile``; quit at the end."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


def element_text(driver: Any, css: str) -> str:
    """The text of the page's element ``css``."""
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.CSS_SELECTOR, css).text)
