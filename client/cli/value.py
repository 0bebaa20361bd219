"""``ruma value EXPR...``: the canonical form of a game expression and its analyses.

``EXPR`` is CGSuite plain text, Unicode or cgt-py braces, with ``+``, ``-`` and parentheses
(``ruma value '{2||1|0} + ^*'``, ``ruma value -1/2``; ``-`` reads expressions from stdin, one a
line). Each expression is shown as ``EXPR = VALUE`` followed by its outcome, stops, mean,
temperature, atomic weight and birthday; ``--format table|csv`` gives one row per expression and
``--json`` the ``value`` record (with the thermograph and the value in all three notations).
"""

from __future__ import annotations

import argparse
from typing import Any, Mapping

from ruma.client.cli.errors import Exit, report
from ruma.client.cli.options import ANALYSIS_FORMATS, add_format_option, add_notation_option, read_positions
from ruma.client.cli.output import Column, Output

OUTCOMES = {"L": "Left wins", "R": "Right wins", "N": "the first player wins", "P": "the second player wins"}
COLUMNS = [Column("expression"), Column("value"), Column("outcome"), Column("left_stop", "left stop", "right"),
           Column("right_stop", "right stop", "right"), Column("mean", justify="right"),
           Column("temperature", "temp.", "right"), Column("atomic_weight", "atomic weight"),
           Column("birthday", "born", "right")]


def analysis_lines(record: Mapping[str, Any], *, indent: str = "  ", impartial: bool = False) -> list[str]:
    """The labelled lines of an analysis (a ``value`` or ``evaluation`` record) for people;
    ``impartial``: a position of an impartial ruleset, whose stops, mean, temperature and atomic
    weight say nothing (its nim value says all), so they are left out."""
    lines = [f"outcome        {record['outcome']} ({OUTCOMES.get(record['outcome'] or '', 'unknown')})"]
    if record.get("nim_value") is not None:
        lines.append(f"nim value      {record['nim_value']}")
    if impartial:
        if record.get("birthday") is not None:
            lines.append(f"birthday       {record['birthday']}")
        return [indent + line for line in lines]
    if record.get("left_stop") is not None:
        lines.append(f"stops          {record['left_stop']} (left), {record['right_stop']} (right)")
        lines.append(f"mean           {record['mean']}")
        lines.append(f"temperature    {record['temperature']}")
    weight = record.get("atomic_weight")
    reason = record.get("atomic_weight_reason")
    if weight is not None or (reason and record.get("is_infinitesimal")):
        lines.append(f"atomic weight  {weight if weight is not None else 'none: ' + str(reason)}")
    if record.get("birthday") is not None:
        lines.append(f"birthday       {record['birthday']}")
    return [indent + line for line in lines]


def run_value(args: argparse.Namespace) -> int:
    """Print each expression's value and analyses; 2 when one is malformed (the others are shown)."""
    from ruma.client.records import value_record

    status = Exit.OK
    with Output(args.format, COLUMNS) as out:
        for expression in read_positions(args.expressions):
            try:
                record = value_record(expression, args.notation)
            except Exception as error:  # noqa: BLE001 - one line for a malformed expression; bugs propagate
                status = max(status, report(args.command_prog, error))
                continue
            head = record["value"] if expression.strip() == record["value"] else f"{expression} = {record['value']}"
            out.emit(record, "\n".join([head, *analysis_lines(record)]))
    return status


def register(subparsers: Any) -> None:
    """Register ``ruma value``."""
    parser = subparsers.add_parser(
        "value",
        help="canonical form and analyses of a game expression",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("expressions", nargs="+", metavar="EXPR", help="a game, e.g. '{2||1|0} + ^*'; - reads stdin")
    add_notation_option(parser)
    add_format_option(parser, formats=ANALYSIS_FORMATS)
    parser.set_defaults(handler=run_value)
