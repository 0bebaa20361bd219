"""ruma.plot writes SVG and PNG whose content is what it should show, read back from the files.

Thermograph breakpoints are textbook values (Winning Ways ch. 6; Siegel, *Combinatorial Game
Theory*, II.5), derived in the comments and checked against cgt-py's own thermograph drawing.
"""

from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")


from ruma.engine.octal import OctalGame, quadratic_values
from ruma.engine.tchoukaillon.graphs import parse_sowing_graph as parse_graph
from ruma.plot import octal_figure, save, sowing_graph_figure, tchoukaillon_figure, thermograph_figure, tree_figure
from tests.support.svg_reading import Axes, by_id, ids, parse, texts, uses

cgt_py = pytest.importorskip("cgt_py")

# {2||1|0} = {2 | {1|0}}. Left's scaffold: 2 - t; Right's: the left wall of {1|0} (1 - t up to
# t = 1/2, then its mast 1/2) tilted by +t, i.e. 1 up to t = 1/2, then 1/2 + t. They meet where
# 2 - t = 1/2 + t: t = 3/4, x = 5/4. Below t = 0 the walls run on to t = -1 (subzero).
TWO_ONE_ZERO = {("left", F(3), F(-1)), ("left", F(5, 4), F(3, 4)),
                ("right", F(1), F(-1)), ("right", F(1), F(1, 2))}
# ±1 = {1|-1}: walls 1 - t and -1 + t meet at t = 1 on the mast 0.
PLUS_MINUS_ONE = {("left", F(2), F(-1)), ("left", F(0), F(1)), ("right", F(-2), F(-1))}


def cgt_py_breakpoints(braces: str) -> set[tuple[F, F]]:
    """The ``(x, t)`` labels cgt-py writes on its own thermograph picture."""
    svg = cgt_py.CanonicalForm(braces).thermograph._repr_svg_()
    return {(F(x), F(t)) for x, t in re.findall(r">\((-?[\d/]+), (-?[\d/]+)\)<", svg)}


@pytest.mark.parametrize("expression, braces, expected, temperature, mean", [
    ("{2||1|0}", "{2|{1|0}}", TWO_ONE_ZERO, F(3, 4), F(5, 4)),
    ("+-1", "{1|-1}", PLUS_MINUS_ONE, F(1), F(0)),
])
def test_thermograph_svg_has_the_breakpoints_at_their_coordinates(tmp_path: Path, expression: str, braces: str,
                                                                   expected: set[tuple[str, F, F]],
                                                                   temperature: F, mean: F) -> None:
    assert {(x, t) for _, x, t in expected} == cgt_py_breakpoints(braces)
    path = save(thermograph_figure(expression), tmp_path / "thermograph.svg")
    root = parse(path.read_text())
    axes = Axes(root)
    found = set()
    for ident in ids(root, "breakpoint-left-") + ids(root, "breakpoint-right-"):
        (px, py), = uses(by_id(root, ident))
        x, t = axes.data(px, py)
        match = [(w, ex, et) for w, ex, et in expected if abs(x - float(ex)) < 1e-6 and abs(t - float(et)) < 1e-6]
        assert match, f"{ident} at ({x}, {t}) is not an expected breakpoint"
        assert ident.split("-")[1] == match[0][0]
        label = texts(by_id(root, ident.replace("breakpoint-", "breakpoint-label-")))
        assert label == [f"({match[0][1]}, {match[0][2]})"]
        found.add(match[0])
    assert found == expected
    assert texts(by_id(root, "mean")) == [f"mean {mean}"]
    assert texts(by_id(root, "temperature-label")) == [f"temperature {temperature}"]
    mast = by_id(root, "mast").find(".//{http://www.w3.org/2000/svg}path")
    assert mast is not None
    coords = [float(v) for v in re.findall(r"-?\d+\.?\d*", mast.get("d", ""))]
    (x0, t0), (x1, t1) = axes.data(coords[0], coords[1]), axes.data(coords[2], coords[3])
    assert abs(x0 - float(mean)) < 1e-6 and abs(x1 - float(mean)) < 1e-6  # a vertical mast on the mean
    assert abs(t0 - float(temperature)) < 1e-6 and t1 > t0  # rising from the temperature


def test_thermograph_png_shows_the_walls(tmp_path: Path) -> None:
    from matplotlib.image import imread

    fig = thermograph_figure("{2||1|0}")
    path = save(fig, tmp_path / "thermograph.png", dpi=int(fig.dpi))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = imread(path)
    assert pixels.shape[:2] == (round(fig.get_figheight() * fig.dpi), round(fig.get_figwidth() * fig.dpi))
    ax = fig.axes[0]
    height = pixels.shape[0]
    for (x, t), colour in (((1.25, 0.75), (0x1F, 0x5F, 0xBF)), ((1.0, 0.5), (0xC0, 0x30, 0x2B))):
        px, py = ax.transData.transform((x, t))
        r, g, b = (pixels[int(round(height - py)), int(round(px))][:3] * 255).round()
        assert abs(r - colour[0]) < 40 and abs(g - colour[1]) < 40 and abs(b - colour[2]) < 40, (x, t, r, g, b)


