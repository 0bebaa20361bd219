"""Web explorer benchmark: how long a position page with its options takes in a real browser.

    python benchmarks/bench_web.py [--loads 20] [--json]

The deployment shape: ``ruma serve`` and ``ruma web`` in their own processes, Debian's headless
Chromium (``/usr/bin/chromium`` driven by selenium) loading pages over loopback. Each position is
visited once to store it (and its options), then ``--loads`` times; the figures are the browser's
navigation timing (``responseStart``: the first byte; ``load``: the page and its stylesheet
loaded and laid out) and the explorer's ``Server-Timing`` (``grpc``: waiting for the service,
``app``: the whole request).

The peer, in the same invocation: the identical HTML bytes served as a static file by Python's
``http.server`` — what the browser alone costs for that page — so the ratio is what the gateway,
the two gRPC calls and the rendering add. Target: under 300 ms on a stored position.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

POSITIONS = ["11(01)^2", "2212", "(10)^3 03 (01)^2", "1^8", "(01)^3 2 (01)^3"]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,900"]
TIMING = ("const n = performance.getEntriesByType('navigation')[0];"
          "return {first_byte: n.responseStart - n.startTime, load: n.loadEventEnd - n.startTime,"
          " server: Object.fromEntries(n.serverTiming.map(s => [s.name, s.duration]))};")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """The static peer, without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, process: subprocess.Popen[str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=10).read()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not come up") from None
            time.sleep(0.2)


def wait_for_service(address: str, process: subprocess.Popen[str], seconds: float = 60) -> None:
    from ruma.client import Client

    deadline = time.monotonic() + seconds
    with Client(address, timeout=5) as client:
        while True:
            try:
                if client.health() == "SERVING":
                    return
            except Exception:  # noqa: BLE001 - not listening yet
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ruma serve at {address} did not come up")
            time.sleep(0.2)


def browser(profile: str) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("RUMA_CHROMIUM", "/usr/bin/chromium")
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(os.environ.get("RUMA_CHROMEDRIVER", "/usr/bin/chromedriver")),
                            options=options)


def visit(driver: Any, url: str, loads: int) -> list[dict[str, Any]]:
    out = []
    for _ in range(loads):
        driver.get(url)
        out.append(dict(driver.execute_script(TIMING)))
    return out


def summary(visits: list[dict[str, Any]]) -> dict[str, float]:
    def med(key: str) -> float:
        return round(statistics.median(v[key] for v in visits), 1)

    return {"first_byte_ms": med("first_byte"), "load_ms": med("load"),
            "load_p90_ms": round(sorted(v["load"] for v in visits)[int(0.9 * (len(visits) - 1))], 1),
            "server_app_ms": round(statistics.median(v["server"].get("app", 0.0) for v in visits), 1),
            "server_grpc_ms": round(statistics.median(v["server"].get("grpc", 0.0) for v in visits), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ruma-bench-web-"))
    grpc_port, web_port = free_port(), free_port()
    cli = [sys.executable, "-m", "ruma.client.cli"]
    serve = subprocess.Popen([*cli, "serve", "--data", str(work / "data"), "--port", str(grpc_port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    wait_for_service(f"127.0.0.1:{grpc_port}", serve)
    web = subprocess.Popen([*cli, "web", "--server", f"127.0.0.1:{grpc_port}", "--port", str(web_port),
                            "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    static_dir = work / "static"
    static_dir.mkdir()
    handler = functools.partial(QuietHandler, directory=str(static_dir))
    static = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=static.serve_forever, daemon=True).start()
    driver = None
    results = []
    try:
        base = f"http://127.0.0.1:{web_port}"
        wait_for(base + "/api/v1/rulesets", web)
        driver = browser(str(work / "profile"))
        for i, position in enumerate(POSITIONS):
            url = f"{base}/sowing/{urllib.request.quote(position, safe='()')}"
            driver.get(url)  # stores the position and its options
            page = visit(driver, url, args.loads)
            html = urllib.request.urlopen(url).read().replace(b'href="/static/', f'href="{base}/static/'.encode())
            (static_dir / f"page{i}.html").write_bytes(html)
            plain = visit(driver, f"http://127.0.0.1:{static.server_port}/page{i}.html", args.loads)
            mine, peer = summary(page), summary(plain)
            results.append({"position": position, "bytes": len(html), "explorer": mine, "static_file": peer,
                            "ratio_load": round(mine["load_ms"] / peer["load_ms"], 2)})
    finally:
        if driver is not None:
            driver.quit()
        static.shutdown()
        for process in (web, serve):
            process.terminate()
            process.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)  # (its store and the browser's profile)
    load = os.getloadavg()
    if args.json:
        print(json.dumps({"results": results, "loadavg": load}))
        return
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.loads} loads per page (medians, ms)")
    print(f"{'position':22} {'bytes':>6} {'first byte':>10} {'load':>6} {'p90':>6} {'app':>5} {'grpc':>5} "
          f"{'static load':>11} {'ratio':>6}")
    for r in results:
        m, p = r["explorer"], r["static_file"]
        print(f"{r['position']:22} {r['bytes']:>6} {m['first_byte_ms']:>10} {m['load_ms']:>6} {m['load_p90_ms']:>6} "
              f"{m['server_app_ms']:>5} {m['server_grpc_ms']:>5} {p['load_ms']:>11} {r['ratio_load']:>6}")


if __name__ == "__main__":
    main()
