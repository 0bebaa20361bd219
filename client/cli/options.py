"""The options every ``ruma`` subcommand shares, declared once (docs/cli.md).

    add_data_option(parser)          --data DIR            ($RUMA_DATA, default ./ruma-data)
    add_server_options(parser)       --server ADDR --token --tls-ca --timeout ($RUMA_SERVER, $RUMA_TOKEN)
    add_notation_option(parser)      --notation unicode|ascii|braces (default unicode)
    add_format_option(parser)        --format table|json|csv, --json   (lists; records: text|json)
    add_progress_option(parser)      --no-progress
    add_limit_options(parser)        --max-pots --max-seeds --max-positions --max-seconds --no-limit

and the helpers that read them: ``data_directory(args, create=...)``, ``connect(args)``,
``read_positions(texts)`` (``-`` reads standard input), ``parse_address``, and argument types
(``count``, ``port``, ``seconds``) whose errors quote the input.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, TextIO, TypeVar

from ruma.client import address
from ruma.client.cli.errors import UnreachableError, UsageError
from ruma.engine.errors import RumaInputError
from ruma.engine.limits import MAX_POSITIONS, MAX_POTS, MAX_SEEDS

if TYPE_CHECKING:
    from ruma.client.client import Client

DEFAULT_DATA = "./ruma-data"
DEFAULT_PORT = address.DEFAULT_PORT
DEFAULT_SERVER = f"127.0.0.1:{DEFAULT_PORT}"
NOTATIONS = ("unicode", "ascii", "braces")
LIST_FORMATS = ("table", "json", "csv")  # lists of records
RECORD_FORMATS = ("text", "json")  # one record that is no row of a table
ANALYSIS_FORMATS = ("text", "table", "json", "csv")  # one record per input, read by people
#: files whose presence makes a directory a ruma data directory (LMDB store, SQLite catalog)
DATA_FILES = ("data.mdb", "catalog.sqlite")
#: a local evaluation's time limit, unless ``--max-seconds`` says otherwise (its size limits are the
#: service's, ``ruma.engine.limits``; a service request's time budget is shorter:
#: ``ruma.server.work.limits.REQUEST_MAX_SECONDS``)
LOCAL_MAX_SECONDS = 600.0


# -- argument types: errors quote the input ---------------------------------------------------
N = TypeVar("N", int, float)


def _checked(text: str, convert: Callable[[str], N], valid: Callable[[N], bool], need: str) -> N:
    """``convert(text)`` when it works and is ``valid``, else an argparse error quoting ``text``."""
    try:
        value = convert(text.strip().replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"need {need}, got {text!r}") from None
    if not valid(value):
        raise argparse.ArgumentTypeError(f"need {need}, got {text!r}")
    return value


def count(text: str) -> int:
    """A non-negative integer (``_`` separators allowed)."""
    return _checked(text, int, lambda n: n >= 0, "a non-negative integer")


def positive(text: str) -> int:
    """A positive integer."""
    return _checked(text, int, lambda n: n > 0, "a positive integer")


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    return _checked(text, float, lambda x: 0 < x < float("inf"), "a positive number of seconds")


def port(text: str) -> int:
    """A TCP port, 1..65535, or 0 for any free port."""
    return _checked(text, int, lambda n: 0 <= n <= 65535, "a port number 1..65535 (0: any free port)")


# -- the data directory ------------------------------------------------------------------------
def add_data_option(parser: argparse.ArgumentParser, *, optional: bool = False, help: str | None = None) -> None:
    """``--data DIR`` (default ``$RUMA_DATA`` or ``./ruma-data``). ``optional``: for commands that
    work without a store unless one is asked for, the default is ``$RUMA_DATA`` or None."""
    default = os.environ.get("RUMA_DATA") or (None if optional else DEFAULT_DATA)
    text = help or (f"data directory: LMDB store and SQLite catalog (default $RUMA_DATA or {DEFAULT_DATA})" if not optional
                    else "look up and store values in the LMDB store in DIR (default $RUMA_DATA; "
                         "without either, an in-memory memo)")
    parser.add_argument("--data", metavar="DIR", default=default, help=text)


def data_directory(args: argparse.Namespace, *, create: bool) -> Path:
    """The ``--data`` directory, checked: with ``create`` a missing one is created (said once on
    stderr); without, it must hold a ruma store or catalog. A file, or a directory that cannot be
    created, is ``UnreachableError`` (exit 3)."""
    text = str(args.data)
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise UnreachableError(f"--data {text!r} is a file, not a data directory",
                               "give the directory that holds data.mdb")
    if path.is_dir() and any((path / name).exists() for name in DATA_FILES):
        return path
    if not create:
        if not path.exists():
            raise UnreachableError(f"no data directory {text!r}", "check --data or RUMA_DATA")
        raise UnreachableError(f"no ruma store in {text!r}", "check --data or RUMA_DATA")
    existed = path.is_dir()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UnreachableError(f"cannot create data directory {text!r}: {error.strerror or error}") from None
    if not os.access(path, os.W_OK):
        raise UnreachableError(f"data directory {text!r} is not writable")
    prog = getattr(args, "command_prog", "ruma")
    print(f"{prog}: created a new store in {text}" + (" (the directory existed)" if existed else ""), file=sys.stderr)
    return path


# -- the server ---------------------------------------------------------------------------------
def parse_address(text: str) -> str:
    """``host``, ``host:port``, ``[v6]``, ``[v6]:port`` or a bare IPv6 address → ``host:port``
    (port 50051 when omitted). Raises ``argparse.ArgumentTypeError`` quoting a malformed one."""
    try:
        return address.parse_address(text)
    except RumaInputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_server_options(parser: argparse.ArgumentParser, *, optional: bool = False) -> None:
    """``--server ADDR`` (default ``$RUMA_SERVER`` or 127.0.0.1:50051), ``--token`` (``$RUMA_TOKEN``),
    ``--tls-ca PEM`` and ``--timeout S``. With ``optional`` the server is used only when
    ``--server`` is given (commands that otherwise work on ``--data``)."""
    if optional:
        parser.add_argument("--server", metavar="ADDR", type=parse_address, default=None,
                            help="use a ruma server instead of --data (host[:port], port 50051 by default)")
    else:
        parser.add_argument("--server", metavar="ADDR", type=parse_address,
                            default=os.environ.get("RUMA_SERVER") or DEFAULT_SERVER,
                            help=f"server address host[:port] (default $RUMA_SERVER or {DEFAULT_SERVER})")
    parser.add_argument("--token", default=os.environ.get("RUMA_TOKEN"), help="bearer token (default $RUMA_TOKEN)")
    parser.add_argument("--tls-ca", metavar="PEM", help="CA certificate of a TLS server")
    parser.add_argument("--timeout", type=seconds, default=None, metavar="S", help="deadline of each call in seconds")


def connect(args: argparse.Namespace) -> "Client":
    """A ``Client`` for the server options in ``args`` (reading ``--tls-ca`` first)."""
    from ruma.client.client import Client

    tls_ca = None
    if getattr(args, "tls_ca", None):
        try:
            tls_ca = Path(args.tls_ca).read_bytes()
        except OSError as error:
            raise UsageError(f"cannot read --tls-ca {args.tls_ca!r}: {error.strerror}") from None
    return Client(args.server, token=args.token, tls_ca=tls_ca, timeout=args.timeout)


# -- values and output --------------------------------------------------------------------------
def add_notation_option(parser: argparse.ArgumentParser) -> None:
    """``--notation unicode|ascii|braces`` (default unicode)."""
    parser.add_argument("--notation", choices=NOTATIONS, default="unicode",
                        help="how values are written: unicode (↑∗), ascii (CGSuite ^*) or braces (cgt-py); default unicode")


def _format_type(choices: tuple[str, ...]) -> type[str] | object:
    def parse(text: str) -> str:
        if text in choices:
            return text
        if text in NOTATIONS:
            raise argparse.ArgumentTypeError(f"--format is {'|'.join(choices)}; for values written in {text} "
                                             f"use --notation {text}")
        raise argparse.ArgumentTypeError(f"invalid choice {text!r} (choose from {', '.join(choices)})")

    parse.__name__ = "format"
    return parse


def add_format_option(parser: argparse.ArgumentParser, *, lists: bool = True,
                      formats: tuple[str, ...] | None = None) -> None:
    """``--format`` and its alias ``--json``, into ``args.format``; the first format is the default.
    ``lists``: table|json|csv; otherwise text|json; or the ``formats`` given (``ANALYSIS_FORMATS``:
    text|table|json|csv for one labelled block per input)."""
    choices = formats or (LIST_FORMATS if lists else RECORD_FORMATS)
    parser.add_argument("--format", type=_format_type(choices), default=choices[0], metavar="|".join(choices),  # type: ignore[arg-type]
                        help=f"output format (default {choices[0]}); json is one object per line")
    parser.add_argument("--json", dest="format", action="store_const", const="json",
                        help="same as --format json: one JSON object per line")


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """``--no-progress``: no progress display (it is shown on stderr only when that is a terminal)."""
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress display (shown on stderr when it is a terminal)")


@dataclass(frozen=True)
class LocalLimits:
    """What one local evaluation may do (``None``: unlimited)."""

    max_pots: int | None = MAX_POTS
    max_seeds: int | None = MAX_SEEDS
    max_positions: int | None = MAX_POSITIONS
    max_seconds: float | None = LOCAL_MAX_SECONDS

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "LocalLimits":
        """The limits chosen by ``add_limit_options``'s options."""
        if getattr(args, "no_limit", False):
            return cls(None, None, None, None)
        return cls(args.max_pots, args.max_seeds, args.max_positions, args.max_seconds)


