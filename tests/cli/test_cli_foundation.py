"""The shared pieces of the command line (docs/cli.md): options, errors, exit statuses, output."""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

import pytest

from ruma.client.cli.errors import Exit, UnreachableError, UsageError, WorkFailedError, as_cli_error, rpc_error
from ruma.client.cli.main import RumaArgumentParser, main
from ruma.client.cli.options import (
    add_data_option,
    add_format_option,
    add_limit_options,
    add_server_options,
    count,
    data_directory,
    parse_address,
    port,
    read_positions,
)
from ruma.client.cli.output import Column, Output
from ruma.client.progress import pace_text, progress
from ruma.engine.errors import LimitExceededError, NotationError, RumaError


@pytest.mark.parametrize("text, expected", [
    ("localhost", "localhost:50051"), ("127.0.0.1", "127.0.0.1:50051"), ("host:1", "host:1"),
    ("[::1]", "[::1]:50051"), ("[::1]:7", "[::1]:7"), ("::1", "[::1]:50051"), (" h:65535 ", "h:65535"),
])
def test_address_port_defaults_to_50051(text: str, expected: str) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["h:0", "h:65536", "h:-5", "h:99999", "h:x", "http://h:1", "[::1", "[::1]x", "", ":1"])
def test_malformed_addresses_quote_the_input(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=repr(text).replace("[", r"\[").replace("/", "/")):
        parse_address(text)


@pytest.mark.parametrize("text", ["99999", "-5", "65536", "x"])
def test_bad_ports_are_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=repr(text)):
        port(text)
    assert port("0") == 0 and port("65535") == 65535


def test_count_type() -> None:
    assert count("1_000") == 1000
    with pytest.raises(argparse.ArgumentTypeError, match="'-3'"):
        count("-3")


def _parser(*adders: object) -> RumaArgumentParser:
    parser = RumaArgumentParser(prog="ruma test")
    parser.add_argument("values", nargs="*")
    for add in adders:
        add(parser)  # type: ignore[operator]
    return parser


def test_values_starting_with_minus_are_arguments() -> None:
    parser = _parser(add_format_option)
    args = parser.parse_args(["-1/2", "-^", "-{1|0}", "-*2", "-", "-3", "--json"])
    assert args.values == ["-1/2", "-^", "-{1|0}", "-*2", "-", "-3"] and args.format == "json"


def test_usage_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        _parser().parse_args(["--nope"])
    assert stopped.value.code == Exit.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ruma test: unrecognized arguments: --nope")


