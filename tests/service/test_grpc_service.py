"""Every RPC of ruma.v1.Ruma against a real server on 127.0.0.1 with a real LMDB store.

Expected values come from Erickson, "Sowing Games" (1996): §2's worked example 312 = {0 | -2}
(and its options 303 = 0, 402 = -2, 420 = 0), Table 1 (2202 = ↑, 31011 = ↑*), Table 2
(1^4 = ±½, 1^7 = *2), the impartial worked example 312 = * and Table 3 (111 = *2, 1112 = *3,
110111 = *4); and from theorems: ↑ + ↓ = 0, *a + *b = *(a xor b), the temperature of a
switch {a | b} (a > b numbers) is (a − b)/2, the atomic weight of ↑ is 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import grpc
import pytest

from ruma.client import Client, RumaRpcError
from ruma.engine.cgt import STAR, UP, Game, integer, nimber
from ruma.v1 import ruma_pb2 as pb
from ruma.v1 import ruma_pb2_grpc
from tests.support.grpc_harness import ascii_of, connect, running_server, switch


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("data"), catalog=True) as (_, address):
        yield address


@pytest.fixture()
def client(address: str) -> Iterator[Client]:
    with connect(address) as c:
        yield c


PAPER_VALUES: list[tuple[str, str, object]] = [
    ("sowing", "312", lambda: switch(integer(0), integer(-2))),
    ("sowing", "2202", lambda: UP),
    ("sowing", "31011", lambda: UP + STAR),
    ("sowing", "1^8", lambda: nimber(1)),
    ("sowing", "1^7", lambda: nimber(2)),
    ("impartial-sowing", "312", lambda: 1),
    ("impartial-sowing", "111", lambda: 2),
    ("impartial-sowing", "1112", lambda: 3),
    ("impartial-sowing", "110111", lambda: 4),
]


@pytest.mark.parametrize("ruleset,position,expected", PAPER_VALUES)
def test_evaluate_gives_the_papers_values(client: Client, ruleset: str, position: str, expected: object) -> None:
    value = expected()  # type: ignore[operator]
    result = client.evaluate(ruleset, position)
    assert result.value.ascii == ascii_of(value)
    assert result.value.game() is (nimber(value) if isinstance(value, int) else value)
    assert str(result.value) == result.value.unicode and result.value.unicode and result.value.braces
    assert result.ruleset == ruleset and result.ruleset_version >= 1
    assert result.key and result.canonical


def test_evaluate_analysis(client: Client) -> None:
    switch_0_2 = client.evaluate("sowing", "312")
    assert switch_0_2.outcome == "N"
    assert switch_0_2.temperature == 1 and switch_0_2.mean == -1  # {0|-2} = -1 ± 1
    assert switch_0_2.nim_value is None and switch_0_2.atomic_weight is None
    up = client.evaluate("sowing", "2202")
    assert up.outcome == "L" and up.atomic_weight is not None and up.atomic_weight.ascii == "1"
    star2 = client.evaluate("sowing", "1^7")
    assert star2.nim_value == 2 and star2.outcome == "N"
    impartial = client.evaluate("impartial-sowing", "1112")
    assert impartial.nim_value == 3 and impartial.outcome == "N"
    assert "<table>" in up._repr_html_() and "↑" in up.value._repr_html_()


def test_requested_notations_only(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = ruma_pb2_grpc.RumaStub(channel)
        reply = stub.Evaluate(pb.EvaluateRequest(ruleset="sowing", position="2202", notations=[pb.NOTATION_ASCII]), timeout=30)
    assert reply.value.ascii == ascii_of(UP) and reply.value.unicode == "" and reply.value.braces == ""
    with connect(address) as client:  # the client fills the other notations locally
        value = client.evaluate("sowing", "2202", notations=["ascii"]).value
        assert value.unicode == client.evaluate("sowing", "2202").value.unicode


def test_second_client_is_served_from_the_store(address: str) -> None:
    with connect(address) as first, connect(address) as second:
        computed = first.evaluate("sowing", "2^5")
        assert not computed.from_store and computed.stats.positions_valued > 0
        stored = second.evaluate("sowing", "2^5")
        assert stored.from_store and stored.stats.positions_valued == 0
        assert stored.value == computed.value and stored.key == computed.key


def test_components_are_reported(client: Client) -> None:
    result = client.evaluate("sowing", "2202")
    assert result.components and all(c.key for c in result.components)
    total = Game.from_options([], [])
    for component in result.components:
        total = total + component.value.game()
    assert total is UP


def test_evaluate_batch_with_one_bad_item(client: Client) -> None:
    items = client.evaluate_batch("sowing", ["312", "3x2", "1^7"])
    assert [item.code for item in items] == [grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OK]
    assert "'3x2'" in items[1].message and items[1].evaluation is None
    assert items[0].evaluation is not None and items[0].evaluation.value.ascii == ascii_of(switch(integer(0), integer(-2)))
    assert items[2].evaluation is not None and items[2].evaluation.value.ascii == ascii_of(nimber(2))
    brief = client.evaluate_batch("sowing", ["312"], brief=True)[0].evaluation
    assert brief is not None and brief.components == [] and brief.outcome == ""


def test_batch_with_unknown_ruleset_fails_whole_call(client: Client) -> None:
    with pytest.raises(RumaRpcError) as error:
        client.evaluate_batch("no-such-game", ["1"])
    assert error.value.code == grpc.StatusCode.INVALID_ARGUMENT and "no-such-game" in error.value.details


def test_lookup_never_computes(client: Client) -> None:
    before = client.stats()
    missing = client.lookup("sowing", ["4^5", "4x"])
    assert not missing[0].found and missing[0].code == grpc.StatusCode.OK and missing[0].evaluation is None
    assert missing[1].code == grpc.StatusCode.INVALID_ARGUMENT and "'4x'" in missing[1].message
    assert client.stats().positions_valued == before.positions_valued
    evaluated = client.evaluate("sowing", "312")
    found = client.lookup("sowing", ["312", "402", "420", "303"])  # 312 and its followers (§2)
    assert all(item.found for item in found)
    values = [item.evaluation.value.ascii for item in found if item.evaluation]
    assert values == [evaluated.value.ascii, ascii_of(integer(-2)), ascii_of(integer(0)), ascii_of(integer(0))]
    assert all(item.evaluation and item.evaluation.from_store for item in found)


@pytest.mark.parametrize("a,b,relation", [("^", "0", ">"), ("*", "0", "||"), ("1/2", "1", "<"), ("^*", "*+^", "=")])
def test_compare_expressions(client: Client, a: str, b: str, relation: str) -> None:
    result = client.compare(a, b)
    assert result.relation == relation
    assert (result.difference.ascii == "0") == (relation == "=")


def test_compare_position_with_expression(client: Client) -> None:
    result = client.compare(("sowing", "2202"), "^")  # Table 1: 2202 = ↑
    assert result.relation == "=" and result.difference.ascii == "0" and str(result.a) == "↑"
    # {0|-2} < ↑: checked by hand from the definition of <= ({0|-2} >= ↑ fails since -2 <= ↑)
    assert client.compare(("sowing", "312"), ("sowing", "2202")).relation == "<"


def test_sum(client: Client) -> None:
    zero = client.sum(("sowing", "2202"), "v")
    assert zero.value.ascii == "0" and zero.outcome == "P"
    assert client.sum(("impartial-sowing", "111"), ("impartial-sowing", "1112")).nim_value == 2 ^ 3
    assert len(client.sum("1", "1/2", "*").terms) == 3


def test_options(client: Client) -> None:
    result = client.options("sowing", "312")  # §2: 312 = {303 | 402, 420} = {0 | -2, 0}
    assert [o.value.ascii for o in result.left] == [ascii_of(integer(0))]
    assert sorted(o.value.ascii for o in result.right) == sorted([ascii_of(integer(-2)), ascii_of(integer(0))])
    assert {o.position.rstrip("0") for o in result.right} == {"402", "42"}
    assert result.evaluation.value.ascii == ascii_of(switch(integer(0), integer(-2)))
    impartial = client.options("impartial-sowing", "312")
    assert impartial.left == impartial.right and len(impartial.left) == 3


def test_capabilities(client: Client) -> None:
    caps = client.capabilities()
    by_name = {r.name: r for r in caps.rulesets}
    assert by_name["sowing"].code == 1 and not by_name["sowing"].impartial
    assert by_name["impartial-sowing"].code == 2 and by_name["impartial-sowing"].impartial
    assert caps.max_batch_size > 0 and caps.max_positions > 0 and caps.max_pots > 0
    assert "ruma.v1.Ruma" in caps.services and "grpc.health.v1.Health" in caps.services
    assert "ruma.v1.Catalog" in caps.services  # registered because ruma.server.rpc.catalog exists
    assert not caps.auth_required
    octal = by_name["octal:CODE"]  # the family, not one member of it
    assert "code" in octal.description and "0.07" not in octal.description and octal.impartial


def test_client_api_is_ruleset_first_and_says_what_to_pass(client: Client) -> None:
    with pytest.raises(TypeError, match=r"one position as a string.*evaluate_batch"):
        client.evaluate("sowing", ["312"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"ruleset name first"):
        client.evaluate(["312"], "sowing")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"list of positions"):
        client.evaluate_batch("sowing", "312")
    evaluation = client.evaluate("sowing", "312")
    assert repr(evaluation) == "<Evaluation sowing '312' = {0|-2}, outcome N, computed 3 positions>" or \
        repr(evaluation).startswith("<Evaluation sowing '312' = {0|-2}, outcome N, ")
    assert "key" not in repr(evaluation) and "\\x" not in repr(evaluation)
    assert repr(client).startswith(f"Client('{client.address}', plaintext") and "token" not in repr(client)


def test_stats_count_hits_and_misses(client: Client) -> None:
    before = client.stats()
    client.evaluate("sowing", "3^4")
    client.evaluate("sowing", "3^4")
    after = client.stats()
    assert after.evaluations_total == before.evaluations_total + 2
    assert after.misses == before.misses + 1 and after.hits == before.hits + 1
    assert after.positions_valued > before.positions_valued and after.store_entries > 0
    assert after.evaluations_in_flight == 0 and after.uptime_seconds > 0


def test_health(client: Client) -> None:
    assert client.health() == "SERVING"
    assert client.health("ruma.v1.Ruma") == "SERVING"
    with pytest.raises(RumaRpcError) as error:
        client.health("no.such.Service")
    assert error.value.code == grpc.StatusCode.NOT_FOUND


def test_reflection_lists_and_describes_the_service(address: str) -> None:
    from google.protobuf.descriptor_pool import DescriptorPool
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    with grpc.insecure_channel(address) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
        assert {"ruma.v1.Ruma", "ruma.v1.Catalog", "grpc.health.v1.Health"} <= services
        service = DescriptorPool(database).FindServiceByName("ruma.v1.Ruma")
        assert {"Evaluate", "EvaluateBatch", "Lookup", "Compare", "Sum", "Options", "GetCapabilities",
                "GetStats"} <= {m.name for m in service.methods}


@pytest.mark.parametrize(
    "call,fragment",
    [
        (lambda c: c.evaluate("no-such-game", "1"), "'no-such-game'"),
        (lambda c: c.evaluate("sowing", "3x2"), "'3x2'"),
        (lambda c: c.evaluate("sowing", ""), "''"),
        (lambda c: c.compare("{1|", "0"), "'{1|'"),
        (lambda c: c.compare(("sowing", "9z"), "0"), "'9z'"),
        (lambda c: c.sum(), "at least one term"),
        (lambda c: c.options("sowing", "-1"), "'-1'"),
        (lambda c: c.lookup("nope", ["1"]), "'nope'"),
    ],
)
def test_bad_input_is_invalid_argument_quoting_it(client: Client, call: object, fragment: str) -> None:
    with pytest.raises(RumaRpcError) as error:
        call(client)  # type: ignore[operator]
    assert error.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in error.value.details


def test_operand_without_kind_is_invalid(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        stub = ruma_pb2_grpc.RumaStub(channel)
        with pytest.raises(grpc.RpcError) as error:
            stub.Compare(pb.CompareRequest(a=pb.Operand(expression="0")), timeout=30)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "operand" in error.value.details()


def test_client_never_imports_the_server() -> None:
    import subprocess
    import sys

    code = ("import sys, ruma.client.client, ruma.client.loader, ruma.client.results, ruma.client.cli.remote;"
            "print([m for m in sys.modules if m.startswith('ruma.server')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parent)
    assert out.stdout.strip() == "[]"


def test_mirror_image_is_served_negated(client: Client) -> None:
    # Reversing a Sowing position swaps Left and Right, so 213 = -(312) = -{0|-2} = {2|0}.
    client.evaluate("sowing", "312")
    mirrored = client.lookup("sowing", ["213"])[0]
    assert mirrored.found and mirrored.evaluation is not None
    assert mirrored.evaluation.value.ascii == ascii_of(switch(integer(2), integer(0)))
    evaluated = client.evaluate("sowing", "213")
    assert evaluated.from_store and evaluated.value.ascii == ascii_of(switch(integer(2), integer(0)))
    assert evaluated.key == client.evaluate("sowing", "312").key
