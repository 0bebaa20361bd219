"""``ruma tchoukaillon``: each sub-subcommand, plain and ``--json``, and bad input (exit 2).

Expected values are the paper's (Example 2.2, Figure 2, Figure 1, Example 4.8, Example 4.4)."""

from __future__ import annotations

import json

import pytest

from ruma.client.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["tchoukaillon", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    status, out, _ = _run(capsys, *argv, "--json")
    assert status == 0
    return [json.loads(line) for line in out.splitlines()]


def test_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "board", "15") == (0, "b(15) = (1, 2, 0, 2, 4, 6)  [length 6]\n", "")
    rows = _json(capsys, "board", "12", "15")
    assert rows == [{"n": 12, "board": [0, 0, 0, 2, 4, 6], "length": 6},
                    {"n": 15, "board": [1, 2, 0, 2, 4, 6], "length": 6}]


def test_board_of_a_300_digit_number(capsys: pytest.CaptureFixture[str]) -> None:
    n = 3**628 + 17
    status, _, err = _run(capsys, "board", str(n))
    assert status == 2 and "--bins" in err
    (row,) = _json(capsys, "board", str(n), "--bins", "40")
    prefix = row["prefix"]
    assert isinstance(prefix, list) and len(prefix) == 40
    assert sum(prefix) + row["in_hand"] == n  # type: ignore[operator]
    # Theorem 2.1: the first i bins sum to n mod (i + 1)
    assert all(sum(prefix[:i]) % (i + 1) == n % (i + 1) for i in range(1, 41))


def test_min_stones_and_boards_of_length(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, "min-stones", "1", "2", "3", "4", "5", "6", "7", "--cross-check")
    assert [r["min_stones"] for r in rows] == [1, 2, 4, 6, 10, 12, 18]
    assert all(r["agree"] for r in rows)
    rows = _json(capsys, "boards-of-length", "6")
    assert [r["n"] for r in rows] == [12, 13, 14, 15, 16, 17]
    assert rows[3]["board"] == [1, 2, 0, 2, 4, 6]


def test_complete(capsys: pytest.CaptureFixture[str]) -> None:
    (row,) = _json(capsys, "complete", "3=1,7=2")
    assert (row["n"], row["paper_algorithm_n"], row["indexing"]) == (34, 202, "beta")
    assert row["board"] == [0, 1, 1, 2, 0, 2, 4, 6, 8, 10]
    (row,) = _json(capsys, "complete", "4=1,7=0", "--length", "reach")
    assert row["n"] == 214
    (row,) = _json(capsys, "complete", "4=1,7=0")
    assert row["n"] == 10
    (row,) = _json(capsys, "complete", "5=1,6=2")
    assert row["feasible"] is False and row["n"] is None
    status, out, _ = _run(capsys, "complete", "3=1,7=2")
    assert status == 0 and "smallest n = 34" in out and "202" in out
    status, out, _ = _run(capsys, "complete", "--help")  # main returns argparse's status, never raises it
    assert status == 0 and "beta_i = b_{i-1}" in " ".join(out.split())  # states the indexing


def test_check(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, "check", "0,1,3", "(1, 1)")
    assert rows[0] == {"board": [0, 1, 3], "stones": 4, "winning": True, "moves": [3, 1, 2, 1],
                       "failing_bin": None}
    assert rows[1]["winning"] is False and rows[1]["moves"] is None
    status, out, _ = _run(capsys, "check", "1 2 0 2 4 6")
    assert status == 0 and "winning, it is b(15)" in out


def test_graph_figure_6(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, "graph", "1>0,2>1,3>2,0>3", "--max-stones", "5")
    assert rows[0]["theorem_5_2_finite"] is False and rows[0]["finite"] is False
    assert [r["board"] for r in rows[0]["boards"]] == [[0, 0, 0], [1, 0, 0], [0, 2, 0], [1, 2, 0],
                                                       [0, 1, 3], [1, 1, 3]]  # Figure 6
    rows = _json(capsys, "graph", "1>1,1>0")  # a self-loop: the paper's test says finite
    assert rows[0]["theorem_5_2_finite"] is True and rows[0]["finite"] is False


@pytest.mark.parametrize("argv, quoted", [
    (["graph", "1-0"], "'1-0'"),
    (["graph", "1>0", "--rumas", "r"], "'r'"),
    (["board", "12x"], "'12x'"),
    (["board", "-3"], "'-3'"),
    (["min-stones", "six"], "'six'"),
    (["boards-of-length", "1.5"], "'1.5'"),
    (["complete", "3:1"], "'3:1'"),
    (["complete", "1=0"], "'1=0'"),
    (["check", "1,a"], "'1,a'"),
])
def test_bad_input_exits_2_quoting_it(capsys: pytest.CaptureFixture[str], argv: list[str],
                                      quoted: str) -> None:
    status, out, err = _run(capsys, *argv)
    assert status == 2 and quoted in err and out == ""
