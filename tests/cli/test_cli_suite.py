"""Every subcommand of ``ruma --help``, with good input and with each kind of bad input (docs/cli.md).

Good input: exit 0, and with ``--json`` every line validates against the record's JSON Schema
(``ruma/client/schemas/``). Bad input: the documented exit status, exactly one line on stderr
naming the command and quoting the input, never a traceback. Commands run in process through
``ruma.client.cli.main`` (fast); ``ruma serve`` runs as a real process on a loopback port, with
its own data directory and a token file, and the remote commands talk to it.
"""

from __future__ import annotations

import io
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import jsonschema
import pytest

from ruma.client import records
from ruma.client.cli.main import build_parser, main
from ruma.client.records import KINDS, schema
from tests.support.commands import free_port
from tests.support.serve_harness import serve_log, serving

TOKEN = "suite-write-token"


def leaf_commands() -> set[str]:
    """Every runnable command path of ``ruma --help`` ("catalog seed", "eval", ...)."""
    import argparse

    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs and path:
            found.add(" ".join(path))
        for action in subs:
            for name, child in action.choices.items():
                walk(child, (*path, name))

    walk(build_parser(), ())
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A local data directory (seeded catalog, some stored values), a positions file, and a
    running server with a token file on its own data directory."""
    root = tmp_path_factory.mktemp("suite")
    local = root / "local"
    assert main(["catalog", "seed", "--data", str(local)]) == 0
    assert main(["eval", "impartial-sowing", "110111", "11131", "312", "--data", str(local), "--format", "csv"]) == 0
    positions = root / "positions.txt"
    positions.write_text("% a comment\n312\n1^5\n\n2202\n")
    tokens = root / "tokens"
    tokens.write_text(f"{TOKEN} write\n")
    with serving(root / "served", "--token-file", str(tokens)) as (process, address):
        yield {"local": local, "positions": positions, "server": address, "process": process, "root": root}


def run(capsys: pytest.CaptureFixture[str], argv: list[str], stdin: str | None = None,
        monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def expand(argv: list[str], world: dict[str, Any]) -> list[str]:
    values = {"{local}": str(world["local"]), "{positions}": str(world["positions"]), "{server}": world["server"],
              "{root}": str(world["root"]), "{token}": TOKEN}
    return [values.get(a, a).replace("{root}", str(world["root"])) for a in argv]


REMOTE = ["--server", "{server}", "--token", "{token}"]

# (command, argv, record kind or None when the output is not JSON records)
GOOD: list[tuple[str, list[str], str | None]] = [
    ("value", ["value", "{2||1|0} + ^*", "-1/2", "-^"], "value"),
    ("eval", ["eval", "sowing", "312", "(10)^3 03 (01)^2"], "evaluation"),
    ("eval", ["eval", "atomic-wari", "312", "--data", "{local}"], "evaluation"),
    ("options", ["options", "sowing", "312"], "option"),
    ("rulesets", ["rulesets"], "ruleset"),
    ("completion", ["completion", "bash"], None),
    ("octal", ["octal", "0.37", "--count", "500", "--p-positions", "--period"], "octal"),
    ("p-positions", ["p-positions", "chocolate2", "2,1,2,1,2,1"], "p-position"),
    ("nim-values", ["nim-values", "grundy", "7", "5 9"], "nim-value"),
    ("tchoukaillon board", ["tchoukaillon", "board", "15", "16"], "tchoukaillon-board"),
    ("tchoukaillon board", ["tchoukaillon", "board", "10000000000", "--bins", "3"], "tchoukaillon-board"),
    ("tchoukaillon boards-of-length", ["tchoukaillon", "boards-of-length", "4"], "tchoukaillon-board"),
    ("tchoukaillon min-stones", ["tchoukaillon", "min-stones", "5", "6", "--cross-check"], "tchoukaillon-min-stones"),
    ("tchoukaillon complete", ["tchoukaillon", "complete", "3=1,7=2"], "tchoukaillon-complete"),
    ("tchoukaillon check", ["tchoukaillon", "check", "1,2,0,2,4,6", "0,1"], "tchoukaillon-check"),
    ("tchoukaillon graph", ["tchoukaillon", "graph", "1>0,2>1,3>2,0>3", "--max-stones", "5"], "tchoukaillon-graph"),
    ("query", ["query", *REMOTE, "sowing", "312", "1^8"], "evaluation"),
    ("query", ["query", *REMOTE, "--lookup", "sowing", "312"], "evaluation"),
    ("load", ["load", *REMOTE, "impartial-sowing", "{positions}"], "load-summary"),
    ("store stats", ["store", "stats", "--data", "{local}"], "store-stats"),
    ("store verify", ["store", "verify", "--data", "{local}", "--sample", "5"], "store-verify"),
    ("store backup", ["store", "backup", "{root}/backup-NAME", "--data", "{local}"], "store-backup"),
    ("store repair", ["store", "repair", "--data", "{root}/repairable-NAME"], "store-repair"),
    ("store compact", ["store", "compact", "--no-progress", "--data", "{root}/compactable-NAME"], "store-compact"),
    ("catalog list", ["catalog", "list", "--data", "{local}", "--tag", "table1"], "named-position"),
    ("catalog search", ["catalog", "search", "--data", "{local}", "--tag", "table3", "--value", "*4"], "named-position"),
    ("catalog search", ["catalog", "search", "--stored", "--ruleset", "impartial-sowing", "--value", "*4",
                        "--data", "{local}"], "stored-position"),
    ("catalog show", ["catalog", "show", "erickson-t1-2202", "--data", "{local}"], "named-position"),
    ("catalog add", ["catalog", "add", "suite-NAME", "--ruleset", "sowing", "--position", "312", "--tag", "t",
                     "--data", "{local}"], "named-position"),
    ("catalog remove", ["catalog", "remove", "erickson-t1-2202", "--data", "{root}/removable-NAME"], "removed"),
    ("catalog seed", ["catalog", "seed", "--data", "{local}"], "seed"),
    ("catalog seed", ["catalog", "seed", *REMOTE], "seed"),
    ("catalog show", ["catalog", "show", "erickson-t1-2202", *REMOTE], "named-position"),
    ("theorem add", ["theorem", "add", "suite-NAME", "--ruleset", "sowing", "--family", "11(01)^n",
                     "--claim", "{n+1|0}", "--domain", "n>=1", "--data", "{local}"], "theorem"),
    ("theorem verify", ["theorem", "verify", "erickson-2.3", "--up-to", "3", "--data", "{local}"], "verification-run"),
    ("theorem verify", ["theorem", "verify", "erickson-2.4", "--up-to", "3", *REMOTE], "verification-run"),
    ("theorem list", ["theorem", "list", "--data", "{local}"], "theorem"),
    ("theorem show", ["theorem", "show", "erickson-2.3", "--data", "{local}"], "theorem"),
    ("db current", ["db", "current", "--data", "{local}"], "db-revision"),
    ("db upgrade", ["db", "upgrade", "--data", "{root}/db-NAME"], "db-revision"),
    ("db downgrade", ["db", "downgrade", "--data", "{root}/db-NAME"], "db-revision"),
    ("plot thermograph", ["plot", "thermograph", "{2||1|0}", "-o", "{root}/NAME.svg"], "picture"),
    ("plot thermograph", ["plot", "thermograph", "312", "--ruleset", "sowing", "-o", "{root}/NAME.png"], "picture"),
    ("plot octal", ["plot", "octal", "0.137", "--count", "100", "-o", "{root}/NAME.svg"], "picture"),
    ("plot tree", ["plot", "tree", "sowing", "2212", "--depth", "1", "-o", "{root}/NAME.svg"], "picture"),
    ("plot sowing-graph", ["plot", "sowing-graph", "star:3x2", "--board", "1,2,0,2,1,1", "-o", "{root}/NAME.svg"],
     "picture"),
    ("plot tchoukaillon", ["plot", "tchoukaillon", "15", "-o", "{root}/NAME.svg"], "picture"),
    ("sweep", ["sweep", "impartial-sowing", "--seeds", "5", "--data", "{local}", "--workers", "1"], "sweep-summary"),
    ("sweep", ["sweep", "sowing", "--seeds", "4", *REMOTE, "--workers", "1"], "sweep-summary"),
    ("census", ["census", "impartial-sowing", "--seeds", "5", "--data", "{local}", "--workers", "1"], "census-row"),
    ("census", ["census", "sowing", "--seeds", "4", "--by", "outcome", *REMOTE], "census-row"),
    ("find", ["find", "impartial-sowing", "*2", "--seeds", "..5", "--data", "{local}", "--workers", "1", "--json"],
     "census-row"),
    ("find", ["find", "sowing", "*", "0", "--seeds", "4", "--json", *REMOTE], "census-row"),
    ("find", ["find", "sowing", "1/4", "--beyond", "--seeds", "6", "--pots", "6", "--seconds", "2", "--data",
              "{root}/beyond-NAME", "--workers", "1", "--json"], "beyond-position"),
    ("tables", ["tables", "sowing-values", "--seeds", "4", "--chains", "0", "--data", "{root}/tables-NAME"], None),
]

# ``ruma serve`` runs in the ``world`` fixture (its ``server`` record is validated there);
# ``ruma web`` serves until stopped: tests/plot/test_plot_web_cli.py runs it as a real process
RUN_ELSEWHERE = {"serve", "web"}


def test_every_command_has_a_good_case() -> None:
    covered = {command for command, _, _ in GOOD} | RUN_ELSEWHERE
    assert leaf_commands() - covered == set(), "a subcommand without a case in tests/cli/test_cli_suite.py"


def test_every_kind_has_a_schema_and_a_command() -> None:
    assert {kind for _, _, kind in GOOD if kind} | {"server"} == set(KINDS)
    shipped = Path(records.__file__).parent / "schemas"
    assert {path.stem for path in shipped.glob("*.json")} == set(KINDS)


@pytest.mark.parametrize("command, argv, kind", GOOD, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(GOOD)])
def test_good_input(world: dict[str, Any], capsys: pytest.CaptureFixture[str], command: str, argv: list[str],
                    kind: str | None, request: pytest.FixtureRequest) -> None:
    name = request.node.callspec.id.replace(" ", "_")
    args = [a.replace("NAME", name) for a in expand(argv, world)]
    if "db" in args[:1] and "downgrade" in args:
        assert main(["db", "upgrade", *args[2:]]) == 0
    if "remove" in args:
        assert main(["catalog", "seed", *args[-2:]]) == 0
        capsys.readouterr()
    if "repair" in args or "compact" in args:  # a store to repair or compact
        assert main(["eval", "sowing", "312", *args[-2:]]) == 0
        capsys.readouterr()
    status, out, err = run(capsys, args)
    assert status == 0, err
    assert out.strip(), f"{command} printed nothing"
    assert "Traceback" not in err
    if kind is None:
        return
    if "backup" in args:
        args[2] += "-json"
    if "add" in args[:2]:
        args.append("--replace")
    if "remove" in args:
        assert main(["catalog", "seed", *args[-2:]]) == 0
        capsys.readouterr()
    status, out, err = run(capsys, [*args, "--json"])
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert records, f"{command} --json printed no record"
    for record in records:
        jsonschema.validate(record, schema(kind))


def test_stdin_and_csv(world: dict[str, Any], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = run(capsys, ["eval", "sowing", "-", "--format", "csv"], "312\n% c\n2202\n", monkeypatch)
    assert status == 0 and [line.split(",")[:2] for line in out.splitlines()[1:]] == [["312", "{0|-2}"], ["2202", "↑"]]
    status, out, _ = run(capsys, ["query", *expand(REMOTE, world), "sowing", "-", "--json"], "312\n", monkeypatch)
    assert status == 0 and json.loads(out)["value"] == "{0|-2}"  # '-' is stdin for query too
    status, out, _ = run(capsys, ["value", "-", "--json"], "-1/2\n^\n", monkeypatch)
    assert status == 0 and [json.loads(line)["value"] for line in out.splitlines()] == ["-1/2", "↑"]
    status, out, _ = run(capsys, ["load", *expand(REMOTE, world), "sowing", "-", "--json"], "312\n", monkeypatch)
    assert status == 0 and json.loads(out)["total"] == 1


def test_eval_and_query_print_the_same_record(world: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    _, local, _ = run(capsys, ["eval", "sowing", "2202", "(10)^3 03 (01)^2", "--json"])
    _, remote, _ = run(capsys, ["query", *expand(REMOTE, world), "sowing", "2202", "(10)^3 03 (01)^2", "--json"])
    for mine, theirs in zip(map(json.loads, local.splitlines()), map(json.loads, remote.splitlines())):
        for volatile in ("stats", "from_store", "components"):
            mine.pop(volatile), theirs.pop(volatile)
        assert mine == theirs


def test_find_answers_none_within_the_bound_with_exit_0(world: dict[str, Any], capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    status, out, err = run(capsys, ["find", "sowing", "*9", "--seeds", "3", "--data", str(world["local"]),
                                    "--workers", "1"])
    assert status == 0 and out.startswith("# searched sowing: every row of")
    assert err.splitlines() == ["ruma find: no sowing position of value ∗9 in this bound"]


def test_from_store_only_when_a_store_was_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 312 = •12 as its one component (Erickson 1996, §2): the second is found in this run's memory
    _, out, _ = run(capsys, ["eval", "sowing", "312", "312", "--json"])
    assert [(r["from_store"], r["components"][0]["from_store"]) for r in map(json.loads, out.splitlines())] == [
        (False, False), (False, False)]
    data = str(tmp_path / "data")
    run(capsys, ["eval", "sowing", "312", "--data", data, "--json"])
    _, out, _ = run(capsys, ["eval", "sowing", "312", "--data", data, "--json"])
    assert json.loads(out)["from_store"] is True


# -- bad input ---------------------------------------------------------------------------------------
# (argv, exit status, text the one line must contain)
BAD: list[tuple[list[str], int, str]] = [
    (["value", "{1|0"], 2, "'{1|0'"),
    (["value", "--format", "unicode", "^"], 2, "--notation unicode"),
    (["eval", "sowing", "3x2"], 2, "'3x2'"),
    (["eval", "no-such-game", "1"], 2, "'no-such-game'"),
    (["eval", "sowing", "9^80"], 2, "--max-pots"),
    (["eval", "sowing", "1^30", "--max-positions", "50"], 2, "--max-positions"),
    (["eval", "sowing", "312", "--max-positions", "-5"], 2, "'-5'"),
    (["eval", "sowing", "312", "--data", "/etc/passwd"], 3, "'/etc/passwd'"),
    (["eval", "sowing", "312", "--bogus"], 2, "--bogus"),
    (["options", "sowing", "3x2"], 2, "'3x2'"),
    (["octal", "0.9"], 2, "'0.9'"),
    (["octal", "0.37", "--count", "-1"], 2, "'-1'"),
    (["p-positions", "sowing", "312"], 2, "not impartial"),
    (["nim-values", "sowing", "312"], 2, "not impartial"),
    (["tchoukaillon", "board", "12x"], 2, "'12x'"),
    (["serve", "--port", "99999"], 2, "'99999'"),
    (["serve", "--port", "-5"], 2, "'-5'"),
    (["serve", "--port", "65536"], 2, "'65536'"),
    (["serve", "--data", "/etc/passwd"], 3, "'/etc/passwd'"),
    (["serve", "--host", "0.0.0.0", "--data", "{root}/open"], 2, "token"),
    (["store", "stats", "--data", "/etc/passwd"], 3, "'/etc/passwd'"),
    (["store", "stats", "--data", "{root}/typo"], 3, "typo"),
    (["store", "verify", "--data", "{root}/typo"], 3, "typo"),
    (["catalog", "list", "--data", "/etc/passwd"], 3, "'/etc/passwd'"),
    (["catalog", "list", "--data", "{root}/typo"], 3, "typo"),
    (["catalog", "show", "no-such-name", "--data", "{local}"], 2, "'no-such-name'"),
    (["catalog", "search", "--stored", "--ruleset", "sowing", "--value", "*7", "--data", "{local}"], 1, "no stored"),
    (["catalog", "search", "--name", "zzz-nothing", "--data", "{local}"], 1, "no named positions"),
    (["catalog", "search", "--stored", "--data", "{local}"], 2, "--ruleset"),
    (["theorem", "add", "bad", "--ruleset", "sowing", "--family", "11(01)^n", "--claim", "{n|", "--domain", "n>=1",
      "--data", "{local}"], 2, "'{n|'"),
    (["theorem", "add", "wrong-claim", "--ruleset", "sowing", "--family", "(01)^m 2 (01)^n", "--claim", "n",
      "--domain", "m>=0,n>=0,not(m=0,n=0)", "--data", "{local}", "--replace"], 0, ""),
    (["theorem", "verify", "wrong-claim", "--up-to", "2", "--data", "{local}"], 1, ""),
    (["query", *REMOTE, "sowing", "3x2"], 2, "'3x2'"),
    (["query", *REMOTE, "no-such-game", "1"], 2, "'no-such-game'"),
    (["query", "--server", "{server}", "sowing", "312"], 2, "--token"),
    (["query", "--server", "127.0.0.1:99999", "sowing", "312"], 2, "'127.0.0.1:99999'"),
    (["query", "--server", "127.0.0.1:{dead}", "--token", "{token}", "sowing", "312"], 3, "ruma serve running"),
    (["query", "--server", "localhost", "sowing", "312"], 3, "localhost:50051"),
    (["query", *REMOTE, "--lookup", "sowing", "4^9"], 1, "not stored"),
    (["load", *REMOTE, "no-such-game", "{positions}"], 2, "'no-such-game'"),
    (["load", "--server", "127.0.0.1:{dead}", "sowing", "{positions}"], 3, "refused"),
    (["load", *REMOTE, "sowing", "{root}/missing.txt"], 2, "missing.txt"),
    (["catalog", "add", "x", "--ruleset", "sowing", "--position", "312", "--server", "{server}"], 2, "token"),
    (["db", "current", "--catalog", "nonsense://"], 2, "--catalog"),
    (["find", "sowing", "{1|", "--seeds", "3", "--data", "{local}"], 2, "'{1|'"),
    (["find", "sowing", "*", "--seeds", "3..x", "--data", "{local}"], 2, "'3..x'"),
]


@pytest.mark.parametrize("argv, status, quoted", BAD, ids=[" ".join(a[:3]) for a, _, _ in BAD])
def test_bad_input(world: dict[str, Any], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                   argv: list[str], status: int, quoted: str) -> None:
    monkeypatch.delenv("RUMA_SERVER", raising=False)
    monkeypatch.delenv("RUMA_TOKEN", raising=False)
    if "localhost" in argv and _listening(50051):
        pytest.skip("something listens on localhost:50051")
    args = [a.replace("{dead}", str(free_port())) for a in expand(argv, world)]
    started = time.monotonic()
    got, out, err = run(capsys, args)
    assert got == status, err
    assert "Traceback" not in err and "StatusCode" not in err and "add_port.cc" not in err
    assert not re.search(r"\b(INVALID_ARGUMENT|UNAVAILABLE|UNAUTHENTICATED|PERMISSION_DENIED|RESOURCE_EXHAUSTED|"
                         r"DEADLINE_EXCEEDED|NOT_FOUND|FAILED_PRECONDITION)\b", err), err
    assert time.monotonic() - started < 30
    if status == 0:
        return
    lines = err.splitlines()
    prog = "ruma " + " ".join(a for a in argv[:2] if not a.startswith("-") and "{" not in a)
    assert len(lines) == 1, err
    assert lines[0].startswith(prog.split()[0] + " " + argv[0]) and quoted in lines[0], lines[0]
    for name in ("typo", "open"):
        assert not (world["root"] / name).exists(), "a read-only command created a data directory"


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_no_command_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["--help"]) == 0 and "COMMAND" in capsys.readouterr().out
    assert main(["tchoukaillon"]) == 2


def test_a_command_line_loads_only_its_commands_module_and_parses_as_the_full_parser_does() -> None:
    import argparse

    from ruma.client.cli.main import _commands

    full = build_parser()

    def helps(parser: argparse.ArgumentParser, command: str) -> str:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return action.choices[command].format_help()

    for command in sorted(_commands(full)):
        own = build_parser(command)
        assert command in _commands(own), f"OWNERS misses {command!r}"
        assert len(_commands(own)) < len(_commands(full))  # (one module's commands, not all)
        assert helps(own, command) == helps(full, command)
    assert _commands(build_parser("no-such-command")) == _commands(full)


def test_help_is_fast_and_never_imports_grpc_or_rich() -> None:
    code = "import sys; from ruma.client.cli.main import build_parser; build_parser(); " \
           "print(sorted(m for m in ('grpc', 'rich', 'argcomplete', 'sqlalchemy', 'lmdb') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_request_log_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The server logs one line per call: method, peer, status, milliseconds."""
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{TOKEN} write\n")
    with serving(tmp_path / "data", "--token-file", str(tokens)) as (process, address):
        assert main(["query", "--server", address, "--token", TOKEN, "sowing", "21"]) == 0
        assert main(["query", "--server", address, "sowing", "21"]) == 2  # no token
        process.terminate()
        assert process.wait(30) == 0
    lines = [line for line in serve_log(tmp_path / "data").read_text().splitlines() if "ruma.requests" in line]
    ok = [line for line in lines if "/ruma.v1.Ruma/EvaluateBatch" in line and " OK " in line]
    refused = [line for line in lines if "/ruma.v1.Ruma/EvaluateBatch" in line and " UNAUTHENTICATED " in line]
    assert len(ok) == 1 and len(refused) == 1, lines
    method, peer, status, milliseconds, unit = ok[0].split()[-5:]
    assert method == "/ruma.v1.Ruma/EvaluateBatch" and peer.startswith("ipv4:127.0.0.1:") and status == "OK"
    assert unit == "ms" and float(milliseconds) >= 0
