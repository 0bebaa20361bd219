"""``ruma tchoukaillon``: the solitaire sowing game of Jones, Taalman and Tongen.

Sub-subcommands: ``board N``, ``min-stones L``, ``boards-of-length L``, ``complete "3=1,7=2"``,
``check BOARD`` and ``graph EDGES`` (sowing graphs, Section 5). Boards are printed bin 1 (next to the
Ruma) first; ``complete`` takes the paper's Section 4 beta-indexing (``beta_i = b_{i-1}``, so
``beta_2`` is the bin next to the Ruma).
"""

from __future__ import annotations

import argparse
from typing import Any

from ruma.client.cli.options import add_format_option, positive
from ruma.client.cli.output import Output
from ruma.engine.errors import LimitExceededError
from ruma.engine.tchoukaillon.board import (
    TchoukaillonInputError,
    board,
    board_prefix,
    boards_of_length,
    clearing_moves,
    estimated_length,
    min_stones,
    min_stones_by_sieve,
    min_stones_by_unplay,
    parse_board,
    theorem_3_2_failure,
)
from ruma.engine.tchoukaillon.crt import (
    LENGTH_READINGS,
    complete,
    paper_reconstruction,
    parse_constraints,
)
from ruma.engine.tchoukaillon.graphs import (
    game_graph_finite,
    parse_sowing_graph,
    theorem_5_2_finite,
    winning_boards,
)


def _count(text: str, what: str) -> int:
    try:
        value = int(text.strip().replace("_", ""))
    except ValueError:
        value = -1
    if value < 0:
        raise TchoukaillonInputError(f"{what} must be a non-negative integer, got {text!r}")
    return value


def _emit(args: argparse.Namespace, obj: dict[str, Any], text: str) -> None:
    Output(args.format).emit(obj, text)


def _fmt(bins: tuple[int, ...] | list[int]) -> str:
    return "(" + ", ".join(map(str, bins)) + ")"


def run_board(args: argparse.Namespace) -> int:
    """``b(N)`` (Theorem 2.1), whole or its first ``--bins`` bins."""
    bins = None if args.bins is None else _count(args.bins, "--bins")
    for text in args.n:
        n = _count(text, "N")
        if bins is not None:
            prefix = board_prefix(n, bins)
            about = estimated_length(n)
            _emit(args, {"n": n, "bins": bins, "prefix": list(prefix.bins),
                         "in_hand": prefix.in_hand, "estimated_length": about},
                  f"b({n})[1..{bins}] = {_fmt(prefix.bins)}  [{prefix.in_hand} stones still to "
                  f"sow; about {about} bins in all]")
        else:
            b = board(n, max_length=args.max_length)
            _emit(args, {"n": n, "board": list(b), "length": len(b)},
                  f"b({n}) = {_fmt(b)}  [length {len(b)}]")
    return 0


def run_min_stones(args: argparse.Namespace) -> int:
    """``N(L)`` by Theorem 3.5 (``--cross-check``: also by unplaying and by the sieve)."""
    lengths = [_count(text, "L") for text in args.lengths]
    top = max(lengths, default=0)
    others = (min_stones_by_unplay(top), min_stones_by_sieve(top)) if args.cross_check else None
    status = 0
    for length in lengths:
        value = min_stones(length)
        obj: dict[str, Any] = {"length": length, "min_stones": value, "board": list(board(value))}
        text = f"N({length}) = {value}  b({value}) = {_fmt(board(value))}"
        if others is not None and length:
            agree = others[0][length - 1] == value == others[1][length - 1]
            obj.update(unplay=others[0][length - 1], sieve=others[1][length - 1], agree=agree)
            text += "  [unplay and sieve agree]" if agree else "  [METHODS DISAGREE]"
            status |= 0 if agree else 1
        _emit(args, obj, text)
    return status


def run_boards_of_length(args: argparse.Namespace) -> int:
    """Every winning board of length ``L`` (Theorem 3.2)."""
    length = _count(args.length, "L")
    for b in boards_of_length(length):
        _emit(args, {"length": length, "n": sum(b), "board": list(b)}, f"{sum(b)}: {_fmt(b)}")
    return 0


