"""Notebook display of the client's results, from a real server on a loopback port."""

from __future__ import annotations

import re
from pathlib import Path

from ruma.engine import evaluate
from ruma.engine.cgt.display import thermograph_svg
from tests.support.grpc_harness import connect, running_server


def test_client_results_show_themselves(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as (_, address), connect(address) as client:
        e = client.evaluate("sowing", "312")
        local = evaluate("sowing", "312")
        html = e._repr_html_()
        assert "sowing 312 = <code>{0|-2}</code>" in html
        assert "<th style='text-align:left'>temperature</th><td>1</td>" in html  # the server's analysis
        assert e._repr_svg_() == thermograph_svg(local.game)
        assert e._repr_latex_() == local._repr_latex_()
        assert e.value._repr_latex_() == local.game._repr_latex_()
        assert e.value._repr_html_() == local.game._repr_html_()

        # Sowing 2212: Left's options 0322 = -1, 2023, 2203 = {2|-1}; Right's 2302 = 0, 2320 = *.
        options = client.options("sowing", "2212")
        page = options._repr_html_()
        rows = dict(re.findall(r"<tr><td><code>(\d+)</code></td><td><code>[^<]*</code></td><td>(\w*)</td></tr>", page))
        expected = {}
        for side, player in (("left", "L"), ("right", "R")):
            for o in getattr(options, side):
                g = o.value.game()
                expected[o.position] = "winning" if (g.outcome.value in ("P", player)) else ""
        assert rows == expected
        assert rows["2302"] == "winning" and rows["2320"] == "" and rows["0322"] == ""
        assert "Left&#x27;s options" in page and "Right&#x27;s options" in page

        total = client.sum("{2||1|0}", "^")
        assert total._repr_latex_() == total.value._repr_latex_()
