"""``ruma octal``, ``ruma p-positions`` and ``ruma nim-values`` end to end (in process)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ruma.client.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_octal_values_and_p_positions(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "octal", "0.37", "--count", "500", "--p-positions")
    assert status == 0
    assert "P-positions (13): 0 3 11 19 29 45 71 97 123 149 175 313 407" in out  # Erickson §3
    status, out, _ = run(capsys, "octal", "grundy", "--count", "18", "--json")
    assert json.loads(out)["values"][1:] == [0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2]  # Grundy 1939


def test_octal_period_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "octal", ".77", "-n", "400", "--period", "--json")
    assert status == 0
    assert json.loads(out) == {"code": "0.77", "count": 400, "period": {"preperiod": 71, "period": 12}}


def test_octal_bad_code_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "octal", "0.9")
    assert status == 2 and "'0.9'" in err


def test_p_positions_of_chocolate2_and_coinstrip2(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "p-positions", "chocolate2", "2,1,2,1,2,1", "--format", "csv")
    lines = [row[0] for row in csv.reader(io.StringIO(out))]
    assert status == 0 and lines[0] == "position" and lines[6] == "0,1,0,1,1,1" and "2,1,2,1,2,1" not in lines
    assert len(lines) == 21 and err.startswith("ruma p-positions: 20 P-positions among 76")
    status, out, _ = run(capsys, "p-positions", "coinstrip2", "15:1,2,3", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 197 and rows[0]["position"] == "15:1,2,3" and rows[-1]["position"] == "15:13,14,15"


def test_nim_values(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "nim-values", "nim", "3 5 7", "1,2,3", "--json")
    assert status == 0
    assert [json.loads(line)["nim_value"] for line in out.splitlines()] == [1, 0]  # Bouton: 3^5^7, 1^2^3
