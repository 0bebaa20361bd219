"""Errors of the ``ruma`` command line: what went wrong, a hint, and the exit status.

A subcommand raises ``UsageError`` (exit 2), ``WorkFailedError`` (exit 1) or ``UnreachableError`` (exit 3);
``ruma.client.cli.main`` prints it as one line, ``ruma <command>: <what> (<hint>)``, with no
traceback unless ``--debug`` is given. Errors of the engine and of the client library need no
wrapping: ``as_cli_error`` maps them (``RumaInputError`` and ``LimitExceededError`` → 2, a call that
cannot reach the server → 3, any other ``RumaError`` → 1). See docs/cli.md.
"""

from __future__ import annotations

import sys
from concurrent.futures.process import BrokenProcessPool
from enum import IntEnum

from ruma.engine.errors import CancelledError, LimitExceededError, RumaError, RumaInputError


class Exit(IntEnum):
    """Exit statuses of every ``ruma`` subcommand (docs/cli.md)."""

    OK = 0
    FAILED = 1  # the work failed: a position not valued, a claim refuted, verify found problems
    USAGE = 2  # usage or input error: bad option, ruleset, position, value; a limit hit by the request
    UNREACHABLE = 3  # cannot reach the server or the store
    INTERRUPTED = 130


class CliError(Exception):
    """An error to show the user: ``what`` went wrong (quoting the input), an optional ``hint``."""

    status: Exit = Exit.FAILED

    def __init__(self, what: str, hint: str | None = None, *, status: Exit | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.hint = hint
        if status is not None:
            self.status = status

    def line(self, prog: str) -> str:
        """The one line printed on stderr: ``prog: what (hint)``."""
        first = self.what.strip().splitlines()[0] if self.what.strip() else "error"
        return f"{prog}: {first}" + (f" ({self.hint})" if self.hint else "")


class UsageError(CliError):
    """Bad usage or input: an unknown option or ruleset, a malformed position or value (exit 2)."""

    status = Exit.USAGE


class WorkFailedError(CliError):
    """The work was done but failed: some positions not valued, a claim refuted (exit 1)."""

    status = Exit.FAILED


class UnreachableError(CliError):
    """The server or the store cannot be reached or opened (exit 3)."""

    status = Exit.UNREACHABLE


#: gRPC status code name → (exit status, hint); UNAVAILABLE is worded separately (``_unavailable``)
_RPC_STATUS: dict[str, tuple[Exit, str | None]] = {
    "INVALID_ARGUMENT": (Exit.USAGE, None),
    "NOT_FOUND": (Exit.USAGE, None),
    "ALREADY_EXISTS": (Exit.USAGE, "use --replace to overwrite it"),
    "OUT_OF_RANGE": (Exit.USAGE, None),
    "RESOURCE_EXHAUSTED": (Exit.USAGE, "a limit of the server; ask for less"),
    "UNAUTHENTICATED": (Exit.USAGE, "give a token with --token or RUMA_TOKEN"),
    "PERMISSION_DENIED": (Exit.USAGE, "give a write token with --token or RUMA_TOKEN"),
    "DEADLINE_EXCEEDED": (Exit.FAILED, "raise --timeout"),
    "CANCELLED": (Exit.FAILED, None),
    "FAILED_PRECONDITION": (Exit.FAILED, None),
    "ABORTED": (Exit.FAILED, "try again"),
    "UNIMPLEMENTED": (Exit.FAILED, "the server is older than this client"),
    "INTERNAL": (Exit.FAILED, "a bug in the server; its log has the details"),
    "UNKNOWN": (Exit.FAILED, None),
    "DATA_LOSS": (Exit.UNREACHABLE, None),
}


def _unavailable(details: str, address: str | None) -> CliError:
    where = f" at {address}" if address else ""
    lowered = details.lower()
    if "connection refused" in lowered:
        what = f"the server refused the connection{where}"
    elif "dns resolution failed" in lowered or "name or service not known" in lowered:
        what = f"cannot resolve the server's host{where}"
    elif "ssl" in lowered or "handshake" in lowered or "certificate" in lowered:
        what = f"TLS handshake with the server{where} failed"
        return UnreachableError(what, "check --tls-ca, and that the server was started with --tls-cert")
    else:
        what = f"cannot reach the server{where}"
    return UnreachableError(what, "is ruma serve running? check --server or RUMA_SERVER")


def rpc_error(code_name: str, details: str, address: str | None = None) -> CliError:
    """The ``CliError`` of a failed gRPC call (``code_name`` is a ``grpc.StatusCode`` name)."""
    if code_name == "UNAVAILABLE":
        return _unavailable(details, address)
    status, hint = _RPC_STATUS.get(code_name, (Exit.FAILED, None))
    what = details.strip().splitlines()[0] if details.strip() else code_name.lower().replace("_", " ")
    if code_name == "DEADLINE_EXCEEDED" and not what.lower().startswith("deadline"):
        what = f"deadline exceeded: {what}"
    return CliError(what, hint, status=status)


def as_cli_error(error: BaseException) -> CliError | None:
    """The ``CliError`` for a known kind of error; ``None`` for anything else (a bug)."""
    if isinstance(error, CliError):
        return error
    rpc = sys.modules.get("ruma.client.client")  # only loaded (with grpc) by commands that use a server
    if rpc is not None and isinstance(error, rpc.RumaRpcError):
        return rpc_error(error.code.name, error.details, getattr(error, "address", None))
    if isinstance(error, (RumaInputError, LimitExceededError)):
        return UsageError(str(error))
    if isinstance(error, CancelledError):
        return WorkFailedError(str(error))
    if isinstance(error, RumaError):
        return WorkFailedError(str(error))
    if isinstance(error, BrokenProcessPool):  # a worker killed from outside: by the OOM killer, as a rule
        return WorkFailedError("a worker process ended abruptly (killed by the system, most often for want of memory)",
                               "try fewer seeds or --workers 1")
    if isinstance(error, OSError) and error.filename is not None:
        reason = error.strerror or type(error).__name__
        return UsageError(f"cannot open {str(error.filename)!r}: {reason}")
    return None


def report(prog: str, error: BaseException) -> Exit:
    """Print one item's error as one line (``prog: what (hint)``) and return its exit status, for
    commands that go on with the next item; combine the statuses with ``max``. Unknown errors
    are bugs and propagate."""
    known = as_cli_error(error)
    if known is None:
        raise error
    print(known.line(prog), file=sys.stderr)
    return known.status
