"""The explorer in a real headless Chromium (Debian's chromium + chromedriver, driven by selenium),
against a real gRPC server and the explorer on loopback ports.

Expected values are Erickson's (Sowing Games, 1996): Theorem 2.2 ``(10)^m 03 (01)^n = 0`` (Left
has no legal move), Theorem 2.4 ``11(01)^n = {n+1|0}``, Theorem 2.3 ``(01)^m 2 (01)^n = n+1``,
Table 1 ``2202 = ↑``; ``3001300102 = 5·↑``, whose Left option ``0112300102`` has a tiny in its value
(``{0|⧾({1|1, {1|∗}})||0, ∗|-1}``) and drew it as an empty box where the system has no font with
``⧾`` (Debian's DejaVu has none).

The browser is found as ``tests/support/browser.py`` says (``RUMA_CHROMIUM``,
``RUMA_CHROMEDRIVER``); without it the test is skipped, unless ``RUMA_REQUIRE_CHROMIUM=1`` (set by
``.ci/run``). The window is 1000 pixels wide; pages
are checked at 1000 and 1400 pixels for positions, numbers and words broken across lines and for
overflow. The screenshots (position and catalog pages at 1000 px) and the page timings are written
to the test's tmp dir and, when ``RUMA_ARTIFACTS_DIR`` is set, copied there.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tests.support import ROOT
from tests.support.browser import check_widths, element_text, screenshot
from tests.support.grpc_harness import connect

#: the shipped font's state once the page's fonts are loaded, and ⧾ and ⧿ drawn with it (as data
#: URLs of a canvas) beside an unassigned character, which no font draws (an empty box)
FONT_STATE = r"""
const done = arguments[arguments.length - 1];
document.fonts.ready.then(() => {
  const ink = (text, font) => {
    const canvas = document.createElement('canvas');
    canvas.width = 64; canvas.height = 64;
    const context = canvas.getContext('2d');
    context.font = font;
    context.fillText(text, 8, 48);
    return canvas.toDataURL();
  };
  done({check: document.fonts.check('16px "Ruma Symbols"', '⧾⧿'),
        faces: Array.from(document.fonts).map(f => [f.family, f.status]),
        fetched: performance.getEntriesByType('resource').filter(e => e.name.endsWith('/static/ruma-symbols.woff2')).length,
        tiny: ink('⧾', '48px "Ruma Symbols"'), miny: ink('⧿', '48px "Ruma Symbols"'),
        none: ink('\u0378', '48px "Ruma Symbols"')});
});
"""




def _navigation(driver: Any) -> dict[str, Any]:
    return dict(driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "return {response_start: n.responseStart - n.startTime, dom_content_loaded: n.domContentLoadedEventEnd - n.startTime,"
        " load: n.loadEventEnd - n.startTime, transfer_size: n.transferSize,"
        " server: Object.fromEntries(n.serverTiming.map(s => [s.name, s.duration]))};"))


def test_explorer_in_headless_chromium(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from tests.support.web_harness import explorer

    with explorer(tmp_path / "data") as (address, url):
        # A shareable URL typed as it is written in the paper: Theorem 2.2, and Left has no move.
        browser.get(url + "/sowing/(10)^3 03 (01)^2")
        assert element_text(browser, "#value") == "0"
        assert element_text(browser, "#position") == "101010030101"
        assert element_text(browser, "#left-options .none") == "no moves"
        assert len(browser.find_elements(By.CSS_SELECTOR, "#right-options a.option")) == 1

        # Type a position into the form: Theorem 2.4, 11(01)^2 = {3|0}.
        field = browser.find_element(By.ID, "position-input")
        field.clear()
        field.send_keys("11(01)^2")
        Select(browser.find_element(By.ID, "ruleset-select")).select_by_value("sowing")
        browser.find_element(By.ID, "position-submit").click()
        WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.ID, "value") and "11" in d.title)
        assert element_text(browser, "#value") == "{3|0}"
        with connect(address) as client:
            assert client.evaluate("sowing", "11(01)^2").value.unicode == "{3|0}"

        # Click Left's option and land on its page, with the value the list gave it (Theorem 2.3: 3).
        link = browser.find_element(By.CSS_SELECTOR, "#left-options a.option")
        target, listed = link.text, element_text(browser, "#left-options .option-value")
        assert listed == "3" and "winning" in element_text(browser, "#left-options tr.winning")
        link.click()
        WebDriverWait(browser, 60).until(lambda d: unquote(urlparse(d.current_url).path) == f"/sowing/{target}")
        assert element_text(browser, "#value") == listed
        assert element_text(browser, "#position") == target

        # Search the catalog by value: Table 1's 2202 = ↑ among the named positions of value ^.
        browser.get(url + "/search")
        Select(browser.find_element(By.ID, "search-ruleset")).select_by_value("sowing")
        browser.find_element(By.ID, "search-value").send_keys("^")
        browser.find_element(By.ID, "search-submit").click()
        WebDriverWait(browser, 120).until(lambda d: d.find_elements(By.ID, "catalog-results"))
        names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#catalog-results a.name")]
        assert "erickson-t1-2202" in names
        stored = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#stored-results a")]
        assert "2202" in stored

        # A position page with its options, stored already: the browser's own navigation timing.
        timings = []
        for _ in range(7):
            browser.get(url + "/sowing/11(01)^2")
            assert element_text(browser, "#value") == "{3|0}"
            timings.append(_navigation(browser))

    loads = [t["load"] for t in timings[1:]]  # the first visit warms the page's caches
    report = {"page": "/sowing/11(01)^2 (stored, with its options)", "visits": timings,
              "median_load_ms": statistics.median(loads), "max_load_ms": max(loads)}
    (tmp_path / "explorer-timings.json").write_text(json.dumps(report, indent=1))
    print(f"\nposition page load (stored position, median of {len(loads)}): {report['median_load_ms']:.1f} ms; "
          f"server {statistics.median(t['server'].get('app', 0.0) for t in timings[1:]):.1f} ms")
    artifacts = os.environ.get("RUMA_ARTIFACTS_DIR")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / "explorer-timings.json", Path(artifacts) / "explorer-timings.json")


def test_glyphs_and_tokens_at_1000_and_1400_px(tmp_path: Path, browser: Any) -> None:
    """Tiny and miny are drawn with the explorer's own font (served from /static), and no page
    breaks a position, number or word across lines or overflows at 1000 or 1400 pixels; the
    position and catalog pages' screenshots at 1000 pixels are kept."""
    import httpx

    from ruma.web.glyphs import FONT
    from tests.support.web_harness import explorer

    with explorer(tmp_path / "data") as (_, url):
        served = httpx.get(f"{url}/static/{FONT}", timeout=60)
        assert served.status_code == 200 and served.headers["content-type"] == "font/woff2"
        assert served.content == (ROOT / "web" / "static" / FONT).read_bytes()

        browser.get(url + "/sowing/3001300102")  # = 5·↑; its Left option 0112300102 has ⧾ in its value
        assert element_text(browser, "#value") == "5·↑"
        assert "⧾" in element_text(browser, "#left-options .option-value")
        font = browser.execute_async_script(FONT_STATE)
        assert font["check"] and ["Ruma Symbols", "loaded"] in font["faces"] and font["fetched"] == 1, font
        assert len({font["tiny"], font["miny"], font["none"]}) == 3  # two glyphs, neither an empty box
        pages = {"position": "/sowing/3001300102", "catalog": "/catalog", "home": "/",
                 "census": "/census?ruleset=sowing&seeds=1-4&pots=1-4", "theorems": "/theorems",
                 "value": "/value?expression=" + "Tiny(2)%2BMiny(1/2)%2B%7B3%7C%7C2%7C0%7D"}
        for path in pages.values():
            check_widths(browser, url + path)
        shots = {}
        for name in ("position", "catalog"):
            browser.get(url + pages[name])
            assert browser.execute_script("return window.innerWidth") == 1000
            shots[name] = screenshot(browser, tmp_path / f"explorer-{name}.png")
    artifacts = os.environ.get("RUMA_ARTIFACTS_DIR")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        for shot in shots.values():
            shutil.copy(shot, Path(artifacts) / shot.name)


