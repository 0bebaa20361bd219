"""``ruma eval`` and ``ruma options``: value positions locally, optionally through a persistent store.

    ruma eval sowing 312 '(10)^3 03 (01)^2'
    ruma eval atomic-wari 312 --data ./ruma-data --json     # through the LMDB store in ./ruma-data
    cat positions.txt | ruma eval impartial-sowing -
    ruma options impartial-sowing 312

Local work has the server's limits (``--max-pots``, ``--max-seeds``, ``--max-positions``,
``--max-seconds``; ``--no-limit`` lifts them). With ``--data DIR`` (or ``$RUMA_DATA``) values are
looked up in and added to the LMDB store in DIR, found through the ``ruma.stores`` entry point, so
the client never imports the server.
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import Any

from ruma.client.cli.errors import Exit, report
from ruma.client.cli.options import (
    LocalLimits,
    add_data_option,
    add_format_option,
    add_limit_options,
    add_notation_option,
    add_progress_option,
    read_positions,
)
from ruma.client.cli.output import Column, Output, throttled
from ruma.client.progress import progress

EVAL_FORMATS = ("table", "text", "json", "csv")
COLUMNS = [Column("position"), Column("value"), Column("outcome"), Column("left_stop", "left stop", "right"),
           Column("right_stop", "right stop", "right"), Column("mean", justify="right"),
           Column("temperature", "temp.", "right"), Column("atomic_weight", "atomic weight"),
           Column("from_store", "stored")]
#: an impartial ruleset's positions: stops, mean, temperature and atomic weight say nothing of a nimber
IMPARTIAL_COLUMNS = [Column("position"), Column("value"), Column("outcome"), Column("nim_value", "nim value", "right"),
                     Column("birthday", "born", "right"), Column("from_store", "stored")]
OPTION_COLUMNS = [Column("player"), Column("option"), Column("value")]


def impartial(ruleset: str) -> bool:
    """Whether this process knows ``ruleset`` as impartial."""
    from ruma.engine.rulesets import get_ruleset

    try:
        return bool(get_ruleset(ruleset).impartial)
    except Exception:  # noqa: BLE001 - a ruleset only the server knows is shown in full
        return False


def columns(ruleset: str) -> list[Column]:
    """The table columns of evaluations of ``ruleset``."""
    return IMPARTIAL_COLUMNS if impartial(ruleset) else COLUMNS


def shown(record: dict[str, Any], text: str, fmt: str) -> dict[str, Any]:
    """``record`` with the position as typed (``input``), and for people the position as typed
    followed by how it is printed, when the two differ (``(10)^3 03 (01)^2 → 101010030101``)."""
    typed = text.strip()
    if typed == record["position"]:
        return record
    record["input"] = typed
    if fmt == "json":
        return record
    return {**record, "position": f"{typed} → {record['position']}"}


def _evaluator(args: argparse.Namespace, stack: ExitStack, report_progress: Any = None) -> Any:
    from ruma.client.cli.local_eval import LocalEvaluator, LocalLimits, store_memo
    from ruma.engine.memo import new_memo
    from ruma.engine.rulesets import get_ruleset

    rules = get_ruleset(args.ruleset)  # an unknown ruleset fails before any position is read
    closers: list[Any] = []
    memo = store_memo(args, closers) or new_memo()  # the compiled engine's compact memo when active
    for close in closers:
        stack.callback(close)
    return LocalEvaluator(rules, memo, LocalLimits.from_args(args), report_progress)


def _text(record: dict[str, Any]) -> str:
    from ruma.client.cli.value import analysis_lines

    parts = " + ".join(c["position"] for c in record["components"])
    split = f"  [{parts}]" if len(record["components"]) > 1 else ""
    return "\n".join([f"{record['position']} = {record['value']}{split}",
                      *analysis_lines(record, impartial=impartial(record["ruleset"]))])


def run_eval(args: argparse.Namespace) -> int:
    """Value each position and print one record per position; per-position errors are one line
    each on stderr (exit 2 for bad input or a limit, 1 when a position could not be valued)."""
    from ruma.client.records import evaluation_record

    status = Exit.OK
    with ExitStack() as stack:
        most = LocalLimits.from_args(args).max_positions  # (the bar of a position runs to the limit)
        bar = stack.enter_context(progress("valuing", total=most, enabled=args.progress, unit="positions"))
        evaluator = _evaluator(args, stack, throttled(bar.update))
        out = stack.enter_context(Output(args.format, columns(args.ruleset)))
        for text in read_positions(args.positions):
            bar.describe(f"valuing {text}" if most is None else f"valuing {text}: positions of the limit")
            bar.update(0)
            try:
                record = shown(evaluation_record(evaluator.evaluate(text), args.notation, evaluator.stored), text,
                               args.format)
            except Exception as error:  # noqa: BLE001 - one line per failed position; bugs propagate
                status = max(status, report(args.command_prog, error))
                continue
            out.emit(record, _text(record))
    return status


def run_options(args: argparse.Namespace) -> int:
    """List each player's options of a position with their values."""
    from ruma.client.records import formatted

    with ExitStack() as stack:
        evaluator = _evaluator(args, stack)
        rules = evaluator.rules
        state = rules.parse(args.position)
        evaluator.check_size(args.position, state)
        sides = [("any", rules.options(state))] if rules.impartial else [
            ("left", rules.left_options(state)), ("right", rules.right_options(state))]
        with Output(args.format, OPTION_COLUMNS) as out:
            for player, options in sides:
                for option in options:
                    text = rules.format(option)
                    value = formatted(evaluator.evaluate(text).value, args.notation)
                    out.emit({"ruleset": rules.name, "position": rules.format(state), "player": player,
                              "option": text, "notation": args.notation, "value": value})
    return Exit.OK


def register(subparsers: Any) -> None:
    """Register ``eval`` and ``options``."""
    from ruma.engine.rulesets import ruleset_names

    names = ", ".join(ruleset_names())
    evaluation = subparsers.add_parser(
        "eval", help="value positions of a ruleset locally",
        description=__doc__ + f"\nRulesets: {names} (ruma rulesets describes them).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    evaluation.add_argument("ruleset", metavar="RULESET")
    evaluation.add_argument("positions", nargs="+", metavar="POSITION", help="a position, or - to read one per line")
    _common(evaluation, EVAL_FORMATS)
    add_progress_option(evaluation)
    evaluation.set_defaults(handler=run_eval)

    options = subparsers.add_parser("options", help="each player's options with their values",
                                    description="Each player's options of POSITION with their values (computed locally).")
    options.add_argument("ruleset", metavar="RULESET")
    options.add_argument("position", metavar="POSITION")
    _common(options, None)
    options.set_defaults(handler=run_options)


def _common(parser: argparse.ArgumentParser, formats: tuple[str, ...] | None) -> None:
    add_data_option(parser, optional=True)
    parser.add_argument("--store", dest="data", metavar="DIR", help=argparse.SUPPRESS)  # before --data existed
    add_notation_option(parser)
    add_format_option(parser, formats=formats)
    add_limit_options(parser)
