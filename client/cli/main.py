"""The ``ruma`` command line: a thin dispatcher over subcommands registered as entry points.

Each area of the project owns its subcommands in its own module and declares it in
``pyproject.toml`` under ``[project.entry-points."ruma.commands"]``; the module exposes
``register(subparsers) -> None`` and sets ``handler=`` (``Namespace -> int``) on its parsers. The
client therefore never imports the server: server commands reach the CLI through the
distribution's metadata. The shared options are in ``ruma.client.cli.options``, errors in
``ruma.client.cli.errors`` and output in ``ruma.client.cli.output``; docs/cli.md is the convention.

``main`` prints every error as one line, ``ruma <command>: <what> (<hint>)``, and returns its exit
status (0 ok, 1 the work failed, 2 usage or input error, 3 server or store unreachable, 130
interrupted); ``--debug`` (or ``RUMA_DEBUG=1``) adds the traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from importlib.metadata import PackageNotFoundError, distribution, entry_points
from typing import Any, Callable, NoReturn, Sequence

from ruma.client.cli.errors import CliError, Exit, as_cli_error

Handler = Callable[[argparse.Namespace], int]

#: an argument that starts with '-' but is a value, not an option: '-1/2', '-^', '-{1|0}', '-*2'
_VALUE_LIKE = re.compile(r"^-[^-A-Za-z]")


class RumaArgumentParser(argparse.ArgumentParser):
    """``argparse`` with the conventions of docs/cli.md: values starting with ``-`` are arguments,
    usage errors are one line (exit 2), ``--debug`` is accepted anywhere, and ``args.command_prog``
    names the subcommand that was chosen (``"ruma catalog seed"``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if isinstance(kwargs.get("description"), str):  # module docstrings are reST: no ``literal`` marks in --help
            kwargs["description"] = kwargs["description"].replace("``", "")
        super().__init__(*args, **kwargs)
        self.set_defaults(command_prog=self.prog)
        top = not self.prog.count(" ")
        self.add_argument("--debug", action="store_true", default=False if top else argparse.SUPPRESS,
                          help="show tracebacks of errors (also RUMA_DEBUG=1)" if top else argparse.SUPPRESS)

    def _parse_optional(self, arg_string: str) -> Any:
        if _VALUE_LIKE.match(arg_string) and arg_string not in self._option_string_actions:
            return None
        return super()._parse_optional(arg_string)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """As argparse's, but arguments nobody took are reported by the chosen subcommand."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            prog = getattr(parsed, "command_prog", self.prog)
            print(f"{prog}: unrecognized arguments: {' '.join(extras)} (see '{prog} --help')", file=sys.stderr)
            raise SystemExit(Exit.USAGE)
        return parsed

    def error(self, message: str) -> NoReturn:
        """One line on stderr, ``prog: message (see 'prog --help')``, and exit 2."""
        print(f"{self.prog}: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(Exit.USAGE)


#: the entry point (its name in ``[project.entry-points."ruma.commands"]``) that registers each
#: command whose own name is not an entry point's: what lets ``ruma COMMAND`` load that module
#: alone (``build_parser(command)``). Only a shortcut — a command it misses is found by loading
#: every module — that tests/cli/test_cli_suite.py holds to what the modules register.
OWNERS = {"options": "eval", "nim-values": "impartial", "p-positions": "impartial", "completion": "info",
          "rulesets": "info", "query": "remote", "load": "remote", "theorem": "catalog", "db": "catalog",
          "census": "tables", "find": "tables"}
GROUP = "ruma.commands"


def build_parser(command: str | None = None) -> RumaArgumentParser:
    """The argument parser, with every registered subcommand — or, given the ``command`` about to
    run, with the commands of the one module that registers it where that module is ruma's own
    (``OWNERS``: a command line pays for no other command's module, 0.05 s of the 0.1 s a command
    costs to start). A command module that cannot be loaded (a broken installation) is a
    ``CliError`` naming the command and its module."""
    parser = RumaArgumentParser(
        prog="ruma",
        description="ruma: exact combinatorial-game values of sowing games, computed once and shared. "
        "Conventions of every subcommand (data, server, notation, output, exit status): docs/cli.md.",
    )
    parser.add_argument("--version", action="version", version=_version(), help="print the version and the active engine")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for entry in _entries(command):
        try:
            register = entry.load()
        except Exception as error:  # noqa: BLE001 - any failure to load is reported the same way
            detail = f"{type(error).__name__}: {error}".splitlines()[0]
            raise CliError(f"cannot load the command {entry.name!r} from {entry.value}: {detail}",
                           "a broken installation: reinstall ruma; --debug shows the traceback") from error
        register(subparsers)
    return parser


def _entries(command: str | None) -> list[Any]:
    """The entry points of the commands to register: the one of ruma's own distribution that
    registers ``command``, where there is one; else every installed one, by name."""
    if command is not None:
        owner = OWNERS.get(command, command)
        try:
            own = [e for e in distribution("ruma").entry_points if e.group == GROUP and e.name == owner]
        except PackageNotFoundError:  # pragma: no cover - (run from a tree that is not installed)
            own = []
        if own:
            return own
    return sorted(entry_points(group=GROUP), key=lambda e: e.name)


def _command_of(arguments: Sequence[str]) -> str | None:
    """The command an argument list names (its first word that is not an option), or ``None``."""
    return next((argument for argument in arguments if not argument.startswith("-")), None)


def _version() -> str:
    """``ruma 0.1.0 (engine: c ...)``: the package version and which engine this process runs."""
    from ruma import __version__
    from ruma.engine.native import describe

    return f"ruma {__version__} ({describe()})"


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    """The commands ``parser`` has."""
    return {name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices}


def _debugging(argv: Sequence[str]) -> bool:
    return "--debug" in argv or os.environ.get("RUMA_DEBUG", "") not in ("", "0")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ruma`` command line; returns the process exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = _debugging(arguments)
    if not debug:
        os.environ.setdefault("GRPC_VERBOSITY", "NONE")  # no C-core log lines in a user's terminal
    command = None if "_ARGCOMPLETE" in os.environ else _command_of(arguments)
    try:
        parser = build_parser(command)
        if command is not None and command not in _commands(parser):  # (not where OWNERS says: every module)
            parser = build_parser()
    except CliError as broken:
        if debug:
            import traceback

            traceback.print_exception(broken.__cause__ or broken)
        print(broken.line("ruma"), file=sys.stderr)
        return broken.status
    if "_ARGCOMPLETE" in os.environ:  # shell completion (ruma completion bash|zsh|fish)
        import argcomplete

        argcomplete.autocomplete(parser)
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else Exit.USAGE
    prog = getattr(args, "command_prog", "ruma")
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return Exit.USAGE
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return Exit.INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return Exit.OK
    except Exception as error:  # noqa: BLE001 - every error ends as one line (with --debug, a traceback)
        known = as_cli_error(error)
        if debug:
            import traceback

            traceback.print_exc()
        if known is None:
            detail = f"{type(error).__name__}: {error}".splitlines()[0]
            hint = None if debug else "a bug in ruma; run with --debug for the traceback"
            known = CliError(f"internal error: {detail}", hint)
        print(known.line(prog), file=sys.stderr)
        return known.status


def _silence_stdout() -> None:
    """After a closed pipe (``ruma ... | head``), stop Python complaining when it flushes stdout."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
