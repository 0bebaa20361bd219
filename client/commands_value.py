"""``ruma value EXPR``: the canonical form of a game expression and its analyses.

``EXPR`` is CGSuite plain text, Unicode or cgt-py braces, with ``+``, ``-`` and parentheses
(``ruma value '{2||1|0} + ^*'``). Without ``--json`` one line per expression: its canonical form.
With ``--json`` one object per expression: the canonical form in the chosen format and in all
three, outcome, stops, mean, temperature, thermograph, atomic weight, birthday and predicates.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ruma.client.cli import add_json_flag
from ruma.engine.cgt import Game
from ruma.engine.cgt.analysis import atomicity
from ruma.engine.cgt.notation import STYLES, format_game, parse_game
from ruma.engine.errors import RumaError


def describe(expression: str, style: str = "ascii") -> dict[str, Any]:
    """The JSON-able description of ``expression``'s value (raises ``NotationError`` if malformed)."""
    g: Game = parse_game(expression)
    weight, reason = atomicity(g)
    return {
        "expression": expression,
        "format": style,
        "canonical": format_game(g, style),
        "value": {s: format_game(g, s) for s in STYLES},
        "outcome": str(g.outcome),
        "left_stop": str(g.left_stop),
        "right_stop": str(g.right_stop),
        "mean": str(g.mean),
        "temperature": str(g.temperature),
        "thermograph": repr(g.thermograph),
        "atomic_weight": None if weight is None else format_game(weight, style),
        "atomic_weight_reason": reason or None,
        "birthday": g.birthday,
        "is_number": g.is_number,
        "is_nimber": g.is_nimber,
        "is_infinitesimal": g.is_infinitesimal,
        "is_all_small": g.is_all_small,
    }


def run_value(args: argparse.Namespace) -> int:
    """Print each expression's canonical form (or its JSON description); 2 on a malformed one."""
    status = 0
    for expression in args.expressions:
        try:
            if args.json:
                print(json.dumps(describe(expression, args.format), ensure_ascii=False))
            else:
                print(format_game(parse_game(expression), args.format))
        except RumaError as error:
            status = 2
            message = str(error).splitlines()[0]
            if args.json:
                print(json.dumps({"expression": expression, "error": message}, ensure_ascii=False))
            print(f"ruma value: error: {message}", file=sys.stderr)
    return status


def register(subparsers: Any) -> None:
    """Register ``ruma value``."""
    parser = subparsers.add_parser(
        "value",
        help="canonical form and analyses of a game expression",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("expressions", nargs="+", metavar="EXPR", help="a game, e.g. '{2||1|0} + ^*'")
    parser.add_argument("--format", choices=STYLES, default="ascii", help="notation of the output")
    add_json_flag(parser)
    parser.set_defaults(handler=run_value)
