"""``ruma plot ...`` and ``ruma web``: files written, records printed, one-line errors, a real explorer process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")


from ruma.client.cli import main
from tests.support.commands import free_port
from tests.support.grpc_harness import running_server
from tests.support.svg_reading import by_id, parse, texts


def test_plot_commands_write_the_pictures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "th.svg"
    assert main(["plot", "thermograph", "{2||1|0}", "-o", str(svg)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote thermograph to {svg} (")
    assert texts(by_id(parse(svg.read_text()), "mean")) == ["mean 5/4"]

    # Erickson, Theorem 2.4: 11(01)^2 = {3|0}, whose walls 4 - t and -1 + t meet at t = 3/2, x = 3/2.
    assert main(["plot", "thermograph", "--ruleset", "sowing", "11(01)^2", "-o", str(svg), "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record == {"kind": "thermograph", "path": str(svg), "format": "svg", "bytes": svg.stat().st_size}
    root = parse(svg.read_text())
    assert texts(by_id(root, "mean")) == ["mean 3/2"] and texts(by_id(root, "temperature-label")) == ["temperature 3/2"]

    for argv, name in ((["octal", "0.137", "--count", "300"], "octal.png"),
                       (["tree", "sowing", "312", "--depth", "1"], "tree.svg"),
                       (["sowing-graph", "star:3x2", "--board", "1,2,0,2,1,1"], "star.svg"),
                       (["sowing-graph", "1>0,2>1,3>2,0>3"], "cycle.png"),
                       (["tchoukaillon", "15"], "b15.svg"),
                       (["tchoukaillon", "12", "--table"], "table.png")):
        path = tmp_path / name
        assert main(["plot", *argv, "-o", str(path), "--dpi", "60"]) == 0, argv
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" if name.endswith(".png") else b"<svg" in data[:400]
    capsys.readouterr()


@pytest.mark.parametrize("argv, quoted", [
    (["plot", "thermograph", "{1|", "-o", "x.svg"], "'{1|'"),
    (["plot", "thermograph", "1", "-o", "x.pdf"], "'x.pdf'"),
    (["plot", "octal", "0.9", "-o", "x.svg"], "'0.9'"),
    (["plot", "tree", "sowing", "31x2", "-o", "x.svg"], "'31x2'"),
    (["plot", "tree", "mancala", "312", "-o", "x.svg"], "mancala"),
    (["plot", "sowing-graph", "star:3x2", "--board", "1,2", "-o", "x.svg"], "(1, 2)"),
    (["plot", "thermograph", "--ruleset", "sowing", "1^10", "--max-positions", "100", "-o", "x.svg"], "100"),
])
def test_plot_errors_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                         quoted: str) -> None:
    os.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ruma plot") and len(err.strip().splitlines()) == 1 and quoted in err, err
    assert not list(tmp_path.glob("x.*"))


def test_ruma_web_serves_the_explorer(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    import httpx

    with running_server(tmp_path / "data", catalog=False) as (_, address):
        web_port = free_port()
        process = subprocess.Popen([sys.executable, "-m", "ruma.client.cli", "web", "--server", address,
                                    "--port", str(web_port), "--log-level", "warning"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            url = f"http://127.0.0.1:{web_port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    reply = httpx.get(url + "/api/v1/positions/sowing/312", timeout=30)
                    break
                except httpx.TransportError:
                    assert process.poll() is None, process.communicate()
                    assert time.monotonic() < deadline, "ruma web did not start"
                    time.sleep(0.2)
            assert reply.json()["value"]["ascii"] == "{0|-2}"
            page = httpx.get(url + "/sowing/312", timeout=30).text
            assert '<code id="value" class="value">{0|-2}</code>' in page
        finally:
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=30)
        assert f"ruma web: exploring {address}" in err


def test_ruma_web_without_a_service_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("fastapi")
    assert main(["web", "--server", f"127.0.0.1:{free_port()}", "--timeout", "5"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("ruma web: cannot reach the ruma service") and "is ruma serve running?" in err