def run_complete(args: argparse.Namespace) -> int:
    """Smallest ``n`` whose board agrees with the given beta-indexed bins (Theorem 4.5)."""
    cons = parse_constraints(args.bins)
    result = complete(cons, length=args.length)
    try:
        paper = paper_reconstruction(cons, max_nodes=50_000) if result.feasible else None
    except LimitExceededError:
        paper = None  # the paper's depth-first fill is exponential at worst (Remark 4.6)
    obj: dict[str, Any] = {
        "bins": {str(i): v for i, v in sorted(cons.items())}, "indexing": "beta",
        "reading": args.length, "feasible": result.feasible, "n": result.n,
        "board": None if result.board is None else list(result.board),
        "paper_algorithm_n": paper, "period": result.modulus}
    given = ", ".join(f"beta_{i}={v}" for i, v in sorted(cons.items()))
    if result.feasible:
        text = (f"{given}: smallest n = {result.n} (reading {args.length!r}), "
                f"beta(n) = {_fmt(result.board or ())}; repeats every {result.modulus}; "
                f"the paper's algorithm gives n = {paper}")
    else:
        text = f"{given}: no winning board agrees (reading {args.length!r})"
    _emit(args, obj, text)
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Whether a board is winning (Theorem 3.2) and the sowings that clear it."""
    for text in args.boards:
        b = parse_board(text)
        failing = theorem_3_2_failure(b)
        moves = clearing_moves(b) if failing is None else None
        obj = {"board": list(b), "stones": sum(b), "winning": failing is None,
               "moves": None if moves is None else list(moves), "failing_bin": failing}
        if failing is None:
            line = (f"{_fmt(b)}: winning, it is b({sum(b)}); sow bins "
                    f"{' '.join(map(str, moves or ()))}")
        else:
            line = f"{_fmt(b)}: not winning (Theorem 3.2 fails at bin {failing})"
        _emit(args, obj, line)
    return 0


def run_graph(args: argparse.Namespace) -> int:
    """Winning boards of a sowing graph by unplaying (Section 5) and its finiteness tests."""
    g = parse_sowing_graph(args.edges, args.rumas)
    limit = _count(args.max_stones, "--max-stones")
    boards = sorted(winning_boards(g, max_stones=limit), key=lambda b: (sum(b), b))
    summary = {"bins": list(g.bins), "rumas": sorted(g.rumas),
               "theorem_5_2_finite": theorem_5_2_finite(g), "finite": game_graph_finite(g),
               "max_stones": limit, "boards": [{"board": list(b), "stones": sum(b)} for b in boards]}
    lines = [f"bins {list(g.bins)}, Rumas {sorted(g.rumas)}: Theorem 5.2 says "
             f"{'finite' if summary['theorem_5_2_finite'] else 'infinite'}, "
             f"walks give {'finite' if summary['finite'] else 'infinite'}"]
    lines += [f"{sum(b)}: {_fmt(b)}" for b in boards]
    _emit(args, summary, "\n".join(lines))
    return 0


def register(subparsers: Any) -> None:
    """Register ``ruma tchoukaillon`` and its sub-subcommands."""
    top = subparsers.add_parser(
        "tchoukaillon", help="Tchoukaillon boards (solitaire sowing; Jones-Taalman-Tongen)",
        description="Tchoukaillon: bins numbered 1, 2, ... from the Ruma (the paper's b-indexing) "
                    "except in 'complete', which uses Section 4's beta-indexing beta_i = b_{i-1}.")
    sub = top.add_subparsers(dest="tchoukaillon_command", metavar="SUBCOMMAND")
    top.set_defaults(handler=lambda args: (top.print_help(), 2)[1])  # no subcommand: usage (exit 2)

    p = sub.add_parser("board", help="the unique winning board b(N) with N stones (Theorem 2.1)")
    p.add_argument("n", nargs="+", metavar="N", help="number of stones (any size with --bins)")
    p.add_argument("--bins", metavar="K", help="only the first K bins (works for huge N; b(N) "
                   "has about sqrt(pi*N) bins) and the stones still to sow")
    p.add_argument("--max-length", type=positive, default=1_000_000, metavar="N",
                   help="refuse whole boards longer than this (default 1000000)")
    add_format_option(p, lists=False)
    p.set_defaults(handler=run_board)

    p = sub.add_parser("min-stones", help="N(L): fewest stones on a winning board of length L")
    p.add_argument("lengths", nargs="+", metavar="L")
    p.add_argument("--cross-check", action="store_true",
                   help="also compute by unplaying and by the sieve of Theorem 3.7")
    add_format_option(p, lists=False)
    p.set_defaults(handler=run_min_stones)

    p = sub.add_parser("boards-of-length", help="all winning boards of length L (Theorem 3.2)")
    p.add_argument("length", metavar="L")
    add_format_option(p, lists=False)
    p.set_defaults(handler=run_boards_of_length)

    p = sub.add_parser(
        "complete", help="smallest board agreeing with some bins (Theorem 4.5)",
        description="BINS is 'INDEX=STONES,...' in the paper's Section 4 beta-indexing: "
                    "beta_i = b_{i-1}, so beta_2 is the bin next to the Ruma and beta_i holds at "
                    "most i-1 stones. Example 4.8: complete '3=1,7=2' gives 34.")
    p.add_argument("bins", metavar="BINS", help="e.g. '3=1,7=2' (beta-index=stones)")
    p.add_argument("--length", choices=LENGTH_READINGS, default="any",
                   help="which boards count: any n (bins past the board hold 0; default), "
                        "boards whose length reaches the last given bin ('reach'), or boards with "
                        "a stone past it ('beyond'); Example 4.4's 18 and 214 need reach/beyond")
    add_format_option(p, lists=False)
    p.set_defaults(handler=run_complete)

    p = sub.add_parser("graph", help="winning boards of a sowing graph (Section 5)",
                       description="Tchoukaillon on a directed graph (Definition 5.1): sowings "
                                   "follow walks of b_v edges ending at a Ruma. Prints both "
                                   "finiteness tests and the winning boards with at most "
                                   "--max-stones stones (labels of the non-Ruma vertices in "
                                   "increasing order). The 4-cycle of Figure 6: '1>0,2>1,3>2,0>3'.")
    p.add_argument("edges", metavar="EDGES", help="directed edges 'u>v,...' (vertices 0, 1, ...)")
    p.add_argument("--rumas", default="0", help="Ruma vertices 'r,...' (default 0)")
    p.add_argument("--max-stones", default="12", help="largest board to list (default 12)")
    add_format_option(p, lists=False)
    p.set_defaults(handler=run_graph)

    p = sub.add_parser("check", help="is BOARD winning (Theorem 3.2), and the sowings that clear it")
    p.add_argument("boards", nargs="+", metavar="BOARD", help="e.g. '1,2,0,2,4,6' (bin 1 first)")
    add_format_option(p, lists=False)
    p.set_defaults(handler=run_check)
