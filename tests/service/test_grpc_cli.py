"""End to end as a user would: ``ruma serve`` in a subprocess, queried with ``ruma query``/``ruma load``.

Values: Erickson 1996, §2 (Sowing 312 = {0|-2}) and Table 1 (2202 = ↑).
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from ruma.engine.cgt import UP, integer
from tests.support.commands import ruma
from tests.support.grpc_harness import ascii_of, switch
from tests.support.serve_harness import serve_log, serving

TOKEN = "cli-write-token"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, subprocess.Popen[str]]]:
    data = tmp_path_factory.mktemp("served")
    tokens = data.parent / f"{data.name}-tokens"
    tokens.write_text(f"{TOKEN} write\n")
    with serving(data, "--token-file", str(tokens)) as (process, address):
        yield address, data, process


def test_query_prints_values(served: tuple[str, Path, subprocess.Popen[str]]) -> None:
    address, _, _ = served
    out = ruma("query", "--server", address, "sowing", "312", "2202", "--json", "--notation", "ascii", "--token", TOKEN,
               check=True)
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["value"] for r in records] == [ascii_of(switch(integer(0), integer(-2))), ascii_of(UP)]
    assert records[1]["outcome"] == "L"
    text = ruma("query", "--server", address, "sowing", "2202", "--format", "text", "--token", TOKEN, check=True).stdout
    assert text.startswith("2202 = ↑") and "  atomic weight  1" in text
    table = ruma("query", "--server", address, "sowing", "2202", "--token", TOKEN, check=True).stdout.splitlines()
    assert table[0].split() == ["position", "value", "outcome", "left", "stop", "right", "stop", "mean", "temp.",
                                "atomic", "weight", "stored"]
    assert table[1].split()[:3] == ["2202", "↑", "L"] and table[1].split()[-1] == "yes"


def test_query_reports_bad_positions_and_missing_token(served: tuple[str, Path, subprocess.Popen[str]]) -> None:
    address, _, _ = served
    bad = ruma("query", "--server", address, "sowing", "312", "3x2", "--token", TOKEN, "--format", "text")
    assert bad.returncode == 2 and "'3x2'" in bad.stderr and bad.stderr.count("\n") == 1
    assert bad.stdout.startswith("312 = ")
    denied = ruma("query", "--server", address, "sowing", "312")
    assert denied.returncode == 2 and "--token" in denied.stderr and "UNAUTHENTICATED" not in denied.stderr


@pytest.mark.parametrize(
    "name,text",
    [
        ("positions.txt", "% Table 2\n1^5\n1^6\n\n312\n"),
        ("positions.csv", "position,note\n1^5,a\n1^6,b\n312,c\n"),
        ("positions.jsonl", '{"position": "1^5"}\n{"position": "1^6"}\n{"position": "312"}\n'),
    ],
)
def test_load_files(served: tuple[str, Path, subprocess.Popen[str]], tmp_path: Path, name: str, text: str) -> None:
    address, _, _ = served
    path = tmp_path / name
    path.write_text(text)
    out = ruma("load", "--server", address, "sowing", str(path), "--batch-size", "2", "--json", "--token", TOKEN,
               check=True)
    summary = json.loads(out.stdout)
    assert summary["valued"] + summary["already_stored"] == 3 and summary["failed"] == []


def test_load_reports_failures(served: tuple[str, Path, subprocess.Popen[str]], tmp_path: Path) -> None:
    address, _, _ = served
    path = tmp_path / "mixed.txt"
    path.write_text("312\n3x2\n")
    out = ruma("load", "--server", address, "sowing", str(path), "--token", TOKEN)
    assert out.returncode == 1 and "1 failed" in out.stdout and "'3x2'" in out.stderr


def test_sigterm_shuts_down_and_keeps_the_values(served: tuple[str, Path, subprocess.Popen[str]]) -> None:
    address, data, process = served
    key = json.loads(ruma("query", "--server", address, "sowing", "3^4", "--json", "--token", TOKEN, check=True).stdout)
    assert key["value"]
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 0
    assert "store flushed and closed" in serve_log(data).read_text()
    from ruma.client.client import Client  # noqa: F401 - the client works without the server running
    from ruma.engine.rulesets import get_ruleset
    from ruma.server.store.memo import LmdbStore

    rules = get_ruleset("sowing")
    canonical, _ = rules.normalise(rules.parse("3^4"))
    with LmdbStore(data, create=False) as store:
        assert store.lookup(rules.key(canonical)) is not None
