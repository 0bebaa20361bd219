"""The README is the contract: its quick start and every example of "Using it", as written.

A copy of the checkout gets a fresh virtual environment through the quick start's own commands
(``python3 -m venv .venv && . .venv/bin/activate && pip install ...``), once for the module:

* the first command is run as written, except that ``ruma serve`` gets a free ``--port`` (a
  test must not take 50051 from a server someone else runs) — the examples then find it through
  ``RUMA_SERVER``, as a user with a server elsewhere would;
* the second command is run as written up to pytest collecting the suite (running the whole
  suite from inside itself would recurse; ``.ci/run`` runs that command verbatim);
* every command of the "Using it" shell blocks runs in a shell with the environment activated, in
  the copy's directory, against that server: exit 0, output, no traceback (``ruma web``, which
  serves until stopped, runs in the background on a free ``--port`` until its home page answers);
  then the Python block.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from tests.support import ROOT
from tests.support.commands import free_port

README = (ROOT / "README.md").read_text(encoding="utf-8")

pytestmark = pytest.mark.slow


def blocks(section: str, language: str) -> list[str]:
    """The fenced ``language`` blocks of a README section (up to the next ``## `` heading)."""
    start = README.index(f"## {section}")
    end = README.find("\n## ", start + 3)
    text = README[start: end if end != -1 else None]
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def commands(block: str) -> list[str]:
    """The command lines of a shell block (comments and blank lines dropped, trailing comments kept)."""
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def checkout_copy(target: Path) -> Path:
    """The tracked and untracked (not ignored) files of the checkout, without .venv or data."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file() and not name.startswith((".venv", "ruma-data")):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def shell_env(port: int) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("RUMA_", "VIRTUAL_ENV", "PYTEST", "COV_"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(str(ROOT / ".venv")) and ".venv/bin" not in p)
    env["RUMA_SERVER"] = f"127.0.0.1:{port}"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_COMPILE"] = "1"  # no .pyc compiled at install time (imports compile what they use)
    return env


@pytest.fixture(scope="module")
def quick_start(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """The first quick-start command, run in a copy of the checkout (serving on a free port)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to copy")
    copy = checkout_copy(tmp_path_factory.mktemp("readme") / "ruma")
    first = commands(blocks("Quick start", "sh")[0])[0]
    assert first.endswith("ruma serve"), first
    port = free_port()
    env = shell_env(port)
    log = copy / "serve.log"
    with open(log, "w") as out:
        server = subprocess.Popen(["bash", "-c", f"{first} --port {port}"], cwd=copy, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 900  # the install downloads nothing new when pip's cache is warm
        while "listening on" not in log.read_text():
            assert server.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "ruma serve did not start:\n" + log.read_text()
            time.sleep(0.5)
        yield copy, env
    finally:
        if server.poll() is None:
            os.killpg(server.pid, 15)  # the shell and the ruma serve it started
            server.wait(60)
        output = log.read_text()
        assert "Traceback" not in output, output


def run_line(line: str, copy: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f". .venv/bin/activate && {line}"], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_second_quick_start_command_installs_the_tests(quick_start: tuple[Path, dict[str, str]]) -> None:
    copy, env = quick_start
    second = commands(blocks("Quick start", "sh")[1])[0]
    assert second.endswith("python -m pytest"), second
    done = subprocess.run(["bash", "-c", second + " --collect-only -q -p no:cacheprovider"], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"\d+ tests collected", done.stdout), done.stdout[-2000:]


def serves_until_stopped(line: str) -> bool:
    return line.startswith("ruma web ")


def test_using_it_examples(quick_start: tuple[Path, dict[str, str]]) -> None:
    copy, env = quick_start
    lines = [line for block in blocks("Using it", "sh") for line in commands(block)]
    assert len(lines) >= 20
    for line in lines:
        if serves_until_stopped(line):
            check_web(line, copy, env)
            continue
        done = run_line(line, copy, env)
        shown = f"$ {line}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        assert done.returncode == 0, shown
        assert "Traceback" not in done.stderr, shown
        quiet = "> positions.txt" in line or line.startswith("pip install") or " -o " in line
        assert done.stdout.strip() or quiet, shown
        for output in re.findall(r" -o (\S+)", line):
            assert (copy / output).stat().st_size > 0, f"{line}: no {output}"


def check_web(line: str, copy: Path, env: dict[str, str]) -> None:
    """Run a ``ruma web`` line in the background on a free port until its home page answers."""
    import urllib.request

    port = free_port()
    command = re.sub(r"--port \d+", f"--port {port}", line.split("#")[0])
    log = copy / "web.log"
    with open(log, "w") as out:
        web = subprocess.Popen(["bash", "-c", f". .venv/bin/activate && exec {command}"], cwd=copy, env=env,
                               stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert web.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/sowing/312", timeout=5) as page:
                    assert page.status == 200 and "{0|-2}" in page.read().decode()
                    break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
    finally:
        os.killpg(web.pid, 15)
        web.wait(30)
    assert "Traceback" not in log.read_text(), log.read_text()


def test_using_it_python(quick_start: tuple[Path, dict[str, str]]) -> None:
    copy, env = quick_start
    (python_block,) = blocks("Using it", "python")
    done = subprocess.run([str(copy / ".venv" / "bin" / "python"), "-c", python_block], cwd=copy, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "{0|-2}" and out[1] == "1↑ True True" and out[2].startswith("<Evaluation sowing '312' = {0|-2}")
    assert "positions" in out[3]


def test_python_and_ruma_come_from_the_fresh_venv(quick_start: tuple[Path, dict[str, str]]) -> None:
    copy, env = quick_start
    done = run_line("command -v ruma && python -c 'import ruma, sys; print(ruma.__file__)'", copy, env)
    assert done.returncode == 0 and done.stdout.splitlines()[0] == str(copy / ".venv" / "bin" / "ruma"), done.stdout
    assert str(copy / ".venv") in done.stdout.splitlines()[1] and sys.prefix not in done.stdout.splitlines()[1]
