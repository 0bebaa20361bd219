"""The explorer's JSON API over real HTTP, in front of a real gRPC server: same values as the service,
errors mapped to HTTP statuses with the service's message, the catalog, OpenAPI."""

from __future__ import annotations

import html
import random
import re
from math import comb
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from ruma.engine.cgt import parse_game
from ruma.engine.cgt.notation import format_cgsuite
from ruma.engine.rulesets import get_ruleset
from ruma.server.work.limits import Limits
from tests.support.grpc_harness import connect
from tests.support.web_harness import explorer


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with explorer(tmp_path_factory.mktemp("web-api")) as addresses:
        yield addresses


def get(url: str, path: str, **kwargs: Any) -> Any:
    return httpx.get(url + path, timeout=120, **kwargs)


def _random_positions(rng: random.Random) -> list[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for ruleset, top, low, high in (("sowing", 3, 2, 6), ("impartial-sowing", 3, 2, 6), ("atomic-wari", 3, 2, 6),
                                    ("impartial-atomic-wari", 2, 2, 6)):
        while len([p for p in out if p[0] == ruleset]) < 60:
            out.add((ruleset, "".join(str(rng.randint(0, top)) for _ in range(rng.randint(low, high)))))
    for ruleset in ("nim", "octal:0.07"):
        while len([p for p in out if p[0] == ruleset]) < 25:
            out.add((ruleset, " ".join(str(rng.randint(1, 12)) for _ in range(rng.randint(1, 3)))))
    return sorted(out)


def test_api_gives_the_services_values_options_and_analyses(service: tuple[str, str]) -> None:
    address, url = service
    positions = _random_positions(random.Random(14))
    assert len(positions) == 290
    with connect(address) as client:
        for ruleset, position in positions:
            reply = get(url, f"/api/v1/positions/{quote(ruleset)}/{quote(position)}")
            assert reply.status_code == 200, (ruleset, position, reply.text)
            api = reply.json()
            ref = client.options(ruleset, position)
            e = ref.evaluation
            assert api["value"] == {"unicode": e.value.unicode, "ascii": e.value.ascii, "braces": e.value.braces,
                                    "cgsuite": format_cgsuite(parse_game(e.value.ascii))}
            assert (api["outcome"], api["nim_value"], api["canonical"]) == (e.outcome, e.nim_value, e.canonical)
            assert api["analyses"]["temperature"] == str(e.temperature) and api["analyses"]["mean"] == str(e.mean)
            assert api["analyses"]["left_stop"] == str(e.left_stop) and api["analyses"]["birthday"] == e.birthday
            for side, player in (("left", "L"), ("right", "R")):
                options = getattr(ref, side)
                assert [(o["position"], o["value"]["ascii"]) for o in api[side]] == [(o.position, o.value.ascii) for o in options]
                for o in api[side]:  # a winning move: to a value >= 0 for Left, <= 0 for Right
                    g = parse_game(o["value"]["ascii"])
                    assert o["winning"] == (g.outcome.value in ("P", player)), (ruleset, position, o)
            th = api["thermograph"]
            assert th["mean"] == str(e.mean) and th["temperature"] == str(e.temperature)


def test_thermograph_of_a_position_is_exact(service: tuple[str, str]) -> None:
    # Erickson, Theorem 2.4: 11(01)^n = {n+1|0}; for n = 1 that is {2|0}, whose walls 2 - t and
    # t meet at t = 1 on the mast 1.
    api = get(service[1], "/api/v1/positions/sowing/" + quote("11(01)^1")).json()
    assert api["value"]["ascii"] == "{2|0}"
    assert api["thermograph"]["left_wall"] == [["3", "-1"], ["1", "1"]]
    assert api["thermograph"]["right_wall"] == [["-1", "-1"], ["1", "1"]]
    assert (api["thermograph"]["mean"], api["thermograph"]["temperature"]) == ("1", "1")


@pytest.mark.parametrize("path, quoted", [
    ("/api/v1/positions/sowing/31x2", "31x2"),
    ("/api/v1/positions/sowing/" + quote("(10)^3 03 (01"), "(10)^3 03 (01"),
    ("/api/v1/value?expression=" + quote("{1|"), "{1|"),
    ("/api/v1/search/stored?ruleset=sowing&value=" + quote("{1|{"), "{1|{"),
    ("/api/v1/catalog/positions?limit=many", "many"),
    ("/api/v1/search/stored?ruleset=sowing", "value"),
])
def test_bad_input_is_400_with_a_message_quoting_it(service: tuple[str, str], path: str, quoted: str) -> None:
    reply = get(service[1], path)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["status"] == 400 and error["code"] == "INVALID_ARGUMENT"
    assert quoted in error["message"]


def test_unknown_ruleset_and_name_and_page(service: tuple[str, str]) -> None:
    _, url = service
    reply = get(url, "/api/v1/positions/mancala/312")
    assert reply.status_code == 404 and "unknown ruleset 'mancala'" in reply.json()["error"]["message"]
    assert get(url, "/api/v1/nothing").status_code == 404
    named = get(url, "/api/v1/catalog/positions/no-such-name")
    assert named.status_code == 404 and "no-such-name" in named.json()["error"]["message"]  # NOT_FOUND


def test_catalog_theorems_tags_stats_search(service: tuple[str, str]) -> None:
    _, url = service
    table3 = get(url, "/api/v1/catalog/positions?tag=table3&value=" + quote("*4")).json()
    assert {d["name"] for d in table3} == {"erickson-t3-110111", "erickson-t3-11131"}  # Erickson's Table 3: *4
    assert all(d["url"].startswith("/impartial-sowing/") for d in table3)
    up = get(url, "/api/v1/catalog/positions/erickson-t1-2202").json()
    assert (up["value"], up["position"]) == ("^", "2202")  # Table 1: 2202 = ↑
    tags = {t["tag"]: t["positions"] for t in get(url, "/api/v1/catalog/tags").json()}
    assert tags["table3"] >= 2
    theorems = {t["name"]: t for t in get(url, "/api/v1/theorems").json()}
    assert "erickson-2.3" in theorems and "last_run" in theorems["erickson-2.3"]
    theorem = get(url, "/api/v1/theorems/erickson-2.3").json()
    assert theorem["family"] == "(01)^m 2 (01)^n" and isinstance(theorem["runs"], list)
    stored = get(url, "/api/v1/search/stored?ruleset=impartial-sowing&value=" + quote("*4") + "&limit=50").json()
    assert {"110111", "11131"} <= {d["position"] for d in stored}
    assert all(d["value"] in ("*4", "∗4") for d in stored)
    stats = get(url, "/api/v1/stats").json()
    assert stats["stats"]["store_entries"] > 0 and stats["gateway"]["read_only"] is True
    rulesets = {r["name"]: r for r in get(url, "/api/v1/rulesets").json()}
    assert rulesets["impartial-sowing"]["impartial"] and not rulesets["sowing"]["impartial"]
    value = get(url, "/api/v1/value?expression=" + quote("{2||1|0} + ^*")).json()
    assert value["value"]["ascii"] == format(parse_game("{2||1|0} + ^*"), "ascii")
    # typed as /positions types them: birthday and nim value are integers (cgt-py: {2||1|0} is born on day 3)
    typed = get(url, "/api/v1/value?expression=" + quote("{2||1|0}")).json()["analyses"]
    assert typed["birthday"] == 3 and isinstance(typed["birthday"], int)
    assert get(url, "/api/v1/value?expression=" + quote("*3")).json()["analyses"]["nim_value"] == 3
    assert isinstance(get(url, "/api/v1/positions/sowing/312").json()["analyses"]["birthday"], int)


def test_census_of_a_swept_family_equals_the_services_census(service: tuple[str, str]) -> None:
    from ruma.client.sweep.driver import run_sweep
    from ruma.client.sweeps_client import ServerSink
    from ruma.engine.families.classes import Family

    address, url = service
    before = get(url, "/api/v1/census/sowing?seeds=1-4&pots=1-4&by=outcome").json()
    with connect(address) as client:
        sink = ServerSink(client, "sowing")
        run_sweep(Family.of("sowing", (1, 4), (1, 4)), sink, workers=1)
        sink.flush()
        reference = client.census("sowing", (1, 4), (1, 4), by="outcome", simplest=3)
    census = get(url, "/api/v1/census/sowing?seeds=1-4&pots=1-4&by=outcome&simplest=3")
    assert census.status_code == 200, census.text
    reply = census.json()
    assert before["summary"]["missing"] > 0 and reply["summary"]["missing"] == 0
    assert [(r["group"], r["classes"], r["raw_positions"]) for r in reply["rows"]] == [
        (r.group, r.classes, r.raw_positions) for r in reference.rows]
    # every row of 1..4 pots holding 1..4 seeds is counted once: C(n + s - 1, s) rows of n pots
    assert sum(r["raw_positions"] for r in reply["rows"]) == sum(
        comb(n + s - 1, s) for n in range(1, 5) for s in range(1, 5))
    for row in reply["rows"]:
        for simplest in row["simplest"]:
            assert simplest["url"] == "/sowing/" + quote(simplest["position"])
    default = get(url, "/api/v1/census/sowing?seeds=1-4&value=" + quote("*")).json()
    assert default["summary"]["pots"] == [1, 9] and default["fill_pots"] == 9  # 4 seeds fill 9 pots: all searched
    narrow = get(url, "/census?ruleset=sowing&seeds=1-4&pots=1-4&by=outcome").text
    assert "Not searched: rows of 5..9 pots." in narrow
    page = get(url, "/census?ruleset=sowing&seeds=1-4&pots=1-4&by=outcome").text
    assert all(f"<td><code class=\"group\">{r.group['unicode']}</code></td>" in page for r in reference.rows)
    first = reference.rows[0].simplest[0].position
    assert f'<a href="/sowing/{quote(first)}"><code>{first}</code></a>' in page


def test_writes_need_allow_writes(service: tuple[str, str]) -> None:
    _, url = service
    assert get(url, "/api/v1/census/sowing?seeds=many").status_code == 400
    write = httpx.post(url + "/api/v1/theorems/erickson-2.3/verify?up_to=2", timeout=60)
    assert write.status_code == 403 and "read-only" in write.json()["error"]["message"]


def test_openapi_documents_the_api_offline(service: tuple[str, str]) -> None:
    _, url = service
    spec = get(url, "/api/v1/openapi.json").json()
    assert {"/api/v1/positions/{ruleset}/{position}", "/api/v1/catalog/positions", "/api/v1/theorems",
            "/api/v1/search/stored", "/api/v1/stats", "/api/v1/census/{ruleset}"} <= set(spec["paths"])
    docs = get(url, "/docs").text
    assert "/static/docs/swagger-ui-bundle.js" in docs and "cdn" not in docs.lower()
    assert get(url, "/static/docs/swagger-ui-bundle.js").status_code == 200


def test_size_limits_are_413_and_422_with_the_limit_named(tmp_path: Path) -> None:
    # Sowing 1^10 needs about 24,000 positions: over a limit of 1,000.
    with explorer(tmp_path / "limited", seed=False, catalog=False, limits=Limits(max_positions=1000)) as (_, url):
        reply = get(url, "/api/v1/positions/sowing/1^10")
        assert reply.status_code == 422 and reply.json()["error"]["code"] == "RESOURCE_EXHAUSTED"
        assert "1000" in reply.json()["error"]["message"]
        assert "ruma eval sowing '1^10' --no-limit" in reply.json()["error"]["message"]
        page = get(url, "/sowing/1^10")
        assert page.status_code == 422 and "1000" in page.text and "ruma eval sowing &#39;1^10&#39; --no-limit" in page.text
    with explorer(tmp_path / "budget", seed=False, catalog=False, gateway_options={"max_positions": 500}) as (_, url):
        reply = get(url, "/api/v1/positions/sowing/1^10")
        assert reply.status_code == 422 and "500" in reply.json()["error"]["message"]
        assert get(url, "/api/v1/positions/sowing/312").json()["value"]["ascii"] == "{0|-2}"
    with explorer(tmp_path / "sizes", seed=False, catalog=False) as (_, url):
        limits = Limits()
        for path, status, named in [
            ("/api/v1/positions/sowing/1^200", 422, f"at most {limits.max_pots} pots (max_pots)"),
            ("/sowing/1^200", 422, f"at most {limits.max_pots} pots (max_pots)"),
            ("/api/v1/positions/sowing/" + quote("300,300"), 422, f"at most {limits.max_seeds} seeds (max_seeds)"),
            ("/api/v1/positions/sowing/" + "1" * (limits.max_text + 1), 413, f"at most {limits.max_text:,} (max_text)"),
            ("/api/v1/value?expression=100000000", 422, "birthday"),
        ]:
            reply = get(url, path)
            assert reply.status_code == status, (path, reply.text[:300])
            assert named in (reply.json()["error"]["message"] if path.startswith("/api/") else reply.text), path
        batch = httpx.post(url + "/api/v1/batch/sowing", json={"positions": ["312"] * (limits.max_batch_size + 1)},
                           timeout=120)
        assert batch.status_code == 413 and f"at most {limits.max_batch_size:,} a request (max_batch_size)" in batch.text


def test_tokens_are_the_services(tmp_path: Path) -> None:
    tokens = {"reader": "read", "writer": "write"}
    with explorer(tmp_path / "auth", tokens=tokens) as (_, url):
        anonymous = get(url, "/api/v1/catalog/positions?tag=table1")
        assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "UNAUTHENTICATED"
        reader = get(url, "/api/v1/catalog/positions?tag=table1", headers={"Authorization": "Bearer reader"})
        assert reader.status_code == 200 and reader.json()
    with explorer(tmp_path / "auth2", tokens=tokens, seed=False,
                  gateway_options={"token": "reader", "read_only": False}) as (_, url):
        assert get(url, "/api/v1/positions/sowing/312").status_code == 200  # the gateway's own token
        refused = httpx.post(url + "/api/v1/theorems/erickson-2.3/verify?up_to=1", timeout=60)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "PERMISSION_DENIED"  # a read token
        added = httpx.post(url + "/api/v1/catalog/positions", timeout=60, headers={"Authorization": "Bearer writer"},
                           json={"name": "example-312", "ruleset": "sowing", "position": "312", "tags": ["example"]})
        assert added.status_code == 200 and added.json()["value"] == "{0|-2}"


def _copies(page: str) -> list[str]:
    """The texts the page's "copy as CGSuite" buttons copy, in order."""
    found = re.findall(r'<button type="button" class="copy-cgsuite" data-cgsuite="([^"]*)"', page)
    return [html.unescape(text) for text in found]


def test_copy_as_cgsuite_beside_each_value(service: tuple[str, str]) -> None:
    _, url = service
    # CGSuite's own test suite (GameTest.scala) prints {3||2+*|1+*}.Overheat(*,1+*) as
    # {1||+-(1*)|-1,{-1|-3}}; ±1 cooled by its temperature is ∗ and 2.↑ is ⇑ (WW ch. 6, Norton)
    for expression, text in (("{3||2*|1*}.Overheat(*, 1*)", "{1||+-(1*)|-1,{-1|-3}}"), ("cool(+-1, 1)", "*"),
                             ("norton(2, ^)", "^^")):
        api = get(url, "/api/v1/value", params={"expression": expression}).json()
        assert api["value"]["cgsuite"] == text, expression
        page = get(url, "/value", params={"expression": expression}).text
        assert _copies(page) == [text] and 'aria-label="copy as CGSuite"' in page
        assert parse_game(text) is parse_game(expression)  # what is copied reads back to the value
    # Erickson, Theorem 2.4: 11(01)^2 = {3|0}; the value and each option carry the control
    path = "/sowing/" + quote("11(01)^2")
    api = get(url, "/api/v1" + "/positions" + path).json()
    page = get(url, path).text
    options = [o["value"]["cgsuite"] for o in api["left"] + api["right"]]
    assert _copies(page) == ["{3|0}", *options] and len(options) > 1
    assert all(parse_game(text) is parse_game(o["value"]["ascii"]) for text, o in zip(options, api["left"] + api["right"]))
    assert '<script src="/static/copy.js" defer></script>' in page
    script = get(url, "/static/copy.js")
    assert script.status_code == 200 and "navigator.clipboard.writeText" in script.text
    # the catalog (Table 1: 2202 = ↑), a named position and a search's stored positions
    assert "^" in _copies(get(url, "/catalog?tag=table1&name=2202").text)
    assert _copies(get(url, "/catalog/erickson-t1-2202").text) == ["^"]
    search = _copies(get(url, "/search?ruleset=sowing&value=" + quote("^")).text)
    assert search and set(search) == {"^"}


def test_pages_render_with_their_content(service: tuple[str, str]) -> None:
    _, url = service
    expectations = {
        "/": ["/sowing/(10)%5E3%2003%20(01)%5E2", "impartial-sowing"],
        "/sowing/" + quote("(10)^3 03 (01)^2"): ['<code id="value" class="value">0</code>', "no moves"],
        "/catalog?tag=table1": ["erickson-t1-2202", '<a href="/sowing/2202">'],
    }
    for path, pieces in {
        **expectations,
        "/catalog/erickson-t1-2202": ['<code id="value" class="wrap">↑</code>', "agrees"],  # Table 1: 2202 = ↑
        "/catalog?tag=table1&name=2202": ['<code class="named-value">↑</code>', '<span class="holds">agrees</span>'],
        # Dawson's Kayles (·07, Winning Ways): G(3) = 1, G(5) = 0, G(7) = 1
        "/octal:0.07/" + quote("3 5 7"): ["independent components: <code>3</code> + <code>5</code> + <code>7</code>",
                                          'valued <code class="wrap">∗</code> + <code class="wrap">0</code> + '
                                          '<code class="wrap">∗</code>'],
        "/impartial-sowing/312": ["<th>nim value</th><td><code>1</code>", "<th>birthday</th>"],  # §2: 312 = ∗
        "/tags": ["table3"],
        "/theorems": ["erickson-2.3", "(01)^m 2 (01)^n"],
        "/theorems/erickson-2.3": ["(01)^m 2 (01)^n", 'id="runs"'],
        "/value?expression=" + quote("{2||1|0}"): ['<code id="value" class="value">{2||1|0}</code>', 'data-mean="5/4"'],
        "/search?ruleset=sowing&value=" + quote("^"): ['<a href="/sowing/2202">', "erickson-t1-2202"],
        "/stats": ["store entries", "max positions"],
    }.items():
        reply = get(url, path)
        assert reply.status_code == 200, (path, reply.text[:300])
        for piece in pieces:
            assert piece in reply.text, (path, piece)
    impartial = get(url, "/impartial-sowing/312").text  # stops, mean, temperature say nothing of a nimber
    assert "left stop" not in impartial and "temperature" not in impartial and 'id="thermograph"' not in impartial
    assert "left stop" in get(url, "/sowing/312").text
    stats = get(url, "/stats").text
    uptime = stats.split("<th>uptime</th>")[1].split("</td>")[0]
    assert uptime.endswith(" s") and len(uptime.rsplit(">", 1)[1]) < 16, uptime  # "4.2 s", "3 min 12 s"
    theorems = get(url, "/theorems").text
    assert not re.search(r"\d{2}:\d{2}:\d{2}\.\d{6}", theorems)  # no raw ISO timestamps with microseconds
    missing = get(url, "/catalog/nothing/here/at/all")
    assert missing.status_code == 404 and "unknown ruleset" in missing.text
    bad = get(url, "/sowing/31x2")
    assert bad.status_code == 400 and "31x2" in bad.text and 'id="position-input"' in bad.text
    redirect = httpx.get(url + "/go?ruleset=sowing&position=" + quote("(10)^3 03 (01)^2"), timeout=60)
    assert redirect.status_code == 303 and redirect.headers["location"] == "/sowing/(10)%5E3%2003%20(01)%5E2"


def test_the_explorers_budget_holds_on_the_catalogs_routes(tmp_path: Path) -> None:
    # Sowing 1^10 needs about 24,000 positions: over the explorer's 500 (see the test above)
    from ruma.server.catalog.models import Catalog
    from ruma.server.catalog.ops import CatalogOps

    data = tmp_path / "budget"
    data.mkdir()
    with Catalog.open(data) as catalog:  # named, not valued yet
        CatalogOps(catalog).add_position("big", "sowing", "1^10", evaluate_now=False)
    with explorer(data, seed=False, gateway_options={"max_positions": 500}) as (_, url):
        for path in ("/api/v1/catalog/positions/big", "/api/v1/catalog/positions?value=0", "/catalog/big"):
            reply = get(url, path)
            assert reply.status_code == 422 and "500" in reply.text, (path, reply.text[:300])  # the limit named


def test_odd_inputs_are_never_500(service: tuple[str, str]) -> None:
    address, url = service
    reply = get(url, "/api/v1/census/sowing?seeds=9999999999-99999999999")
    assert reply.status_code == 400 and "9999999999-99999999999" in reply.json()["error"]["message"]
    # n·↑ = {0 | (n-1)·↑∗} (Winning Ways ch. 3): birthday n + 1, atomic weight n (ch. 8)
    deep = get(url, "/api/v1/value?expression=" + quote("^400")).json()
    assert deep["analyses"]["birthday"] == 401 and deep["analyses"]["atomic_weight"] == "400"
    # a short expression whose canonical form is longer than any expression may be
    expression = " + ".join(f"{{{2 * i}|-{2 * i}}}" for i in range(1, 12)) + " + ^"
    reply = get(url, "/api/v1/value?expression=" + quote(expression))
    assert reply.status_code == 200, reply.text[:300]
    with connect(address) as client:
        served = client.sum(expression)
    assert reply.json()["value"]["ascii"] == served.value.ascii and len(served.value.ascii) > 10_000
    assert reply.json()["thermograph"] is None and reply.json()["analyses"]["temperature"] == str(served.temperature)
    page = get(url, "/value?expression=" + quote(expression))
    assert page.status_code == 200


def test_an_unverified_upload_is_marked_on_the_pages_and_in_the_api(tmp_path: Path) -> None:
    from ruma.server.store.provenance import UploadVerifier

    def hold_the_verifier(server: Any) -> None:  # (the upload stays unverified while it is looked at)
        for closer in server.closers:
            if isinstance(closer, UploadVerifier):
                closer.stop()

    with explorer(tmp_path / "data", server_hook=hold_the_verifier, verify_fraction=0.0) as (address, url):
        rules = get_ruleset("impartial-sowing")
        poisoned = rules.normalise(rules.parse("2321"))[0]
        with connect(address) as client:
            assert client.upload("impartial-sowing", [(rules.key(poisoned), 10)]).stored == 1
            client.evaluate("impartial-sowing", "1111")  # (the server's own value)
        shown = rules.format(poisoned)
        found = get(url, "/api/v1/search/stored", params={"ruleset": "impartial-sowing", "value": "*10"}).json()
        assert [(s["position"], s["unverified"]) for s in found] == [(shown, True)]
        search = get(url, "/search", params={"ruleset": "impartial-sowing", "value": "*10"}).text
        assert "unverified upload" in search
        census = get(url, "/census", params={"ruleset": "impartial-sowing", "seeds": "8", "pots": "4",
                                             "value": "*10"}).text
        assert 'id="census-unverified"' in census and "(1 unverified)" in census
        api = get(url, f"/api/v1/positions/impartial-sowing/{shown}", params={"options": "false"}).json()
        assert (api["value"]["ascii"], api["unverified"]) == ("*10", True)  # as stored, marked
        assert get(url, "/api/v1/positions/impartial-sowing/1111").json()["unverified"] is False
        page = get(url, api["url"]).text  # (with its options, valued by the service itself: not the upload)
        assert 'id="value"' in page and "∗10" not in page
