"""No visitor left waiting: the explorer's answers for positions that take long, batches with an
outcome per position, the catalog's values and searches that say how many more there are — over
real HTTP, in front of a real gRPC server.

Values: Erickson 1996 (§2: Sowing 312 = {0|-2}; Table 1: 2202 = ↑ and 11 = ∗; Table 3,
impartial Sowing: 111 = ∗2, 1112 = ∗3); heavy positions are compared with the service's own
answer (what is checked is the route to it).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlparse

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from tests.support.grpc_harness import connect
from tests.support.web_harness import explorer

pytestmark = pytest.mark.alone  # (it times what it runs)

#: Sowing 1^12 values 349,913 positions (docs/benchmarks.md: 6.5 s of CPU): longer than 0.3 s
HEAVY = "1^12"


def get(url: str, path: str, **kwargs: Any) -> Any:
    return httpx.get(url + path, timeout=120, **kwargs)


def _wait(url: str, job: str) -> dict[str, Any]:
    deadline = time.monotonic() + 600
    while True:
        state = get(url, job).json()
        if state["state"] in ("done", "failed") or time.monotonic() > deadline:
            return dict(state)
        time.sleep(0.5)


def test_a_heavy_position_is_answered_at_once_and_valued_in_the_background(tmp_path: Path) -> None:
    with explorer(tmp_path / "data", seed=False, catalog=False, page_seconds=0.3) as (address, url):
        reply = get(url, "/api/v1/positions/sowing/" + quote(HEAVY))
        assert reply.status_code == 202, reply.text
        body = reply.json()
        assert body["code"] == "COMPUTING" and "longer than a page waits (0.3 s)" in body["message"]
        assert body["command"] == f"ruma query --server {address} sowing '{HEAVY}'"  # within the service's limit
        assert reply.headers["location"] == body["job"]["url"] and body["job"]["state"] in ("queued", "running")
        again = get(url, "/api/v1/positions/sowing/" + quote(HEAVY))  # the same job, not a second one
        assert again.status_code == 202 and again.json()["job"]["id"] == body["job"]["id"]
        page = get(url, "/sowing/" + quote(HEAVY))
        assert page.status_code == 200 and 'id="compute"' in page.text and body["command"].replace("'", "&#39;") in page.text
        assert "at most 60 s a request and keeps what it valued" in page.text and "RUMA_TOKEN" not in page.text
        # the page's button: the same job again, whose page refreshes itself until the value is stored
        started = httpx.post(url + "/jobs", data={"ruleset": "sowing", "position": HEAVY}, timeout=60)
        assert started.status_code == 303 and started.headers["location"] == body["job"]["page"]
        following = get(url, started.headers["location"])
        assert following.status_code == 200 and '<meta http-equiv="refresh" content="2">' in following.text
        state = _wait(url, reply.headers["location"])
        assert state["state"] == "done", state
        with connect(address) as client:
            stored = client.evaluate("sowing", HEAVY)
        assert stored.from_store and state["value"] == stored.value.unicode
        done = httpx.get(url + started.headers["location"], timeout=60)
        assert done.status_code == 303 and done.headers["location"] == "/sowing/" + quote(HEAVY)
        valued = get(url, "/api/v1/positions/sowing/" + quote(HEAVY))
        assert valued.status_code == 200 and valued.json()["value"]["unicode"] == stored.value.unicode
        assert get(url, "/sowing/" + quote(HEAVY)).status_code == 200
        assert get(url, "/api/v1/jobs/nope").status_code == 404
        bad = httpx.post(url + "/jobs", data={"ruleset": "sowing"}, timeout=60)
        assert bad.status_code == 400 and "position" in bad.text


def test_a_batch_gives_each_position_its_own_status(tmp_path: Path) -> None:
    positions = ["312", "3x2", "1^200", HEAVY, "2202", "11"]
    with explorer(tmp_path / "data", seed=False, catalog=False, page_seconds=0.5) as (_, url):
        reply = httpx.post(url + "/api/v1/batch/sowing", json={"positions": positions}, timeout=120)
        assert reply.status_code == 200, reply.text
        items = {item["position"]: item for item in reply.json()}
        assert [item["position"] for item in reply.json()] == positions
        assert (items["312"]["status"], items["312"]["value"]["ascii"]) == (200, "{0|-2}")
        assert (items["2202"]["status"], items["2202"]["value"]["unicode"]) == (200, "↑")
        assert (items["11"]["status"], items["11"]["value"]["unicode"]) == (200, "∗")
        assert items["3x2"]["status"] == 400 and "'3x2'" in items["3x2"]["message"]
        assert items["1^200"]["status"] == 422 and "(max_pots)" in items["1^200"]["message"]
        assert items[HEAVY]["status"] == 202 and items[HEAVY]["command"].startswith("ruma query --server ")


def test_the_catalog_lists_values_and_agreement_and_searches_count(tmp_path: Path) -> None:
    with explorer(tmp_path / "data") as (_, url):
        named = get(url, "/api/v1/catalog/positions").json()
        assert len(named) > 100 and all(entry["value"] is not None for entry in named), \
            [e["name"] for e in named if e["value"] is None]
        by_name = {entry["name"]: entry for entry in named}
        assert by_name["erickson-t1-2202"]["value"] == "↑" and by_name["erickson-t1-2202"]["source_agrees"] is True
        assert by_name["erickson-t3-1112"]["value"] == "∗3"  # Table 3
        page = get(url, "/catalog").text
        assert "None" not in page.split('id="catalog-results"')[1]
        assert f'id="catalog-count">{len(named)} named positions' in page
        # impartial Sowing positions of value ∗2 stored by the seeding: more than the page lists
        search = get(url, "/search?ruleset=impartial-sowing&value=" + quote("*2")).text
        shown = search.count("<tr><td><a href=\"/impartial-sowing/")
        stored = get(url, "/api/v1/search/stored?ruleset=impartial-sowing&value=" + quote("*2") + "&limit=1000").json()
        if len(stored) == 1000:  # counted up to 1,000
            assert f"{shown} shown, the simplest first, and more than {1000 - shown:,} more (over 1,000 in all)" in search
        elif len(stored) > shown:
            assert f"{shown} shown, the simplest first, and {len(stored) - shown:,} more ({len(stored):,} in all)" in search
        else:
            assert f"all {len(stored)} stored positions of this value" in search
        assert {"111"} <= {s["position"] for s in stored}  # Table 3: 111 = ∗2


def test_a_heavy_position_names_the_token_the_service_requires_and_never_shows_it(tmp_path: Path) -> None:
    tokens = {"s3cr3t-reader": "read"}
    with explorer(tmp_path / "data", seed=False, catalog=False, page_seconds=0.3, tokens=tokens,
                  gateway_options={"token": "s3cr3t-reader"}) as (address, url):
        reply = get(url, "/api/v1/positions/sowing/" + quote(HEAVY))
        assert reply.status_code == 202, reply.text
        assert reply.json()["command"] == f"ruma query --server {address} --token \"$RUMA_TOKEN\" sowing '{HEAVY}'"
        page = get(url, "/sowing/" + quote(HEAVY)).text
        assert "--token &#34;$RUMA_TOKEN&#34;" in page and "put yours in RUMA_TOKEN" in page
        assert "s3cr3t" not in page and "s3cr3t" not in reply.text


#: a census longer than the 0.05 s these explorers wait (every row of 1..6 seeds in 1..22 pots:
#: 1,560,757 positions, 40,743 classes), and one longer than the service's 1 s (1..8 seeds)
CENSUS, LONG_CENSUS = "ruleset=sowing&seeds=1-6", "ruleset=sowing&seeds=1-8"


def test_a_long_census_is_counted_in_the_background(tmp_path: Path) -> None:
    with explorer(tmp_path / "data", seed=False, catalog=False, page_seconds=0.05) as (address, url):
        reply = get(url, "/census?" + CENSUS)
        assert reply.status_code == 303 and reply.headers["location"].startswith("/jobs/"), reply.text[:300]
        following = get(url, reply.headers["location"])
        if following.status_code == 200:  # still counting: the job's page refreshes itself
            assert '<meta http-equiv="refresh" content="2">' in following.text and 'id="job-state"' in following.text
        deadline = time.monotonic() + 120
        while following.status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.5)
            following = get(url, reply.headers["location"])
        assert following.status_code == 303, following.text[:300]
        done = following.headers["location"]
        assert done.startswith("/census?job=") and "seeds=1-6" in done and "pots=1-22" in done
        page = get(url, done)
        assert page.status_code == 200 and 'id="census-bound"' in page.text
        assert "every row of 1..6 seeds in 1..22 pots — 40,743 classes, 1,560,757 positions" in page.text

        api = get(url, "/api/v1/census/sowing?seeds=1-6&by=outcome")
        assert api.status_code == 202 and api.json()["job"]["kind"] == "census", api.text
        assert api.json()["command"] == "ruma census sowing --seeds 1..6 --pots 1..22 --by outcome --data DIR"
        state = _wait(url, api.headers["location"])
        assert state["state"] == "done" and state["result"]["summary"]["classes"] == 40_743, state
        with connect(address) as client:
            reference = client.census("sowing", (1, 6), (1, 22), by="outcome")
        assert state["result"]["summary"]["missing"] == reference.summary.missing == 40_743


def test_a_census_beyond_the_services_time_limit_says_what_to_do_under_the_census_form(tmp_path: Path) -> None:
    from ruma.server.work.limits import Limits

    with explorer(tmp_path / "data", seed=False, catalog=False, page_seconds=0.05,
                  limits=Limits(max_seconds=1)) as (_, url):
        reply = httpx.get(url + "/census?" + LONG_CENSUS, timeout=120, follow_redirects=True)
        deadline = time.monotonic() + 120
        while reply.status_code == 200 and 'id="job-state"' in reply.text and time.monotonic() < deadline:
            time.sleep(0.5)
            reply = httpx.get(str(reply.url), timeout=120, follow_redirects=True)
        assert reply.status_code == 422 and urlparse(str(reply.url)).path == "/census", reply.text[:500]
        assert 'class="census-form"' in reply.text and 'id="error"' in reply.text and "--max-seconds" in reply.text
        assert "Ask fewer seeds or pots" in reply.text and "ruma census sowing --seeds 1..8 --pots 1..27 --data DIR" in reply.text
        bad = get(url, "/census?ruleset=sowing&seeds=many")  # a malformed range: said above the census form too
        assert bad.status_code == 400 and 'class="census-form"' in bad.text and "&#39;many&#39;" in bad.text


def test_a_job_goes_on_when_the_service_stops_it_at_its_time_limit(tmp_path: Path) -> None:
    from ruma.server.work.limits import Limits

    # Sowing 1^12 takes longer than the service's 1 s (about 2 s here): each stopped request keeps
    # what it valued, and the job asks again
    with explorer(tmp_path / "data", seed=False, catalog=False, limits=Limits(max_seconds=1)) as (address, url):
        started = httpx.post(url + "/api/v1/jobs", json={"ruleset": "sowing", "position": HEAVY}, timeout=60)
        assert started.status_code == 202, started.text
        state = _wait(url, started.headers["location"])
        assert state["state"] == "done" and state["seconds"] > 1, state
        with connect(address) as client:
            stored = client.evaluate("sowing", HEAVY)
        assert stored.from_store and state["value"] == stored.value.unicode
