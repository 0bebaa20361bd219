"""The catalog over gRPC end to end: a real server on 127.0.0.1 (port 0), tokens, the CLI."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Iterator

import grpc
import pytest

from ruma.client.catalog_client import NamedPosition
from ruma.client.cli import main
from ruma.client.client import RumaRpcError
from tests.support.grpc_harness import connect, running_server

TOKENS = {"reader-token": "read", "writer-token": "write"}


@pytest.fixture()
def address(tmp_path: Path) -> Iterator[str]:
    with running_server(tmp_path / "data", tokens=TOKENS, catalog=True) as (_, addr):
        yield addr


def test_create_list_search_verify(address: str) -> None:
    with connect(address, token="writer-token") as client:
        added = client.catalog.add_position("example-312", "sowing", "312", tags=["example"], source_value="{0|-2}",
                                   source_paper="Erickson 1996", source_page=288)
        assert isinstance(added, NamedPosition)
        assert added.value == "{0|-2}" and added.source_agrees is True  # the paper's §2 example
        assert added.source["page"] == 288 and added["value"] == "{0|-2}"  # dict-style access still works
        assert [d.name for d in client.catalog.list_positions(tag="example")] == ["example-312"]
        assert client.catalog.list_positions(tag="example")[0].value is None  # listing does not evaluate
        counts = client.catalog.seed()
        assert counts.theorems >= 4 and counts.positions > 100
        found = client.catalog.search(tag="table3", value="*4")
        assert {d.name for d in found} == {"erickson-t3-110111", "erickson-t3-11131"}  # Table 3: *4
        assert all(d.nim_value == 4 for d in found)
        stored = client.catalog.search_stored("impartial-sowing", "*4", limit=50)
        assert {"110111", "11131"} <= {d.position for d in stored}
        run = client.catalog.verify("erickson-2.3", 2)
        assert run.holds and run.instances_checked == 8  # (m, n) in 0..2², minus m = n = 0
        theorem = client.catalog.add_theorem("wrong-2.3", "sowing", "(01)^m 2 (01)^n", "n",
                                             "m>=0,n>=0,not(m=0,n=0)", source_ref="after Theorem 2.3")
        assert theorem.parameters == ["m", "n"] and theorem.last_run is None
        refuted = client.catalog.verify("wrong-2.3", 3)
        assert not refuted.holds and refuted.counterexample == {"m": 0, "n": 1}
        assert refuted.counterexample_value == "2"  # n+1 by Theorem 2.3
        assert client.catalog.show_theorem("wrong-2.3").last_run == refuted
        assert {t.name for t in client.catalog.list_theorems(ruleset="sowing")} >= {"erickson-2.2", "wrong-2.3"}
        assert client.catalog.runs("erickson-2.3")[0].holds
        show = client.catalog.show("erickson-t1-2202")
        assert show.value == "^" and show.outcome == "L"  # Table 1: 2202 = ↑
        assert set(show.to_dict()) == {f.name for f in dataclasses.fields(NamedPosition)}


def test_read_only_token_cannot_write(address: str) -> None:
    with connect(address, token="reader-token") as client:
        assert client.catalog.list_positions() == []
        for call in (lambda: client.catalog.add_position("x", "sowing", "312"), client.catalog.seed,
                     lambda: client.catalog.add_theorem("t", "sowing", "(01)^n", "0"),
                     lambda: client.catalog.verify("erickson-2.2", 1),
                     lambda: client.catalog.remove_position("x")):
            with pytest.raises(RumaRpcError) as info:
                call()
            assert info.value.code == grpc.StatusCode.PERMISSION_DENIED
    with connect(address) as anonymous, pytest.raises(RumaRpcError) as info:
        anonymous.catalog.list_positions()
    assert info.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_bad_input_is_invalid_argument(address: str) -> None:
    with connect(address, token="writer-token") as client:
        with pytest.raises(RumaRpcError) as info:
            client.catalog.add_theorem("t", "sowing", "(10)^m 03 (01", "0")
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT and "(10)^m 03 (01" in info.value.details
        with pytest.raises(RumaRpcError) as info:
            client.catalog.show("no-such-name")
        assert info.value.code == grpc.StatusCode.NOT_FOUND
        with pytest.raises(RumaRpcError) as info:  # tags are bounded: 50,000 of them are refused, nothing stored
            client.catalog.add_position("tagged", "sowing", "312", tags=[f"t{i}" for i in range(50_000)])
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT and "at most 64" in info.value.details
        assert not client.catalog.list_positions(name="tagged")
        assert len(client.catalog.add_position("tagged", "sowing", "312", tags=[f"t{i}" for i in range(64)]).tags) == 64


def test_cli_against_the_server(address: str, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--server", address, "--json"]
    assert main(["catalog", "add", "ex", "--ruleset", "sowing", "--position", "312", *base,
                 "--token", "reader-token"]) == 2  # read-only: refused
    err = capsys.readouterr().err
    assert "needs a write token" in err and "PERMISSION_DENIED" not in err and err.count("\n") == 1
    assert main(["catalog", "add", "ex", "--ruleset", "sowing", "--position", "312", "--tag", "t",
                 *base, "--token", "writer-token"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == "{0|-2}"
    assert main(["theorem", "add", "th", "--ruleset", "sowing", "--family", "11(01)^n", "--claim", "{n+1|0}",
                 "--domain", "n>=1", *base, "--token", "writer-token"]) == 0
    capsys.readouterr()
    assert main(["theorem", "verify", "th", "--up-to", "3", *base, "--token", "writer-token"]) == 0
    assert json.loads(capsys.readouterr().out)["holds"] is True  # Theorem 2.4
    assert main(["catalog", "search", "--value", "{0|-2}", *base, "--token", "reader-token"]) == 0
    assert [json.loads(line)["name"] for line in capsys.readouterr().out.splitlines()] == ["ex"]


@pytest.mark.alone
def test_a_costly_value_in_a_search_does_not_hold_the_server(tmp_path: Path) -> None:
    """A value expression is built on a worker: ``*1000 + Tiny(3)`` (within the expression limits,
    minutes of canonicalisation) ends in DEADLINE_EXCEEDED for its caller while the service goes on
    answering everyone else at once."""
    import threading
    import time

    with running_server(tmp_path / "data", catalog=True) as (_, address):
        with connect(address) as client:
            client.catalog.add_position("example-312", "sowing", "312")
            errors: list[BaseException] = []

            def search() -> None:
                with connect(address, timeout=3) as slow:
                    try:
                        slow.catalog.search(value="*1000 + Tiny(3)")
                    except RumaRpcError as error:
                        errors.append(error)

            searching = threading.Thread(target=search)
            searching.start()
            time.sleep(0.5)
            latencies = []
            while searching.is_alive():
                start = time.monotonic()
                assert client.health(timeout=5) == "SERVING"
                assert client.evaluate("sowing", "312").value.ascii == "{0|-2}"  # Erickson §2's example
                latencies.append(time.monotonic() - start)
                time.sleep(0.1)
            searching.join()
            assert len(errors) == 1 and errors[0].code == grpc.StatusCode.DEADLINE_EXCEEDED, errors
            assert latencies and max(latencies) < 1.0, latencies
