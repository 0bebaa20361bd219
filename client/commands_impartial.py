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
import json
from typing import Any, Callable

from ruma.client.cli import add_json_flag
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


def _listing_key(rules: Ruleset) -> Callable[[State], Any]:
    if rules.name.startswith("coinstrip"):
        return lambda s: tuple(i for i, c in enumerate(s) if c)
    return lambda s: s


def p_positions(rules: Ruleset, start: State, limit: int = DEFAULT_LIMIT) -> tuple[list[State], int]:
    """The P-positions reachable from ``start`` (sorted for listing) and the number reachable."""
    values = reachable_nim_values(rules, start, limit)
    zeros = [s for s, v in values.items() if v == 0]
    return sorted(zeros, key=_listing_key(rules)), len(values)


def run_p_positions(args: argparse.Namespace) -> int:
    """List the P-positions reachable from a start position."""
    rules = get_ruleset(args.ruleset)
    start = rules.parse(args.start)
    found, total = p_positions(rules, start, args.max_positions)
    for state in found:
        if args.json:
            print(json.dumps({"ruleset": rules.name, "position": rules.format(state), "nim_value": 0}))
        else:
            print(rules.format(state))
    if not args.json:
        print(f"# {len(found)} P-positions among {total} positions reachable from {rules.format(start)}")
    return 0


def run_nim_values(args: argparse.Namespace) -> int:
    """Print the nim value of each position."""
    from ruma.engine.evaluator import evaluate

    rules = get_ruleset(args.ruleset)
    if not rules.impartial:
        raise RumaInputError(f"{rules.name} is not impartial: use 'ruma eval'")
    for text in args.positions:
        result = evaluate(rules, text, max_positions=args.max_positions)
        value = result.value
        if args.json:
            print(json.dumps({"ruleset": rules.name, "position": str(result.position), "nim_value": value}))
        else:
            print(f"{result.position}: {value}")
    return 0


def register(subparsers: Any) -> None:
    """Register ``p-positions`` and ``nim-values``."""
    listing = subparsers.add_parser(
        "p-positions",
        help="the P-positions reachable from a start position of an impartial ruleset",
        description="Value every position reachable from START and list those of nim value 0.",
    )
    listing.add_argument("ruleset", metavar="RULESET")
    listing.add_argument("start", metavar="START")
    listing.add_argument("--max-positions", type=int, default=DEFAULT_LIMIT, help="give up beyond this many")
    add_json_flag(listing)
    listing.set_defaults(handler=run_p_positions)

    values = subparsers.add_parser("nim-values", help="nim values of positions of an impartial ruleset")
    values.add_argument("ruleset", metavar="RULESET")
    values.add_argument("positions", nargs="+", metavar="POSITION")
    values.add_argument("--max-positions", type=int, default=None, help="give up beyond this many")
    add_json_flag(values)
    values.set_defaults(handler=run_nim_values)
