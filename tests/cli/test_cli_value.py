"""``ruma value``: canonical forms and analyses on the command line.

Expected values: Erickson (1996) §3 for the atomic weight of ↑(1|0) = {↑,*|0,*}; cgt-py for the
canonical forms, stops and temperatures of the other expressions.
"""

from __future__ import annotations

import json

import pytest

from ruma.client.cli import main
from tests.support.commands import ruma

cgt_py = pytest.importorskip("cgt_py")

pytestmark = pytest.mark.both_engines


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["value", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def _values(out: str) -> list[str]:
    """The value of each text block (its first line, ``EXPR = VALUE`` or ``VALUE``)."""
    return [line.rpartition(" = ")[2] for line in out.splitlines() if line and not line.startswith(" ")]


def test_plain_output_in_each_notation(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "--notation", "ascii", "{2||1|0} + ^*")
    assert (status, err) == (0, "") and out.splitlines()[0] == "{2||1|0} + ^* = {2^*||1^*|^*}"
    assert "  outcome        L (Left wins)" in out.splitlines() and "  stops          2 (left), 1 (right)" in out
    status, out, _ = _run(capsys, "2·↑ + *", "+-1")  # unicode is the default notation
    assert status == 0 and _values(out) == ["⇑∗", "±1"]
    status, out, _ = _run(capsys, "--notation", "braces", "{2||1|0} + ^*")
    expected = cgt_py.CanonicalForm("{2|{1|0}}") + cgt_py.CanonicalForm("^*")
    assert status == 0 and f"CanonicalForm('{_values(out)[0]}')" == repr(expected)


def test_values_starting_with_a_minus_are_expressions(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "-1/2", "-^", "--notation", "ascii")
    assert (status, err) == (0, "") and _values(out) == ["-1/2", "v"]


def test_table_and_csv(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "{2||1|0}", "^", "--format", "csv", "--notation", "ascii")
    rows = [line.split(",") for line in out.splitlines()]
    assert status == 0 and rows[0][:3] == ["expression", "value", "outcome"] and rows[2][:3] == ["^", "^", "L"]
    status, out, _ = _run(capsys, "{2||1|0}", "^", "--format", "table")
    assert status == 0 and out.splitlines()[0].split()[:3] == ["expression", "value", "outcome"]


def test_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "--json", "--notation", "ascii", "{2||1|0}", "{^,*|0,*}")
    assert status == 0
    first, second = (json.loads(line) for line in out.splitlines())
    c = cgt_py.CanonicalForm("{2|{1|0}}")
    assert first["expression"] == "{2||1|0}" and first["value"] == "{2||1|0}" and first["notation"] == "ascii"
    assert first["notations"] == {"ascii": "{2||1|0}", "unicode": "{2||1|0}", "braces": "{2|{1|0}}"}
    for field in ("left_stop", "right_stop", "temperature"):
        assert repr(getattr(c, field)) == f"DyadicRationalNumber('{first[field]}')"
    assert first["mean"] == "5/4" and first["birthday"] == c.birthday == 3
    assert first["outcome"] == "L"  # left stop 2 > right stop 1 > 0: Left wins either way
    assert first["atomic_weight"] is None and "not infinitesimal" in first["atomic_weight_reason"]
    assert (first["is_number"], first["is_nimber"], first["is_infinitesimal"], first["is_all_small"]) == (
        False,
        False,
        False,
        False,
    )
    # cgt-py writes a thermograph as Trajectory(mast, critical temperatures, slopes) per wall
    mast = repr(c.thermograph).split("Trajectory(")[1].split(",")[0]
    assert first["thermograph"]["mast"] == mast and first["thermograph"]["temperature"] == first["temperature"]
    assert first["thermograph"]["left_wall"]["points"][-1] == [mast, first["temperature"]]  # [x, t]
    assert first["thermograph"]["left_wall"]["points"][0] == ["3", "-1"]  # 2 - t at t = -1 (Winning Ways ch. 6)
    assert second["atomic_weight"] == "1" and second["atomic_weight_reason"] is None  # Erickson §3
    assert second["is_infinitesimal"] and second["is_all_small"] and second["outcome"] == "N"


def test_json_in_unicode(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "--json", "^^ + *")
    data = json.loads(out)
    assert status == 0 and data["value"] == "⇑∗" and data["atomic_weight"] == "2"
    assert data["notation"] == "unicode" and data["notations"]["braces"] == "^2*"


