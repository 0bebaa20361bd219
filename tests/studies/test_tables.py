"""``python -m ruma.studies.tables``: the generator of docs/tables.md, on small knobs.

Expected values from Erickson 1996: Table 3 (the simplest impartial Sowing positions of value
∗1 and ∗2 are ``11`` and ``111`` in both columns), Table 4 (impartial ``1^n``: 1^2 = ∗1, 1^3 = ∗2,
1^4 = 0) and Table 2 (Sowing ``1^2`` = ∗, ``1^3`` = 0). A budget stops a series' position while it
is being valued (``1^40`` cannot be valued in a second: Theorem 2.1's exponential growth).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ruma.studies import tables


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert tables.main(["--data", str(tmp_path / "store"), "--seeds3", "4", "--aw-seeds", "3", "--workers", "1",
                        *argv]) == 0
    return capsys.readouterr().out


def row(text: str, title: str, series: str) -> str:
    section = text.split(title, 1)[1]
    return next(line for line in section.splitlines() if line.startswith(f"| `{series}` |"))


def test_small_tables_agree_with_the_paper(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = run(tmp_path, capsys, "--budget", "5", "--max-n", "4")
    assert "| ∗1 | `11` |" in text and "| ∗2 | `111` |" in text
    assert "1: 0; 2: 1; 3: 2; 4: 0" in row(text, "## Table 4", "1^n")
    assert "2: *; 3: 0" in row(text, "## Table 2", "1^n")
    assert text.index("## Table 3") < text.index("## Table 4") < text.index("## Table 2")


def test_a_budget_stops_a_position_while_it_is_valued(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = run(tmp_path, capsys, "--budget", "1", "--max-n", "40")
    reached = next(line for line in text.split("## Table 4", 1)[1].splitlines() if line.startswith("Reached:"))
    n = int(reached.split("1^n to n = ", 1)[1].split(",", 1)[0])
    assert 4 <= n < 40  # 1^4 is valued within a second; 1^40 never is
    assert "not valued within 1 s" in reached
