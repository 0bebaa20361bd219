"""The explorer sheds load instead of stalling: beyond its limits a request gets 503 and
``Retry-After`` at once, and slow requests (positions the service must value) never make a cheap
page wait. A real gRPC server and the explorer, both on loopback ports.

Sowing's 1^n needs exponentially many positions (Erickson 1996, Theorem 2.1): rows of 30 seeds
cannot be valued within the service's 4 s.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from ruma.server.work.limits import Limits
from tests.support.grpc_harness import running_server

pytestmark = [pytest.mark.slow, pytest.mark.alone]  # (alone: it times what it serves)


def test_slow_requests_are_shed_and_never_stall_cheap_pages(tmp_path: Path) -> None:
    from ruma.web import BackgroundServer, Gateway, create_app

    with running_server(tmp_path / "data", limits=Limits(max_seconds=4, max_memory=0), catalog=True) as (_, address):
        gateway = Gateway(address)
        try:
            with BackgroundServer(create_app(gateway, max_requests=40, max_slow=8)) as web:
                assert httpx.get(web.url + "/api/v1/rulesets", timeout=30).status_code == 200

                def slow(n: int) -> tuple[int, str | None, float]:
                    started = time.monotonic()
                    path = "/api/v1/positions/sowing/" + quote(f"1^{30 + n % 20} {2 + n // 20}") + "?options=false"
                    reply = httpx.get(web.url + path, timeout=60)
                    return reply.status_code, reply.headers.get("retry-after"), time.monotonic() - started

                with ThreadPoolExecutor(60) as pool:
                    flood = [pool.submit(slow, n) for n in range(60)]
                    time.sleep(1.0)  # the flood is in
                    cheap = []
                    for path in ("/", "/api/v1/rulesets", "/api/v1/stats", "/theorems", "/api/v1/openapi.json"):
                        started = time.monotonic()
                        reply = httpx.get(web.url + path, timeout=60)
                        cheap.append((path, reply.status_code, time.monotonic() - started))
                    page = httpx.get(web.url + "/sowing/" + quote("1^45 9"), timeout=60)
                    results = [f.result() for f in flood]
        finally:
            gateway.close()
    shed = [r for r in results if r[0] == 503]
    assert len(shed) == 60 - 8, sorted(r[0] for r in results)
    assert all(r[1] == "2" and r[2] < 3.0 for r in shed), shed[:3]  # at once (the admitted ones take 4 s)
    assert all(r[0] == 422 for r in results if r[0] != 503)  # the admitted ones hit the service's time limit
    assert all(code == 200 and seconds < 2.0 for _, code, seconds in cheap), cheap
    assert page.status_code == 503 and page.headers["retry-after"] == "2" and "--max-slow" in page.text
    print("web shedding: cheap pages in " + ", ".join(f"{path} {seconds * 1e3:.0f} ms" for path, _, seconds in cheap))
