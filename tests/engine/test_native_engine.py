"""Which engine runs: the compiled core, the pure-Python fallback, ``RUMA_ENGINE`` and ``--version``.

Also the second engine's run of the engine-level tests: the suite runs on the compiled engine (the
default wherever the extension is built) and this module re-runs the tests of everything whose
code differs between the engines — the five row-of-pots rulesets, the evaluator, the CGT kernel,
evaluation into the LMDB store; the tests marked ``both_engines`` — in a subprocess with
``RUMA_ENGINE=python``, so CI runs them once per engine with the README's single test command (the
run starts in the background as soon as the suite is collected: ``tests/support/python_rerun.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import ROOT, python_rerun


def run_python(code: str, engine: str | None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "RUMA_ENGINE"} | env
    if engine is not None:
        environment["RUMA_ENGINE"] = engine
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment,
                          timeout=300, cwd=ROOT)


VERSION = "from ruma.client.cli import main; main(['--version'])"


def test_compiled_engine_is_the_default_where_built() -> None:
    out = run_python(VERSION + "\n", None)
    assert out.returncode == 0 and out.stdout.strip() == "ruma 0.1.0 (engine: c (compiled core))", out
    assert out.stderr == ""
    check = run_python("from ruma.engine.rulesets import get_ruleset\n"
                       "from ruma.engine.cgt.game import KERNEL\n"
                       "print(type(get_ruleset('sowing')).__name__, KERNEL.__name__)", None)
    assert check.stdout.split() == ["CompiledSowing", "ruma.engine.native._core.kernel"], check


def test_python_engine_is_forced_by_the_environment() -> None:
    out = run_python(VERSION, "python")
    assert out.stdout.strip() == "ruma 0.1.0 (engine: python (RUMA_ENGINE=python))", out
    check = run_python("from ruma.engine.rulesets import get_ruleset\n"
                       "from ruma.engine.rulesets.sowing import SOWING\n"
                       "from ruma.engine.cgt.game import KERNEL\n"
                       "print(get_ruleset('sowing') is SOWING, KERNEL.__name__)", "python")
    assert check.stdout.split() == ["True", "ruma.engine.cgt.kernel"], check
    assert run_python(VERSION, "c").stdout.strip() == "ruma 0.1.0 (engine: c (compiled core))"


def test_bad_engine_name_is_a_clear_error() -> None:
    out = run_python(VERSION, "fortran")
    assert out.stdout.strip() == "ruma 0.1.0 (engine: none, RUMA_ENGINE='fortran' is neither 'c' nor 'python')"
    out = run_python("from ruma.client.cli import main; raise SystemExit(main(['eval', 'sowing', '312']))",
                     "fortran")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "RUMA_ENGINE='fortran' is neither 'c' nor 'python'" in out.stderr


MISSING_CORE = (
    "import sys\n"
    "sys.modules['ruma.engine.native._core'] = None  # as if the extension had not been built\n"
    "from ruma.engine.evaluator import evaluate\n"
    "print(evaluate('sowing', '312').value, evaluate('impartial-sowing', '1^8').value, "
    "evaluate('atomic-wari', '312').value)\n"
    "from ruma.engine.native import describe\n"
    "print(describe())\n"
)


def test_without_the_extension_ruma_warns_once_and_runs_python() -> None:
    out = run_python(MISSING_CORE, None)
    assert out.returncode == 0, out
    lines = out.stdout.splitlines()
    assert lines[0] == "{0|-2} 0 ↑" and lines[1].startswith("engine: python (ModuleNotFoundError")
    assert out.stderr.splitlines() == [
        "ruma: the compiled engine is not built (no C compiler at install?); running the slower pure-Python engine"
    ]
    insisted = run_python(MISSING_CORE, "c")
    assert insisted.returncode != 0 and "RUMA_ENGINE=c but the compiled engine is not built" in insisted.stderr


@pytest.mark.slow
def _source_copy(tmp_path: Path) -> Path:
    """The tree as a fresh clone has it (no build outputs), for a build from scratch."""
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.so", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", "ruma-data",
        "artifacts"))
    return source


def _wheel_with(tmp_path: Path, cc: str) -> tuple[subprocess.CompletedProcess[str], Path, dict[str, str]]:
    """``pip wheel -q`` of the tree built with the C compiler ``cc``: pip's output, the wheel, the
    environment it was built in."""
    wheels = tmp_path / "wheels"
    env = {**os.environ, "CC": cc, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                            str(_source_copy(tmp_path))], capture_output=True, text=True, env=env, timeout=900)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("ruma-*.whl")
    return built, wheel, env


def _installed(tmp_path: Path, wheel: Path, env: dict[str, str]) -> Path:
    target = tmp_path / "site"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                                str(wheel)], capture_output=True, text=True, env=env, timeout=600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return target


def test_install_without_a_compiler_succeeds_and_says_so(tmp_path: Path) -> None:
    """``pip`` builds a wheel with no working C compiler (the extensions are optional), says on its
    own output (even with ``-q``) which extension could not be built, and that wheel runs on the
    pure-Python engine, saying so once."""
    built, wheel, env = _wheel_with(tmp_path, "/bin/false")
    said = [line for line in built.stderr.splitlines() if "could not be built" in line]
    assert [line.split()[4] for line in said] == ["ruma.engine.native._core", "ruma.server.store._native"], built.stderr
    assert all(line.startswith("ruma: the compiled extension ") and "pure-Python" in line for line in said)
    names = zipfile.ZipFile(wheel).namelist()
    assert "ruma/engine/native/__init__.py" in names and not [n for n in names if n.endswith(".so")]
    target = _installed(tmp_path, wheel, env)
    out = subprocess.run([sys.executable, "-c", MISSING_CORE.split("\n", 2)[2]], capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(target)}, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out
    assert out.stdout.splitlines()[0] == "{0|-2} 0 ↑"
    assert "not built" in out.stderr and len(out.stderr.splitlines()) == 1


NO_LTO = """#!/bin/sh
# gcc without its LTO plugin: it compiles with -flto, and fails to link with it
for arg in "$@"; do
  if [ "$arg" = "-flto" ]; then
    case " $* " in *" -c "*) exec gcc "$@";; esac
    echo "lto-wrapper: fatal error: could not run lto-wrapper" >&2
    exit 1
  fi
