"""``ruma eval`` and ``ruma options``: value positions locally, optionally through a persistent store.

The store is found through the ``ruma.stores`` entry point (``--store DIR`` opens the LMDB store),
so the client never imports the server.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from importlib.metadata import entry_points
from typing import Any, Iterator

from ruma.client.cli import add_json_flag
from ruma.engine.errors import RumaError, RumaInputError
from ruma.engine.evaluator import evaluate, format_value, option_values
from ruma.engine.memo import Memo
from ruma.engine.native import new_memo
from ruma.engine.rulesets import get_ruleset, ruleset_names

STYLES = ("ascii", "unicode", "braces")


def open_store(directory: str) -> Any:
    """Open the persistent store in ``directory`` through the ``ruma.stores`` entry point."""
    for entry in entry_points(group="ruma.stores"):
        if entry.name == "lmdb":
            return entry.load()(directory)
    raise RumaInputError(f"no store backend installed to open {directory!r}")


def _positions(args: argparse.Namespace) -> Iterator[str]:
    for text in args.positions:
        if text == "-":
            for line in sys.stdin:
                if line.strip() and not line.lstrip().startswith("#"):
                    yield line.strip()
        else:
            yield text


def _memo(stack: ExitStack, args: argparse.Namespace) -> Memo:
    if args.store:
        store = open_store(args.store)
        stack.callback(store.close)
        return store  # type: ignore[no-any-return]
    return new_memo()  # the compiled engine's compact memo when it is active


def run_eval(args: argparse.Namespace) -> int:
    """Value each position and print one line (or one JSON object) per position."""
    rules = get_ruleset(args.ruleset)
    failures = 0
    with ExitStack() as stack:
        memo = _memo(stack, args)
        for text in _positions(args):
            try:
                result = evaluate(rules, text, memo, max_positions=args.max_positions)
            except RumaError as error:
                failures += 1
                if args.json:
                    print(json.dumps({"ruleset": rules.name, "position": text, "error": str(error)}))
                else:
                    print(f"{text}: error: {error}", file=sys.stderr)
                continue
            if args.json:
                print(json.dumps(result.to_dict(args.format), ensure_ascii=False))
            else:
                parts = " + ".join(str(c.position) for c in result.components)
                split = f"  [{parts}]" if len(result.components) > 1 else ""
                print(f"{result.position} = {format_value(result.value, args.format)}{split}")
    return 1 if failures else 0


def run_options(args: argparse.Namespace) -> int:
    """List each player's options of a position with their values."""
    rules = get_ruleset(args.ruleset)
    with ExitStack() as stack:
        memo = _memo(stack, args)
        lefts, rights = option_values(rules, args.position, memo)
    sides = [("any", lefts)] if rules.impartial else [("left", lefts), ("right", rights)]
    for player, options in sides:
        for position, value in options:
            text = format_value(value, args.format)
            if args.json:
                print(json.dumps({"player": player, "option": str(position), "value": text}, ensure_ascii=False))
            else:
                print(f"{player:5} {position} = {text}")
    return 0


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=STYLES, default="ascii", help="notation of values (default ascii)")
    parser.add_argument("--store", metavar="DIR", help="look up and store values in the LMDB store in DIR")
    add_json_flag(parser)


def register(subparsers: Any) -> None:
    """Register ``eval`` and ``options``."""
    names = ", ".join(ruleset_names())
    evaluation = subparsers.add_parser(
        "eval",
        help="value positions of a ruleset",
        description=f"Value positions exactly. Rulesets: {names}.",
    )
    evaluation.add_argument("ruleset")
    evaluation.add_argument("positions", nargs="+", metavar="POSITION", help="a position, or - to read one per line")
    evaluation.add_argument("--max-positions", type=int, default=None, help="give up beyond this many positions")
    _common(evaluation)
    evaluation.set_defaults(handler=run_eval)

    options = subparsers.add_parser("options", help="each player's options with their values")
    options.add_argument("ruleset")
    options.add_argument("position")
    _common(options)
    options.set_defaults(handler=run_options)
