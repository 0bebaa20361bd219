"""docs/notebook.ipynb runs top to bottom in a real Jupyter kernel (no display) and shows values."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.support import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOK = ROOT / "docs" / "notebook.ipynb"


def _output(cell: object, mime: str) -> str:
    for output in cell.outputs:  # type: ignore[attr-defined]
        data = output.get("data", {})
        if mime in data:
            return str(data[mime])
    raise AssertionError(f"no {mime} output in cell {cell.source!r}")  # type: ignore[attr-defined]


def test_example_notebook_runs_and_shows_values(tmp_path: Path) -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    cells = {c.source.splitlines()[-1]: c for c in nb.cells if c.cell_type == "code"}
    for cell in cells.values():
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source
    value = cells["g"]
    assert "<code>{2||1|0}</code>" in _output(value, "text/html")
    assert 'data-temperature="3/4"' in _output(value, "image/svg+xml")
    assert _output(cells["Latex(g._repr_latex_())"], "text/latex") == r"$\{2\mathrel{|\!|}1\mathrel{|}0\}$"
    assert "= <code>0</code>" in _output(cells["e"], "text/html")  # Erickson, Theorem 2.2: (10)^m 03 (01)^n = 0
    for figure in ("thermograph_figure(g)", "octal_figure('0.137', 300)", "tree_figure('sowing', '312', 2)"):
        assert base64.b64decode(_output(cells[figure], "image/png"))[:8] == b"\x89PNG\r\n\x1a\n"
    assert "sowing 312 = <code>{0|-2}</code>" in _output(cells["client.evaluate('sowing', '312')"], "text/html")
    assert "winning" in _output(cells["client.options('sowing', '2212')"], "text/html")
