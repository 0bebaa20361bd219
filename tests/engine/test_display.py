"""Notebook display of engine values: LaTeX, the thermograph sketch, the HTML table."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from fractions import Fraction as F

import pytest

from ruma.engine import evaluate
from ruma.engine.cgt import parse_game
from ruma.engine.cgt.display import format_latex, latex_text, thermograph_svg

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("expression, latex", [
    ("0", "0"),
    ("-1/2", r"-\tfrac{1}{2}"),
    ("^", r"\uparrow"),
    ("vv", r"\Downarrow"),
    ("^*", r"\uparrow{\ast}"),
    ("*12", r"{\ast}12"),
    ("^3*2", r"3\cdot \uparrow{\ast}2"),
    ("1/2+^3", r"\tfrac{1}{2}+3\cdot \uparrow"),
    ("+-1", r"\pm1"),
    ("{2||1|0}", r"\{2\mathrel{|\!|}1\mathrel{|}0\}"),
    ("{3||2|1|||0}", r"\{3\mathrel{|\!|}2\mathrel{|}1\mathrel{|\!|\!|}0\}"),
    ("{1,{1|0}|0}", r"\{1,\,\{1\mathrel{|}0\}\mathrel{|}0\}"),
    ("Tiny(2)", r"{+}_{2}"),
    ("Miny(12)", r"{-}_{12}"),
])
def test_latex_of_values(expression: str, latex: str) -> None:
    g = parse_game(expression)
    assert format_latex(g) == latex
    assert g._repr_latex_() == f"${latex}$"


def test_latex_text_escapes_specials() -> None:
    assert latex_text("sowing 1^8 #_") == r"\text{sowing 1\^{}8 \#\_}"


def _circles(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return [c for c in root.iter(f"{SVG}circle") if c.get("class") == "breakpoint"]


def test_sketch_marks_the_exact_breakpoints_of_2_1_0() -> None:
    # {2||1|0}: walls meet at (5/4, 3/4); the right wall bends at (1, 1/2) (see test_plot_images).
    svg = thermograph_svg(parse_game("{2||1|0}"))
    root = ET.fromstring(svg)
    assert (root.get("data-temperature"), root.get("data-mean")) == ("3/4", "5/4")
    points = {(c.get("data-wall"), F(c.get("data-x", "")), F(c.get("data-t", ""))) for c in _circles(svg)}
    assert points == {("left", F(3), F(-1)), ("left", F(5, 4), F(3, 4)), ("right", F(1), F(-1)), ("right", F(1), F(1, 2))}
    # pixels are an affine image of the data, values growing to the left
    px = {(F(c.get("data-x", "")), F(c.get("data-t", ""))): (float(c.get("cx", "")), float(c.get("cy", "")))
          for c in _circles(svg)}
    (x3, y_base), (x1, _) = px[(F(3), F(-1))], px[(F(1), F(-1))]
    x54, y34 = px[(F(5, 4), F(3, 4))]
    _, y12 = px[(F(1), F(1, 2))]
    assert x3 < x54 < x1
    assert abs((x54 - x3) / (x1 - x3) - (3 - 1.25) / 2) < 0.01
    assert abs((y_base - y34) / (y_base - y12) - 1.75 / 1.5) < 0.02


def test_integer_sketch_is_a_bare_mast() -> None:
    svg = thermograph_svg(parse_game("2"))
    assert [(c.get("data-x"), c.get("data-t")) for c in _circles(svg)] == [("2", "-1")]
    assert 'class="temperature"' not in svg


def test_game_html_has_value_analyses_and_sketch() -> None:
    page = parse_game("{2||1|0}")._repr_html_()
    for piece in ("<code>{2||1|0}</code>", "<th style='text-align:left'>temperature</th><td>3/4</td>",
                  "<th style='text-align:left'>mean</th><td>5/4</td>", "<th style='text-align:left'>outcome</th><td>L</td>",
                  "<svg"):
        assert piece in page
    assert parse_game("^")._repr_svg_().startswith("<svg")
    assert "atomic weight</th><td>1</td>" in parse_game("^")._repr_html_()


def test_evaluation_reprs() -> None:
    e = evaluate("sowing", "312")
    assert e._repr_latex_() == r"$\text{sowing 312} = \{0\mathrel{|}-2\}$"
    html = e._repr_html_()
    assert "sowing 312 = <code>{0|-2}</code>" in html and "<svg" in html
    assert e._repr_svg_() == thermograph_svg(e.game)
    star = evaluate("impartial-sowing", "312")
    assert "nim value</th><td>1</td>" in star._repr_html_()


def test_display_does_not_import_matplotlib() -> None:
    code = ("import sys; from ruma.engine.cgt import parse_game; g = parse_game('{2||1|0}'); "
            "g._repr_html_(); g._repr_svg_(); g._repr_latex_(); print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False"
