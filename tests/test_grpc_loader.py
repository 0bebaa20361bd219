"""Bulk loading: summaries, file formats, progress and retries while the server is unavailable."""

from __future__ import annotations

import io
import socket
import threading
import time
from pathlib import Path

import pytest

from grpc_harness import connect, running_server
from ruma.client.loader import ProgressBar, read_positions
from ruma.engine.errors import RumaInputError


def test_load_summary_valued_stored_failed(tmp_path: Path) -> None:
    with running_server(tmp_path) as (_, address), connect(address) as client:
        seen: list[tuple[int, int]] = []
        first = client.load(["312", "1^4", "3x2", "2202"], "sowing", batch_size=3, concurrency=1,
                            progress=lambda d, t: seen.append((d, t)))
        assert (first.valued, first.already_stored) == (3, 0)
        assert [p for p, _ in first.failed] == ["3x2"] and "INVALID_ARGUMENT" in first.failed[0][1]
        assert seen == [(3, 4), (4, 4)]
        again = client.load(["312", "1^4"], "sowing", progress=False)
        assert (again.valued, again.already_stored, again.failed) == (0, 2, [])
        assert "2 already stored" in str(again) and again.to_dict()["already_stored"] == 2
        for item in client.lookup("sowing", ["312", "1^4", "2202"]):
            assert item.found


def test_load_retries_while_the_server_is_unavailable(tmp_path: Path) -> None:
    from ruma.client import Client
    from ruma.server.app import create_server

    with socket.socket() as probe:  # a port nobody listens on yet
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    servers = []

    def start_later() -> None:
        time.sleep(0.6)
        servers.append(create_server(tmp_path, port=port)[0])

    thread = threading.Thread(target=start_later)
    thread.start()
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as client:
            summary = client.load(["312", "2202"], "sowing", initial_backoff=0.1, progress=False)
        assert summary.retries >= 1 and summary.valued == 2 and not summary.failed
    finally:
        thread.join()
        for server in servers:
            server.stop(0)


def test_load_gives_up_after_retries(tmp_path: Path) -> None:
    from ruma.client import Client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with Client(f"127.0.0.1:{port}", timeout=5) as client:
        summary = client.load(["312"], "sowing", max_retries=2, initial_backoff=0.01, progress=False)
    assert summary.retries == 2 and summary.failed and "UNAVAILABLE" in summary.failed[0][1]


def test_read_positions_formats(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("# comment\n312\n\n 1^4 \n")
    (tmp_path / "b.csv").write_text("id,position\n1,312\n2,1^4\n")
    (tmp_path / "c.jsonl").write_text('{"position": "312"}\n\n{"position": "1^4", "x": 1}\n')
    for name in ("a.txt", "b.csv", "c.jsonl"):
        assert read_positions(tmp_path / name) == ["312", "1^4"]
    (tmp_path / "bad.csv").write_text("pos\n312\n")
    with pytest.raises(RumaInputError, match="'position' column"):
        read_positions(tmp_path / "bad.csv")
    (tmp_path / "bad.jsonl").write_text('{"position": "1"}\nnot json\n')
    with pytest.raises(RumaInputError, match="line 2"):
        read_positions(tmp_path / "bad.jsonl")
    with pytest.raises(RumaInputError, match="cannot read"):
        read_positions(tmp_path / "missing.txt")


def test_progress_bar_draws_on_its_stream() -> None:
    stream = io.StringIO()
    bar = ProgressBar(4, stream=stream, width=8)
    bar(2, 4)
    bar(4, 4)
    text = stream.getvalue()
    assert "[####....] 2/4" in text and "\r[########] 4/4" in text and text.endswith("/s\n")
