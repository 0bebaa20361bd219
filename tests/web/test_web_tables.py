"""The explorer's Tables page and its JSON (``ruma.web.tables``), against a real gRPC server whose
store holds the tables ``ruma tables`` computed, and in the real headless Chromium.

Expected values: Erickson's erratum to Table 1 (``2111 = 1/2``, the simplest Sowing position of
value ½) and ``2202 = ↑`` (Table 1); what a table says is what the store keeps, checked by
serving a document written straight into the store.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import httpx
import pytest

from ruma.client.cli import main
from tests.support.browser import check_widths, element_text, screenshot
from tests.support.web_harness import explorer


def tables_into(data: Path) -> None:
    """The three tables at a small bound, computed into the store in ``data``."""
    assert main(["tables", "sowing-values", "wari-nim", "--seeds", "7", "--chains", "2", "--data", str(data)]) == 0
    assert main(["tables", "followers", "--seeds", "5", "--budget", "0.3", "--data", str(data)]) == 0


def get(url: str, path: str) -> httpx.Response:
    return httpx.get(url + path, timeout=60)


def test_the_tables_json_is_what_the_store_keeps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with explorer(tmp_path / "empty", seed=False, catalog=False) as (_, url):
        assert get(url, "/api/v1/tables").json() == []
        missing = get(url, "/api/v1/tables/sowing-values")
        assert missing.status_code == 404 and "no table 'sowing-values'" in missing.json()["error"]["message"]
        assert 'id="no-tables"' in get(url, "/tables").text
    data = tmp_path / "data"
    tables_into(data)
    capsys.readouterr()
    with explorer(data, seed=False, catalog=False) as (_, url):
        listed = get(url, "/api/v1/tables").json()
        assert [t["name"] for t in listed] == ["sowing-values", "wari-nim", "followers"]
        assert listed[0]["bound"] == {"seeds": 7, "pots": 7} and listed[0]["generated"]["peak_rss_bytes"] > 0
        table = get(url, "/api/v1/tables/sowing-values").json()
        half = next(r for r in table["rows"] if r["label"] == "2^-1")
        assert (half["position"], half["url"], half["value"]["ascii"]) == ("2111", "/sowing/2111", "1/2")
        row = get(url, half["api"])
        assert half["api"] == "/api/v1/tables/sowing-values/rows/2%5E-1" and row.json()["position"] == "2111"
        assert get(url, "/api/v1/tables/sowing-values/rows/2^-40").status_code == 404
        wari = get(url, "/api/v1/tables/wari-nim").json()
        assert [r["label"] for r in wari["rows"]][:3] == ["∗0", "∗1", "∗2"]
        followers = get(url, "/api/v1/tables/followers").json()
        three = get(url, "/api/v1/tables/followers/rows/" + "atomic-wari 3^n/2").json()
        assert three["position"] == "33" and three["followers"] == followers["series"][2]["counts"][1]["followers"]
        assert get(url, "/api/v1/tables/followers/rows/seeds/5").json()["seeds"] == 5
        assert get(url, "/api/v1/tables/nonsense").status_code == 404

        # served as stored, never recomputed: a document written into the store is what is served
        from ruma.server.store.memo import LmdbStore

        with LmdbStore(data, create=False) as store:
            document = json.loads(store.documents.get("tables/sowing-values"))
            document["generated"]["command"] = "a sentinel command"
            store.documents.put("tables/sowing-values", json.dumps(document).encode())
        assert get(url, "/api/v1/tables/sowing-values").json()["generated"]["command"] == "a sentinel command"
        assert "a sentinel command" in re.sub(r"<[^>]+>", "", get(url, "/tables").text)  # (a span a word)


def test_the_beyond_section_is_served_with_a_page_for_each_position_found(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``ruma find --beyond`` at a bound of 6 seeds finds 1/4 (Sowing's simplest, 12202, has 7 seeds:
    the sowing-values table), and the Tables page shows what ``ruma tables beyond`` gathered."""
    data = str(tmp_path / "data")
    assert main(["find", "sowing", "1/4", "--beyond", "--seeds", "6", "--pots", "6", "--seconds", "2", "--data", data,
                 "--workers", "1", "--no-progress"]) == 0
    assert main(["tables", "beyond", "--data", data]) == 0
    capsys.readouterr()
    with explorer(Path(data), seed=False, catalog=False) as (_, url):
        assert [t["name"] for t in get(url, "/api/v1/tables").json()] == ["beyond"]
        table = get(url, "/api/v1/tables/beyond").json()
        quarter = next(f for s in table["searches"] for f in s["found"] if f["position"] == "12202")
        assert quarter["url"] == "/sowing/12202" and quarter["value"] == "1/4"
        page = get(url, "/tables").text
        assert 'id="beyond"' in page and 'href="/sowing/12202"' in page and "Searched: " in page


