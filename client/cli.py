"""The ``ruma`` command line: a thin dispatcher over subcommands registered as entry points.

Each area of the project owns its subcommands in its own module and declares it in
``pyproject.toml`` under ``[project.entry-points."ruma.commands"]``; the module exposes
``register(subparsers) -> None``. The client therefore never imports the server: server
commands reach the CLI through the distribution's metadata. Every subcommand accepts
``--json`` (one JSON object per result, one per line).
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import entry_points
from typing import Callable, Sequence

from ruma.engine.errors import RumaError

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="ruma",
        description="ruma: exact combinatorial-game values of sowing games, computed once and shared.",
    )
    parser.add_argument("--version", action="version", version=_version(), help="print the version and the active engine")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for entry in sorted(entry_points(group="ruma.commands"), key=lambda e: e.name):
        module = entry.value.partition(":")[0]
        try:
            register = entry.load()
        except ModuleNotFoundError as error:  # an area not built yet: its module is absent
            if error.name != module:
                raise
            continue
        register(subparsers)
    return parser


def _version() -> str:
    """``ruma 0.1.0 (engine: c ...)``: the package version and which engine this process runs."""
    from ruma import __version__
    from ruma.engine.native import describe

    return f"ruma {__version__} ({describe()})"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ruma`` command line; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return handler(args)
    except RumaError as error:
        print(f"ruma {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"ruma {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Add the ``--json`` flag every subcommand accepts."""
    parser.add_argument("--json", action="store_true", help="one JSON object per result, one per line")


if __name__ == "__main__":
    raise SystemExit(main())