def test_format_names_notation_mistake(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser(add_format_option).parse_args(["--format", "unicode"])
    assert "use --notation unicode" in capsys.readouterr().err
    assert _parser(add_format_option).parse_args([]).format == "table"
    records = _parser(lambda p: add_format_option(p, lists=False))
    assert records.parse_args([]).format == "text" and records.parse_args(["--json"]).format == "json"


def test_server_default_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUMA_SERVER", "example.org")
    monkeypatch.setenv("RUMA_TOKEN", "t0k")
    args = _parser(add_server_options).parse_args([])
    assert args.server == "example.org:50051" and args.token == "t0k"
    monkeypatch.delenv("RUMA_SERVER")
    assert _parser(add_server_options).parse_args([]).server == "127.0.0.1:50051"
    assert _parser(add_server_options).parse_args(["--server", "[::1]"]).server == "[::1]:50051"
    assert _parser(lambda p: add_server_options(p, optional=True)).parse_args([]).server is None


def test_data_directory_create_or_must_exist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RUMA_DATA", str(tmp_path / "from-env"))
    assert _parser(add_data_option).parse_args([]).data == str(tmp_path / "from-env")
    missing = argparse.Namespace(data=str(tmp_path / "typo"), command_prog="ruma x")
    with pytest.raises(UnreachableError, match="no data directory"):
        data_directory(missing, create=False)
    assert not (tmp_path / "typo").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(UnreachableError, match="no ruma store"):
        data_directory(argparse.Namespace(data=str(tmp_path / "empty")), create=False)
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for create in (True, False):
        with pytest.raises(UnreachableError, match="is a file"):
            data_directory(argparse.Namespace(data=str(a_file)), create=create)
    assert data_directory(missing, create=True) == tmp_path / "typo"
    assert capsys.readouterr().err == f"ruma x: created a new store in {missing.data}\n"
    (tmp_path / "typo" / "data.mdb").write_bytes(b"")
    assert data_directory(missing, create=False) == tmp_path / "typo"
    assert capsys.readouterr().err == ""


def test_limits_and_no_limit() -> None:
    from ruma.client.cli.local_eval import LocalLimits
    from ruma.server.work.limits import Limits

    parser = _parser(add_limit_options)
    defaults = LocalLimits.from_args(parser.parse_args([]))
    server = Limits()  # local work has the server's defaults
    assert (defaults.max_pots, defaults.max_seeds, defaults.max_positions) == (
        server.max_pots, server.max_seeds, server.max_positions)
    assert LocalLimits.from_args(parser.parse_args(["--max-positions", "10"])).max_positions == 10
    assert LocalLimits.from_args(parser.parse_args(["--no-limit"])) == LocalLimits(None, None, None, None)


def test_read_positions_from_stdin() -> None:
    stdin = io.StringIO("312\n\n% a comment\n  1^8  \n#1^3#\n")  # ('#': a full pot, a position)
    assert list(read_positions(["2", "-", "3"], stdin)) == ["2", "312", "1^8", "#1^3#", "3"]


def test_errors_map_to_exit_statuses() -> None:
    assert as_cli_error(NotationError("{", 1, "expected a game")).status == Exit.USAGE  # type: ignore[union-attr]
    assert as_cli_error(LimitExceededError("too big")).status == Exit.USAGE  # type: ignore[union-attr]
    assert as_cli_error(RumaError("refuted")).status == Exit.FAILED  # type: ignore[union-attr]
    assert as_cli_error(FileNotFoundError(2, "No such file or directory", "p.txt")).status == Exit.USAGE  # type: ignore[union-attr]
    assert as_cli_error(ZeroDivisionError()) is None
    from concurrent.futures.process import BrokenProcessPool

    killed = as_cli_error(BrokenProcessPool("A process in the process pool was terminated abruptly"))
    assert killed is not None and killed.status == Exit.FAILED and "for want of memory" in killed.line("ruma sweep")
    refused = rpc_error("UNAVAILABLE", "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:1: "
                        "Failed to connect to remote host: Connection refused", "127.0.0.1:1")
    assert refused.status == Exit.UNREACHABLE
    assert refused.line("ruma query") == ("ruma query: the server refused the connection at 127.0.0.1:1 "
                                          "(is ruma serve running? check --server or RUMA_SERVER)")
    bad = rpc_error("INVALID_ARGUMENT", "negative seed count in '-'\n '-'\n  ^")
    assert bad.status == Exit.USAGE and bad.line("ruma query") == "ruma query: negative seed count in '-'"
    assert "INVALID_ARGUMENT" not in bad.line("x") and rpc_error("UNAUTHENTICATED", "no token").status == Exit.USAGE
    assert (UsageError("a").status, WorkFailedError("b").status, UnreachableError("c").status) == (2, 1, 3)


def test_output_formats() -> None:
    records = [{"position": "312", "value": "{0|-2}", "stats": {"n": 1}}, {"position": "1^8", "value": None, "stats": {}}]
    for fmt in ("json", "csv", "table", "text"):
        stream = io.StringIO()
        with Output(fmt, [Column("position"), Column("value"), Column("stats")], stream=stream) as out:
            for record in records:
                out.emit(record, text=f"{record['position']} = {record['value']}" if fmt == "text" else None)
        text = stream.getvalue()
        if fmt == "json":
            assert [json.loads(line) for line in text.splitlines()] == records
        elif fmt == "csv":
            rows = list(csv.reader(io.StringIO(text)))
            assert rows == [["position", "value", "stats"], ["312", "{0|-2}", '{"n":1}'], ["1^8", "", "{}"]]
        elif fmt == "table":
            lines = text.splitlines()
            assert lines[0].split() == ["position", "value", "stats"] and lines[-1].split() == ["1^8", "{}"]
            assert all(line == line.rstrip() for line in lines) and "{0|-2}" in lines[-2]
        else:
            assert text == "312 = {0|-2}\n1^8 = None\n"


def test_progress_is_silent_off_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with progress("work", total=3) as bar:
        bar.advance()
        bar.update(3)
    assert capsys.readouterr() == ("", "")


def test_the_pace_is_the_average_since_it_was_started() -> None:
    assert pace_text(50, 100, None, 10.0) == ""  # (no pace started)
    assert pace_text(50, 100, (9.5, 40), 10.0) == ""  # (under a second: too little known)
    assert pace_text(40, 100, (0.0, 40), 10.0) == ""  # (nothing done since: no estimate)
    assert pace_text(60, 100, (0.0, 40), 10.0) == "2.0/s, ~20 s left"
    assert pace_text(60, 100, (0.0, 40), 20.0) == "1.0/s, ~40 s left"  # a stall is a slower pace
    assert pace_text(100, 100, (0.0, 40), 20.0) == "3.0/s"
    assert pace_text(41, 1000, (0.0, 40), 10.0) == "0.1/s, ~2.7 h left"


def test_main_one_line_errors_and_debug(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["value", "{"]) == Exit.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "'{'" in err
    assert main(["--debug", "value", "{"]) == Exit.USAGE
    assert main([]) == Exit.USAGE
    assert main(["--help"]) == 0


@pytest.mark.parametrize("value, error", [
    ("ruma.client.cli.no_such_module:register", "ModuleNotFoundError: No module named 'ruma.client.cli.no_such_module'"),
    ("ruma.client.cli.main:no_such_register", "AttributeError"),
])
def test_a_command_module_that_cannot_be_loaded_is_an_error_naming_it(
        value: str, error: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import import_module
    from importlib.metadata import EntryPoint

    dispatcher = import_module("ruma.client.cli.main")  # (the package's ``main`` is the function)
    installed = dispatcher.entry_points(group="ruma.commands")
    broken = EntryPoint(name="broken", value=value, group="ruma.commands")
    monkeypatch.setattr(dispatcher, "entry_points", lambda group: [*installed, broken])
    for argv in (["--help"], ["broken"], ["no-such-command"]):  # (every module loaded: the help, a command not ruma's)
        assert main(argv) == Exit.FAILED
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1, captured.err
        assert captured.err.startswith(f"ruma: cannot load the command 'broken' from {value}: {error}")
        assert "reinstall ruma" in captured.err
    assert main(["--debug", "broken"]) == Exit.FAILED
    assert "Traceback" in capsys.readouterr().err
    assert main(["value", "312"]) == Exit.OK  # (a command of ruma's own loads its module alone)
    assert "birthday       312" in capsys.readouterr().out


def test_a_long_cell_neither_widens_every_row_nor_shifts_its_own() -> None:
    long_value = "{" + "1|" * 3000 + "0}"  # a canonical form of 6,002 characters
    records = [{"position": f"p{i}", "value": long_value if i == 2 else "∗", "outcome": "N"} for i in range(5)]
    stream = io.StringIO()
    with Output("table", [Column("position"), Column("value"), Column("outcome")], stream=stream) as out:
        for record in records:
            out.emit(record)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 7 and lines[0].split() == ["position", "value", "outcome"]
    assert lines[3] == "p2        " + long_value  # written whole; the rest of its row on the next line
    assert all(len(line) < 80 for i, line in enumerate(lines) if i != 3)  # padded to 32 at most, not to 6,002
    assert lines[4].strip() == "N"
    assert {lines[i].index("N") for i in (1, 2, 4, 5, 6)} == {lines[0].index("outcome")}  # every row lines up