done
exec gcc "$@"
"""


def test_a_compiler_without_lto_builds_the_core_without_it(tmp_path: Path) -> None:
    """Where the compiler cannot link with ``-flto`` (no LTO plugin), the build retries without it,
    says so, and the wheel holds a compiled core that runs."""
    cc = tmp_path / "cc"
    cc.write_text(NO_LTO)
    cc.chmod(0o755)
    built, wheel, env = _wheel_with(tmp_path, str(cc))
    assert "ruma: building ruma.engine.native._core with link-time optimisation failed; trying without it" \
        in built.stderr.splitlines(), built.stderr
    assert "could not be built" not in built.stderr
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("ruma/engine/native/_core.") and n.endswith(".so") for n in names), names
    target = _installed(tmp_path, wheel, env)
    out = subprocess.run([sys.executable, "-c", "from ruma.engine.evaluator import evaluate\n"
                          "from ruma.engine.native import describe\n"
                          "print(evaluate('sowing', '312').value, evaluate('impartial-sowing', '1^8').value)\n"
                          "print(describe())"], capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(target), "RUMA_ENGINE": "c"}, cwd=tmp_path, timeout=300)
    assert out.returncode == 0 and out.stderr == "", out
    assert out.stdout.splitlines() == ["{0|-2} 0", "engine: c (compiled core)"]


@pytest.mark.slow
def test_engine_level_tests_pass_on_the_python_engine(python_engine_rerun: python_rerun.Rerun | None) -> None:
    if python_engine_rerun is None:
        pytest.skip("this is the pure-Python engine's re-run itself")
    code, tail = python_engine_rerun.result()
    assert code == 0, tail
    assert " passed" in tail and "failed" not in tail, tail
