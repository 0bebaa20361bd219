"""``ruma p-positions`` and ``ruma nim-values``: impartial rulesets by exhaustive search.

    ruma p-positions chocolate2 2,1,2,1,2,1
    ruma p-positions coinstrip2 15:1,2,3 --json
    ruma nim-values grundy 7 "5 9" 1000

``p-positions`` values every position reachable from START (each by the mex of its options) and
lists those of value 0, in the ruleset's notation; coin strips are listed by their coins'
squares, as in Miyadera et al.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ruma.client.cli.errors import Exit, UsageError, report
from ruma.client.cli.options import add_format_option, add_limit_options, positive, read_positions
from ruma.client.cli.output import Column, Output
from ruma.engine.errors import LimitExceededError, RumaInputError
from ruma.engine.rulesets import Ruleset, State, get_ruleset

DEFAULT_LIMIT = 2_000_000


def reachable_nim_values(rules: Ruleset, start: State, limit: int = DEFAULT_LIMIT) -> dict[State, int]:
    """The nim value of every position reachable from ``start`` (``start`` included)."""
    if not rules.impartial:
        raise RumaInputError(f"{rules.name} is not impartial: P-positions need nim values")
    values: dict[State, int] = {}
    children: dict[State, list[State]] = {}
    stack = [start]
    while stack:
        state = stack[-1]
        if state in values:
            stack.pop()
            continue
        options = children.get(state)
        if options is None:
            options = list(rules.options(state))
            children[state] = options
            if len(children) > limit:
                raise LimitExceededError(f"more than {limit} positions reachable from {rules.format(start)!r}")
            missing = [o for o in options if o not in values]
            for option in missing:
                if option in children and option not in values:
                    raise RumaInputError(f"position {rules.format(option)!r} of {rules.name} repeats: loopy")
            if missing:
                stack.extend(missing)
                continue
        seen = {values[o] for o in options}
        value = 0
        while value in seen:
            value += 1
        values[state] = value
        del children[state]
        stack.pop()
    return values


def p_positions(rules: Ruleset, start: State, limit: int = DEFAULT_LIMIT) -> tuple[list[State], int]:
    """The P-positions reachable from ``start`` (sorted for listing) and the number reachable."""
    values = reachable_nim_values(rules, start, limit)
    zeros = [s for s, v in values.items() if v == 0]
    return sorted(zeros, key=rules.listing_key), len(values)


def run_p_positions(args: argparse.Namespace) -> int:
    """List the P-positions reachable from a start position (the count on stderr)."""
    rules = get_ruleset(args.ruleset)
    start = rules.parse(args.start)
    try:
        found, total = p_positions(rules, start, args.max_positions)
    except LimitExceededError as error:
        raise UsageError(str(error), "raise it with --max-positions") from None
    with Output(args.format, [Column("position")]) as out:
        for state in found:
            out.emit({"ruleset": rules.name, "position": rules.format(state), "nim_value": 0})
    print(f"{args.command_prog}: {len(found)} P-positions among {total} positions reachable from "
          f"{rules.format(start)}", file=sys.stderr)
    return 0


def run_nim_values(args: argparse.Namespace) -> int:
    """Print the nim value of each position (with the server's limits)."""
    from ruma.client.cli.local_eval import LocalEvaluator, LocalLimits
    from ruma.engine.memo import InMemoryMemo

    rules = get_ruleset(args.ruleset)
    if not rules.impartial:
        raise UsageError(f"{rules.name} is not impartial", f"use ruma eval {rules.name} ...")
    evaluator = LocalEvaluator(rules, InMemoryMemo(), LocalLimits.from_args(args))
    status = Exit.OK
    with Output(args.format, [Column("position"), Column("nim_value", "nim value", "right")]) as out:
        for text in read_positions(args.positions):
            try:
                result = evaluator.evaluate(text)
            except Exception as error:  # noqa: BLE001 - one line per failed position; bugs propagate
                status = max(status, report(args.command_prog, error))
                continue
            out.emit({"ruleset": rules.name, "position": str(result.position), "nim_value": result.value})
    return status


def register(subparsers: Any) -> None:
    """Register ``p-positions`` and ``nim-values``."""
    listing = subparsers.add_parser(
        "p-positions",
        help="the P-positions reachable from a start position of an impartial ruleset",
        description="Value every position reachable from START and list those of nim value 0.",
    )
    listing.add_argument("ruleset", metavar="RULESET")
    listing.add_argument("start", metavar="START")
    listing.add_argument("--max-positions", type=positive, default=DEFAULT_LIMIT, metavar="N",
                         help=f"give up beyond N reachable positions (default {DEFAULT_LIMIT:_})")
    add_format_option(listing)
    listing.set_defaults(handler=run_p_positions)

    values = subparsers.add_parser("nim-values", help="nim values of positions of an impartial ruleset")
    values.add_argument("ruleset", metavar="RULESET")
    values.add_argument("positions", nargs="+", metavar="POSITION", help="a position, or - to read one per line")
    add_limit_options(values)
    add_format_option(values)
    values.set_defaults(handler=run_nim_values)