def test_heavy_position_catalog_values_and_theorems_at_1000_px(tmp_path: Path, browser: Any) -> None:
    """A position that takes longer than a page waits (Sowing 1^12: 349,913 positions) gets an
    immediate page; its button values it in the background and the page that follows the job ends
    on the position. The catalog lists every named position with its value (Table 1: 2202 = ↑),
    and the theorems page, with a verification run, fits a 1000-pixel window."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.support.web_harness import explorer

    with explorer(tmp_path / "data", page_seconds=0.3) as (address, url):
        browser.get(url + "/sowing/1^12")
        assert "longer than a page waits (0.3 s)" in element_text(browser, "#heavy-reason")
        assert element_text(browser, "#command") == f"ruma query --server {address} sowing '1^12'"
        assert "at most 60 s a request" in element_text(browser, "#command-note")
        check_widths(browser, browser.current_url)
        assert element_text(browser, "#local-command") == "ruma eval sowing '1^12' --no-limit"
        browser.find_element(By.ID, "compute").click()
        WebDriverWait(browser, 30).until(lambda d: "/jobs/" in d.current_url or d.find_elements(By.ID, "value"))
        WebDriverWait(browser, 600).until(lambda d: unquote(urlparse(d.current_url).path) == "/sowing/1^12"
                                          and d.find_elements(By.ID, "value"))
        with connect(address) as client:
            assert element_text(browser, "#value") == client.evaluate("sowing", "1^12").value.unicode
        check_widths(browser, browser.current_url)  # its options 021111111111 ..., their long values

        browser.get(url + "/catalog")
        rows = browser.find_elements(By.CSS_SELECTOR, "#catalog-results tr")[1:]
        values = [row.find_element(By.CSS_SELECTOR, "td.value-cell").text for row in rows]
        assert len(rows) > 100 and all(values) and "None" not in values
        row_2202 = next(row for row in rows if row.text.startswith("erickson-t1-2202"))
        assert row_2202.find_element(By.CSS_SELECTOR, ".named-value").text == "↑"
        assert row_2202.find_element(By.CSS_SELECTOR, "td.agreement").text == "↑ agrees"

        with connect(address) as client:
            client.catalog.verify("erickson-2.3", 3)
        check_widths(browser, url + "/theorems")  # nothing overflows a 1000-pixel window, no name is broken
        browser.get(url + "/theorems")
        run = browser.find_element(By.CSS_SELECTOR, "#theorems time").text
        assert len(run) == len("2026-11-27 08:17 UTC") and run.endswith(" UTC"), run
        screenshot(browser, tmp_path / "theorems-1000px.png")


def test_copy_as_cgsuite_puts_cgsuites_text_on_the_clipboard(tmp_path: Path, browser: Any) -> None:
    """The "copy as CGSuite" button beside a value copies the value as CGSuite writes it: CGSuite's
    own test suite (GameTest.scala) prints {3||2+*|1+*}.Overheat(*,1+*) as {1||+-(1*)|-1,{-1|-3}};
    Erickson's Theorem 2.4 gives 11(01)^2 = {3|0}. Pages with the buttons still fit 1000 pixels."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.support.web_harness import explorer

    with explorer(tmp_path / "data") as (_, url):
        browser.execute_cdp_cmd("Browser.grantPermissions", {
            "origin": url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        for path, text in (("/value?expression=" + "%7B3%7C%7C2*%7C1*%7D.Overheat(*%2C%201*)", "{1||+-(1*)|-1,{-1|-3}}"),
                           ("/sowing/11(01)%5E2", "{3|0}")):
            browser.get(url + path)
            button = browser.find_element(By.CSS_SELECTOR, "h1 button.copy-cgsuite")
            assert button.text == "copy as CGSuite" and button.get_attribute("data-cgsuite") == text
            button.click()
            WebDriverWait(browser, 10).until(lambda d: button.get_attribute("data-state") == "copied")
            assert button.text == "copied"
            pasted = browser.execute_async_script("navigator.clipboard.readText().then(arguments[0])")
            assert pasted == text
            WebDriverWait(browser, 10).until(lambda d: button.text == "copy as CGSuite")
        rows = browser.find_elements(By.CSS_SELECTOR, "#left-options button.copy-cgsuite")
        assert rows and all(b.text == "CGSuite" and b.get_attribute("data-cgsuite") for b in rows)
        check_widths(browser, url + "/sowing/11(01)%5E2")