def test_octal_plot_marks_dawsons_chess_period_and_preperiod(tmp_path: Path) -> None:
    # Dawson's chess 0.137: period 34, last exceptional value at heap 51 (Winning Ways ch. 4).
    path = save(octal_figure("0.137", 400), tmp_path / "octal.svg")
    root = parse(path.read_text())
    title = " ".join(t for t in texts(root) if "nim sequence" in t)
    assert "period 34, preperiod 52" in title
    axes = Axes(root)
    span = by_id(root, "preperiod").find(".//{http://www.w3.org/2000/svg}path")
    assert span is not None
    xs = [float(v) for v in re.findall(r"-?\d+\.?\d*", span.get("d", ""))][0::2]
    assert abs(axes.data(min(xs), 0)[0] - -0.5) < 1e-6 and abs(axes.data(max(xs), 0)[0] - 51.5) < 1e-6
    points = [axes.data(px, py) for px, py in uses(by_id(root, "values"))]
    expected = quadratic_values(OctalGame("0.137"), 400)  # the plain definition, not the fast path
    assert [round(x) for x, _ in points] == list(range(400))
    assert [round(y) for _, y in points] == expected
    assert all(abs(y - round(y)) < 1e-6 for _, y in points)
    assert len(ids(root, "period-")) >= 2


def test_tree_shows_erickson_312_and_its_options(tmp_path: Path) -> None:
    # Erickson, Sowing Games: 312 = {0|-2}; Left moves to 303 = 0, Right to 402 = -2 and 420 = 0.
    root = parse(save(tree_figure("sowing", "312", 1), tmp_path / "tree.svg").read_text())
    nodes = {tuple(texts(by_id(root, i))) for i in ids(root, "node-")}
    assert nodes == {("312", "{0|-2}"), ("303", "0"), ("402", "-2"), ("420", "0")}
    moves = ids(root, "move-")
    assert sorted(m.rsplit("-", 1)[1] for m in moves) == ["L", "R", "R"]


def test_tchoukaillon_board_is_figure_2s_b15(tmp_path: Path) -> None:
    # Jones-Taalman-Tongen, Figure 2: b(15) = (1, 2, 0, 2, 4, 6).
    root = parse(save(tchoukaillon_figure(15), tmp_path / "board.svg").read_text())
    assert [texts(by_id(root, f"stones-{i}")) for i in range(1, 7)] == [["1"], ["2"], ["0"], ["2"], ["4"], ["6"]]
    assert "harvestable (outlined red): 1, 2, 6" in " ".join(texts(root))


def test_sowing_graph_draws_every_edge_and_label(tmp_path: Path) -> None:
    graph = parse_graph("star:3x2")
    root = parse(save(sowing_graph_figure(graph, [1, 2, 0, 2, 1, 1]), tmp_path / "star.svg").read_text())
    assert sorted(ids(root, "edge-")) == sorted(f"edge-{a}-{b}" for a, b in graph.edges)
    assert sorted(ids(root, "vertex-")) == [f"vertex-{v}" for v in range(7)]
    labels = {i: texts(by_id(root, i))[0] for i in ids(root, "label-")}
    assert labels["label-0"] == "R0"
    assert [labels[f"label-{v}"] for v in graph.bins] == ["1:1", "2:2", "3:0", "4:2", "5:1", "6:1"]
    cycle = parse(save(sowing_graph_figure(parse_graph("1>0,2>1,3>2,0>3")), tmp_path / "c.svg").read_text())
    assert sorted(ids(cycle, "edge-")) == ["edge-0-3", "edge-1-0", "edge-2-1", "edge-3-2"]


@pytest.mark.parametrize("call, message", [
    (lambda: thermograph_figure("{1|"), "expected"),
    (lambda: octal_figure("0.8", 10), "not an octal digit"),
    (lambda: tree_figure("sowing", "312", 99), "depth 99"),
    (lambda: tree_figure("sowing", "1^10", 6, max_nodes=50), "more than 50 nodes"),
    (lambda: parse_graph("1-0"), "bad item '1-0'"),
])
def test_bad_input_is_a_value_error_quoting_it(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        call()  # type: ignore[operator]


def test_save_refuses_other_formats(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"must end in \.svg or \.png"):
        save(thermograph_figure("1"), tmp_path / "x.pdf")


@pytest.mark.parametrize("width", [6.0, 3.0])
def test_a_long_forms_title_is_broken_into_lines_within_the_figure(width: float) -> None:
    import warnings

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    from ruma.engine.cgt.notation import format_game
    from ruma.engine.evaluator import evaluate
    from ruma.plot.thermograph import TITLE_LINES

    game = evaluate("sowing", "3001011202").value  # 201 characters of Unicode notation
    form = format_game(game, "unicode")
    for figure, text in ((thermograph_figure(game, width=width), f"thermograph of {form}"),
                         (thermograph_figure("{2||1|0}", width=width), "thermograph of {2||1|0}")):
        canvas = FigureCanvasAgg(figure)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # (DejaVu Sans has no glyph for tiny: a box)
            canvas.draw()
        title, = [t for t in figure.findobj(Text) if t.get_gid() == "title"]
        box = title.get_window_extent(canvas.get_renderer())
        assert 0 <= box.x0 and box.x1 <= figure.bbox.width and box.y1 <= figure.bbox.height, (box, figure.bbox)
        lines = title.get_text().split("\n")
        assert 1 <= len(lines) <= TITLE_LINES
        shown = "".join(lines).removesuffix(" …").replace(" ", "")
        assert text.replace(" ", "").startswith(shown)  # broken between pieces (and cut short), never changed
        if len(text) < 40:
            assert lines == [text]
        else:  # 215 characters: more than three lines of 6 inches, cut short
            assert len(lines) == TITLE_LINES and lines[-1].endswith(" …")
