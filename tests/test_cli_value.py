"""``ruma value``: canonical forms and analyses on the command line.

Expected values: Erickson (1996) §3 for the atomic weight of ↑(1|0) = {↑,*|0,*}; cgt-py for the
canonical forms, stops and temperatures of the other expressions.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ruma.client.cli import main

cgt_py = pytest.importorskip("cgt_py")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["value", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_plain_output_in_each_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "{2||1|0} + ^*") == (0, "{2^*||1^*|^*}\n", "")
    assert _run(capsys, "--format", "unicode", "2·↑ + *", "+-1") == (0, "⇑∗\n±1\n", "")
    status, out, _ = _run(capsys, "--format", "braces", "{2||1|0} + ^*")
    expected = cgt_py.CanonicalForm("{2|{1|0}}") + cgt_py.CanonicalForm("^*")
    assert status == 0 and f"CanonicalForm('{out.strip()}')" == repr(expected)


def test_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "--json", "{2||1|0}", "{^,*|0,*}")
    assert status == 0
    first, second = (json.loads(line) for line in out.splitlines())
    c = cgt_py.CanonicalForm("{2|{1|0}}")
    assert first["expression"] == "{2||1|0}" and first["canonical"] == "{2||1|0}"
    assert first["value"] == {"ascii": "{2||1|0}", "unicode": "{2||1|0}", "braces": "{2|{1|0}}"}
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
    assert first["thermograph"] == repr(c.thermograph)[len("Thermograph(") : -1]
    assert second["atomic_weight"] == "1" and second["atomic_weight_reason"] is None  # Erickson §3
    assert second["is_infinitesimal"] and second["is_all_small"] and second["outcome"] == "N"


def test_json_in_unicode_format(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "--json", "--format", "unicode", "^^ + *")
    data = json.loads(out)
    assert status == 0 and data["canonical"] == "⇑∗" and data["atomic_weight"] == "2"
    assert data["format"] == "unicode" and data["value"]["braces"] == "^2*"


def test_malformed_expression_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "{1|0")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "'{1|0'" in err and "column 5" in err
    status, out, err = _run(capsys, "--json", "1/3")
    assert status == 2 and json.loads(out)["error"].startswith("cannot parse '1/3'")


def test_console_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruma.client.cli", "value", "--format", "braces", "+-1 + *"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    expected = cgt_py.CanonicalForm("{1|-1}") + cgt_py.CanonicalForm("*")
    assert done.returncode == 0 and f"CanonicalForm('{done.stdout.strip()}')" == repr(expected)
