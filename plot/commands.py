"""``ruma plot``: pictures as SVG or PNG files (the ``ruma[plot]`` extra, matplotlib).

    ruma plot thermograph '{2||1|0}' -o thermograph.svg
    ruma plot thermograph --ruleset sowing '11(01)^2' -o th.png
    ruma plot octal 0.137 --count 400 -o dawson.svg
    ruma plot tree sowing 2212 --depth 2 -o tree.svg
    ruma plot sowing-graph star:3x2 --board 1,2,0,2,1,1 -o star.svg
    ruma plot sowing-graph '1>0,2>1,3>2,0>3' -o cycle.png
    ruma plot tchoukaillon 15 -o b15.svg          # --table: b(1) .. b(N) as a grid

The file type comes from the name of ``-o`` (``.svg`` or ``.png``); the command prints where it
wrote the picture (``--format json``: ``{"kind", "path", "format", "bytes"}``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Callable

from ruma.client.cli.errors import UsageError
from ruma.client.cli.options import add_format_option, add_limit_options, count, limits, positive
from ruma.client.cli.output import Output

FORMATS = (".svg", ".png")


def _output_path(text: str) -> Path:
    path = Path(text)
    if path.suffix.lower() not in FORMATS:
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: the file name must end in .svg or .png")
    return path


def _draw(args: argparse.Namespace, kind: str, make: Callable[[], Any]) -> int:
    from ruma.plot._mpl import PlotError, save

    try:
        figure = make()
        path = save(figure, args.output, dpi=args.dpi)
    except PlotError as error:
        if "matplotlib" in str(error):
            raise UsageError("pictures need matplotlib", "pip install 'ruma[plot]'") from None
        raise
    record = {"kind": kind, "path": str(path), "format": path.suffix.lower().lstrip("."), "bytes": path.stat().st_size}
    with Output(args.format, []) as out:
        out.emit(record, f"wrote {kind} to {path} ({record['bytes']} bytes)")
    return 0


def run_thermograph(args: argparse.Namespace) -> int:
    """The thermograph of a value expression, or of a position of ``--ruleset`` (valued locally)."""
    from ruma.plot import thermograph_figure

    def make() -> Any:
        if args.ruleset is None:
            return thermograph_figure(args.expression)
        from ruma.engine.errors import CancelledError
        from ruma.engine.evaluator import evaluate

        bounds = limits(args)
        deadline = None if bounds.max_seconds is None else time.monotonic() + bounds.max_seconds
        try:
            e = evaluate(args.ruleset, args.expression, max_positions=bounds.max_positions,
                         should_cancel=None if deadline is None else (lambda: time.monotonic() > deadline))
        except CancelledError:
            raise UsageError(f"gave up valuing {args.expression!r} after {bounds.max_seconds:g} s",
                             "raise --max-seconds or pass --no-limit") from None
        return thermograph_figure(e.game, title=f"thermograph of {args.ruleset} {e.position} = {format(e.game, 'unicode')}")

    return _draw(args, "thermograph", make)


def run_octal(args: argparse.Namespace) -> int:
    """The nim sequence of an octal game (or Grundy's game), period and preperiod marked."""
    from ruma.plot import octal_figure

    return _draw(args, "octal", lambda: octal_figure(args.code, args.count))


def run_tree(args: argparse.Namespace) -> int:
    """The game tree of a position to ``--depth``."""
    from ruma.plot import tree_figure

    return _draw(args, "tree", lambda: tree_figure(args.ruleset, args.position, args.depth, max_nodes=args.max_nodes))


def run_sowing_graph(args: argparse.Namespace) -> int:
    """A sowing graph (Jones–Taalman–Tongen, Section 5), with a board's stones when given."""
    from ruma.engine.tchoukaillon.graphs import parse_sowing_graph as parse_graph
    from ruma.plot import sowing_graph_figure

    def make() -> Any:
        graph = parse_graph(args.graph, args.rumas)
        board = None
        if args.board is not None:
            try:
                board = [int(x) for x in args.board.replace(" ", "").split(",") if x != ""]
            except ValueError:
                raise UsageError(f"cannot read --board {args.board!r}", "stones per bin, e.g. 1,2,0") from None
        return sowing_graph_figure(graph, board)

    return _draw(args, "sowing-graph", make)


def run_tchoukaillon(args: argparse.Namespace) -> int:
    """The winning Tchoukaillon board b(N), or with ``--table`` the boards b(1) .. b(N)."""
    from ruma.plot import tchoukaillon_figure
    from ruma.plot.sowing import tchoukaillon_table_figure

    return _draw(args, "tchoukaillon", lambda: (tchoukaillon_table_figure if args.table else tchoukaillon_figure)(args.n))


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True, type=_output_path, metavar="FILE",
                        help="where to write the picture: a .svg or .png file")
    parser.add_argument("--dpi", type=positive, default=150, help="resolution of PNG files (default 150)")
    add_format_option(parser, lists=False)


def register(subparsers: Any) -> None:
    """Register ``ruma plot`` and its pictures."""
    top = subparsers.add_parser("plot", help="pictures: thermographs, nim sequences, game trees, sowing graphs",
                                description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="plot_command", metavar="PICTURE")
    top.set_defaults(handler=lambda args: (top.print_help(), 2)[1])

    p = sub.add_parser("thermograph", help="walls, mast, mean and temperature, exact breakpoints labelled")
    p.add_argument("expression", metavar="EXPR", help="a value ({2||1|0}, +-1, ^*) or, with --ruleset, a position")
    p.add_argument("--ruleset", help="read EXPR as a position of this ruleset and value it locally")
    add_limit_options(p)
    _common(p)
    p.set_defaults(handler=run_thermograph)

    p = sub.add_parser("octal", help="the nim sequence of an octal game, period and preperiod marked")
    p.add_argument("code", metavar="CODE", help="an octal code (0.137, .07, 4.07) or 'grundy'")
    p.add_argument("--count", "-n", type=count, default=200, help="how many values (default 200)")
    _common(p)
    p.set_defaults(handler=run_octal)

    p = sub.add_parser("tree", help="the game tree of a small position to a depth, with exact values")
    p.add_argument("ruleset")
    p.add_argument("position")
    p.add_argument("--depth", type=count, default=2, help="moves deep (default 2, at most 8)")
    p.add_argument("--max-nodes", type=positive, default=400, help="refuse larger trees (default 400)")
    _common(p)
    p.set_defaults(handler=run_tree)

    p = sub.add_parser("sowing-graph", help="a sowing graph of Tchoukaillon, with a board's stones")
    p.add_argument("graph", metavar="GRAPH", help="path:L, cycle:N, star:SxL, or directed edges 'u>v,...'")
    p.add_argument("--rumas", default="0", help="Ruma vertices of an edge list, 'r,...' (default 0)")
    p.add_argument("--board", help="stones per bin (non-Ruma vertices in increasing order), e.g. 1,2,0")
    _common(p)
    p.set_defaults(handler=run_sowing_graph)

    p = sub.add_parser("tchoukaillon", help="the winning Tchoukaillon board b(N) as pits")
    p.add_argument("n", metavar="N", type=count, help="number of stones")
    p.add_argument("--table", action="store_true", help="draw b(1) .. b(N) as a grid instead (N <= 400)")
    _common(p)
    p.set_defaults(handler=run_tchoukaillon)