def limits(args: argparse.Namespace) -> LocalLimits:
    """The limits chosen by ``add_limit_options``'s options (``LocalLimits.from_args``)."""
    return LocalLimits.from_args(args)


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """``--max-pots``, ``--max-seeds``, ``--max-positions``, ``--max-seconds`` and ``--no-limit``,
    with the server's defaults (read them with ``limits(args)``)."""
    group = parser.add_argument_group("limits (the server's defaults)")
    group.add_argument("--max-pots", type=positive, default=MAX_POTS, metavar="N",
                       help=f"refuse positions of more than N pots/heaps (default {MAX_POTS})")
    group.add_argument("--max-seeds", type=positive, default=MAX_SEEDS, metavar="N",
                       help=f"refuse positions of more than N seeds/tokens (default {MAX_SEEDS})")
    group.add_argument("--max-positions", type=positive, default=MAX_POSITIONS, metavar="N",
                       help=f"give up beyond N positions valued (default {MAX_POSITIONS:_})")
    group.add_argument("--max-seconds", type=seconds, default=LOCAL_MAX_SECONDS, metavar="S",
                       help=f"give up after S seconds (default {LOCAL_MAX_SECONDS:g})")
    group.add_argument("--no-limit", action="store_true", help="none of these limits")


# -- input --------------------------------------------------------------------------------------
def read_lines(stream: TextIO) -> Iterator[str]:
    """Stripped lines of ``stream``, skipping blank lines and ``%`` comments (``COMMENT``; a line
    starting with ``#`` is a position: a full pot)."""
    from ruma.engine.rulesets.base import COMMENT

    for line in stream:
        text = line.strip()
        if text and not text.startswith(COMMENT):
            yield text


def read_positions(texts: Iterable[str], stdin: TextIO | None = None) -> Iterator[str]:
    """The positions given as arguments, ``-`` standing for standard input (one a line)."""
    for text in texts:
        if text == "-":
            yield from read_lines(stdin if stdin is not None else sys.stdin)
        else:
            yield text
