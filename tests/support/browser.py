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
         "--disable-dev-shm-usage", "--window-size=1000,900"]
#: the widths at which pages must break no token and overflow nothing
WIDTHS = (1000, 1400)
#: a token of a text node drawn on more than one line; in values and commands (which may wrap at
#: their spaces and after the slashes of slash notation) a token is what lies between them
BROKEN_TOKENS = r"""
const broken = [];
const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const element = node.parentElement;
  if (element.closest('svg, select, script, style')) continue;
  const wraps = element.closest('code.value, code.option-value, code.named-value, code.group, code.wrap');
  const pattern = wraps ? /[^\s|]+/g : /\S+/g;
  for (const match of node.data.matchAll(pattern)) {
    const range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    const lines = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
    if (lines.size > 1) broken.push(match[0]);
  }
}
return broken;
"""



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


def check_widths(driver: Any, url: str, widths: tuple[int, ...] = WIDTHS) -> None:
    """At each width, the page at ``url`` breaks no token across lines and is no wider than the window."""
    for width in widths:
        driver.set_window_size(width, 900)
        driver.get(url)
        driver.execute_async_script("const done = arguments[0]; document.fonts.ready.then(() => done(true));")
        assert driver.execute_script(BROKEN_TOKENS) == [], (url, width)
        scroll, inner = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll <= inner, (url, width, scroll, inner)
    driver.set_window_size(1000, 900)


def screenshot(driver: Any, path: Path) -> Path:
    """A PNG of the page at the window's width (its fonts loaded), 2,400 pixels of it at most."""
    driver.execute_async_script("const done = arguments[0]; document.fonts.ready.then(() => done(true));")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(driver.get_window_size()["width"], min(max(900, height + 150), 2400))
    assert driver.save_screenshot(str(path))
    driver.set_window_size(driver.get_window_size()["width"], 900)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
    return path