def test_the_tables_page_in_headless_chromium(tmp_path: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    data = tmp_path / "data"
    tables_into(data)
    with explorer(data, seed=False, catalog=False) as (_, url):
        browser.get(url + "/stats")  # found from every page's navigation
        browser.find_element(By.LINK_TEXT, "tables").click()
        WebDriverWait(browser, 60).until(lambda d: urlparse(d.current_url).path == "/tables")
        assert [h.text for h in browser.find_elements(By.CSS_SELECTOR, "section.table-section h2")][:2] == [
            "Sowing values of Erickson's §2 questions: 2^-n, n·↑, n·↑+∗, +_x and ∗n",
            "Table 3 for Impartial Atomic Wari: simplest positions with value ∗n"]
        ups = browser.find_elements(By.CSS_SELECTOR, "#sowing-values table[data-kind='n.^'] tr")
        assert ups and "1·↑" in ups[1].text
        check_widths(browser, url + "/tables")  # no position, number or word broken at 1000 or 1400 px
        assert browser.execute_script("return window.innerWidth") == 1000
        shot = screenshot(browser, tmp_path / "explorer-tables.png")
        # the simplest position of value 1/2 links to its page, which gives the same value
        link = next(a for a in browser.find_elements(By.CSS_SELECTOR, "#sowing-values table[data-kind='2^-n'] a")
                    if a.text == "2111")
        link.click()
        WebDriverWait(browser, 60).until(lambda d: unquote(urlparse(d.current_url).path) == "/sowing/2111")
        assert element_text(browser, "#value") == "1/2"
        browser.get(url + "/sowing/2202")  # and Table 1's 2202 = ↑ is among the ↑ positions' pages
        assert element_text(browser, "#value") == "↑"
    artifacts = os.environ.get("RUMA_ARTIFACTS_DIR")
    if artifacts:
        Path(artifacts).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(artifacts) / "explorer-tables.png")


def test_the_documents_call_serves_what_the_store_keeps_within_its_limit(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import grpc

    from ruma.client.client import RumaRpcError
    from ruma.client.sweeps_client import documents
    from ruma.server.rpc import sweeps
    from ruma.server.store.memo import LmdbStore
    from tests.support.grpc_harness import connect, running_server

    with LmdbStore(tmp_path) as store:
        store.documents.put("tables/a", b"{}")
        store.documents.put("tables/b", b'{"x": 1}')
        store.documents.put("other", b"z")
    with running_server(tmp_path) as (_, address), connect(address) as client:
        assert documents(client, "tables/") == [("tables/a", b"{}"), ("tables/b", b'{"x": 1}')]
        assert [name for name, _ in documents(client)] == ["other", "tables/a", "tables/b"]
        assert documents(client, "nothing/") == []
        monkeypatch.setattr(sweeps, "MAX_DOCUMENTS_BYTES", 5)
        with pytest.raises(RumaRpcError) as info:
            documents(client, "tables/")
        assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "'tables/'" in str(info.value)