def test_malformed_expression_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "{1|0")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "'{1|0'" in err and "column 5" in err and "Traceback" not in err
    status, out, err = _run(capsys, "--json", "1/3", "*")
    assert status == 2 and [json.loads(line)["value"] for line in out.splitlines()] == ["∗"]
    assert err.startswith("ruma value: cannot parse '1/3'") and err.count("\n") == 1


def test_format_is_not_the_notation(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "--format", "unicode", "^")
    assert status == 2 and "--notation unicode" in err and err.count("\n") == 1


def test_console_entry_point() -> None:
    done = ruma("value", "--notation", "braces", "--format", "csv", "+-1 + *", timeout=120)
    expected = cgt_py.CanonicalForm("{1|-1}") + cgt_py.CanonicalForm("*")
    value = done.stdout.splitlines()[1].split(",")[1]
    assert done.returncode == 0 and f"CanonicalForm('{value}')" == repr(expected)


def test_eval_echoes_the_position_as_typed_and_impartial_analyses_say_only_what_counts(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Erickson, Theorem 2.2: (10)^3 03 (01)^2 = 0; §2: impartial 312 = ∗
    assert main(["eval", "sowing", "(10)^3 03 (01)^2", "--format", "text"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "(10)^3 03 (01)^2 → 101010030101 = 0"
    assert main(["eval", "sowing", "(10)^3 03 (01)^2", "312", "--json"]) == 0
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert (first["input"], first["position"]) == ("(10)^3 03 (01)^2", "101010030101") and "input" not in second
    assert main(["eval", "impartial-sowing", "312", "--format", "text"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["312 = ∗", "  outcome        N (the first player wins)", "  nim value      1", "  birthday       1"]
    assert main(["eval", "impartial-sowing", "312"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == ["position", "value", "outcome", "nim", "value", "born", "stored"]
    assert main(["eval", "sowing", "312"]) == 0
    assert "stop" in capsys.readouterr().out.splitlines()[0]  # a partizan position keeps its stops


def test_deep_values_have_every_analysis(capsys: pytest.CaptureFixture[str]) -> None:
    # n·↑ = {0 | (n-1)·↑∗} (Winning Ways ch. 3): birthday n + 1, atomic weight n (ch. 8)
    status, out, err = _run(capsys, "--notation", "ascii", "^350", "^9999")
    assert (status, err) == (0, "")
    assert "  birthday       351" in out.splitlines() and "  atomic weight  350" in out.splitlines()
    assert "  birthday       10000" in out.splitlines() and "  atomic weight  9999" in out.splitlines()


def test_cgsuites_toolbox_in_expressions(capsys: pytest.CaptureFixture[str]) -> None:
    # a switch {a|b} cooled by its temperature is (a+b)/2 + ∗, beyond it (a+b)/2 (WW ch. 6);
    # ∫^t ∗ = ±t (WW ch. 6); ordinal sums of numbers follow Berlekamp's rule for Hackenbush strings
    # (BB = 2, BR = 1/2; WW ch. 2); ↑ and 1∗ are infinitesimally close to 0 and 1; 2.↑ = ↑ + ↑
    expressions = ["cool(±1, 1)", "cool(±1, 2)", "heat(*, 1)", "ordinal(1, 1)", "ordinal(1, -1)", "rcf(^)",
                   "rcf(1*)", "norton(2, ^)", "{1|-1}.cool(1)", "1:-1"]
    status, out, err = _run(capsys, *expressions)
    assert (status, err) == (0, "")
    assert _values(out) == ["∗", "0", "±1", "2", "1/2", "0", "1", "⇑", "∗", "1/2"]
    assert out.splitlines()[0] == "cool(±1, 1) = ∗"
    status, out, _ = _run(capsys, "--notation", "ascii", "norton(2, ^)", "{3||2*|1*}.Overheat(*, 1*)")
    # CGSuite's GameTest.scala: {3||2+*|1+*}.Overheat(*,1+*) = {1||+-(1*)|-1,{-1|-3}}
    assert status == 0 and _values(out) == ["^^", "{1||+-1*|-1,{-1|-3}}"]


def test_meaningless_toolbox_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "cool(*, *)", "cool(1)", "1")
    lines = err.strip().splitlines()
    assert status == 2 and _values(out) == ["1"] and len(lines) == 2
    assert "cannot cool '*' by '*'" in lines[0] and "cool takes 2 arguments" in lines[1]
    done = ruma("value", "cool(±1, 1)", "heat(*, 1)", timeout=120)
    assert done.returncode == 0 and _values(done.stdout) == ["∗", "±1"]
