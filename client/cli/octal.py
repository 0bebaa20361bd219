"""``ruma octal CODE``: nim sequences of octal games (and of Grundy's game).

    ruma octal 0.37 --count 200000 --p-positions
    ruma octal .07 --count 400 --period --json
    ruma octal grundy --count 18

Without ``--p-positions``/``--period`` the values ``G(0) .. G(N-1)`` are printed (ten per line,
each line prefixed by its first heap size); with them, only the asked-for sections.
"""

from __future__ import annotations

import argparse
from typing import Any

from ruma.client.cli.errors import UsageError
from ruma.client.cli.options import add_format_option, add_progress_option, count
from ruma.client.cli.output import Output
from ruma.client.progress import progress
from ruma.engine.octal import GrundyGame, HeapGame, OctalGame

MAX_COUNT = 20_000_000


def _game(code: str) -> HeapGame:
    if code.strip().lower() == "grundy":
        return GrundyGame()
    return OctalGame(code)


def run_octal(args: argparse.Namespace) -> int:
    """Print the values, P-positions and/or period of an octal game."""
    if args.count > MAX_COUNT:
        raise UsageError(f"--count {args.count}: at most {MAX_COUNT:_} values", "ask for fewer")
    game = _game(args.code)
    if args.period and not isinstance(game, OctalGame):
        raise UsageError("the Guy–Smith test applies to octal games, not to Grundy's game", "drop --period")
    with progress(f"values of {game.name}", total=args.count, enabled=args.progress) as bar:
        if bar.active:  # in steps, to show them (the game caches and extends its values; ~1.5x slower)
            step = max(args.count // 20, 10_000)
            for done in range(step, args.count, step):
                game.values(done)
                bar.update(done)
        values = game.values(args.count)
    show_values = not (args.p_positions or args.period)
    result: dict[str, Any] = {"code": game.name, "count": args.count}
    if show_values:
        result["values"] = values
    if args.p_positions:
        result["p_positions"] = [i for i, v in enumerate(values) if v == 0]
    if args.period:
        assert isinstance(game, OctalGame)
        found = game.period(args.count)
        result["period"] = None if found is None else {"preperiod": found[0], "period": found[1]}
    lines = [f"# {game.name}: first {args.count} values"]
    if show_values:
        for start in range(0, len(values), 10):
            lines.append(f"{start:>8}: " + " ".join(str(v) for v in values[start : start + 10]))
    if args.p_positions:
        p = result["p_positions"]
        lines.append(f"P-positions ({len(p)}): " + " ".join(map(str, p)))
    if args.period:
        found = result["period"]
        if found is None:
            lines.append(f"period: none proved by the Guy–Smith test within {args.count} values")
        else:
            lines.append(f"period: {found['period']} from heap {found['preperiod']} (Guy–Smith test)")
    with Output(args.format) as out:
        out.emit(result, "\n".join(lines))
    return 0


def register(subparsers: Any) -> None:
    """Register ``octal``."""
    parser = subparsers.add_parser(
        "octal",
        help="nim sequence of an octal game (0.37, .07, 4.07, ...) or of Grundy's game",
        description="Nim values of an octal game by the rare/common split; 'grundy' for Grundy's game.",
    )
    parser.add_argument("code", metavar="CODE", help="octal code such as 0.37, .37, 0.07, 4.07, or 'grundy'")
    parser.add_argument("--count", "-n", type=count, default=100, metavar="N",
                        help=f"how many values (default 100, at most {MAX_COUNT:_})")
    parser.add_argument("--p-positions", action="store_true", help="list the heaps of value 0")
    parser.add_argument("--period", action="store_true", help="run the Guy–Smith periodicity test")
    add_format_option(parser, lists=False)
    add_progress_option(parser)
    parser.set_defaults(handler=run_octal)
