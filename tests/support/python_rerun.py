"""The second engine's run of the ``both_engines`` tests, in the background.

The suite runs on the compiled engine; ``tests/engine/test_native_engine.py`` checks that the tests
marked ``both_engines`` also pass with ``RUMA_ENGINE=python``. That run is a pytest of its own in a
subprocess, at a lower CPU priority, so it uses the time the rest of the suite leaves idle without
slowing the tests that measure latencies. In a run on one process it starts as soon as the suite's
collection has selected the test that checks it (``tests/conftest.py``), and that test is moved to
the end of the run and waits for it there; on pytest-xdist's workers the test is moved to the front,
and the worker that gets it starts the run and waits for it while the other workers go on.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from tests.support import ROOT

#: the test that checks the run (its node id ends so)
CHECK = "test_native_engine.py::test_engine_level_tests_pass_on_the_python_engine"
#: set in the run's own environment: it never starts another
NESTED = "RUMA_TEST_PYTHON_RERUN"
NICENESS = 10


@dataclass
class Rerun:
    """A started run: its process and the file its output goes to."""

    process: subprocess.Popen[bytes]
    output: IO[bytes]

    def result(self, timeout: float = 3600) -> tuple[int, str]:
        """Wait for the run; its exit status and its output's last 30 lines."""
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.output.seek(0)
        text = self.output.read().decode(errors="replace")
        self.output.close()
        return code, "\n".join(text.splitlines()[-30:])


def start() -> Rerun | None:
    """Start the run (``None`` inside a run: it never starts another)."""
    if os.environ.get(NESTED):
        return None
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
           "RUMA_ENGINE": "python", NESTED: "1"}
    output = tempfile.TemporaryFile()
    process = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-m", "both_engines",
                                str(ROOT / "tests")], stdout=output, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                               preexec_fn=lambda: os.nice(NICENESS))
    return Rerun(process, output)


def stop(rerun: Rerun | None) -> None:
    """End a run nobody waited for (the session was interrupted)."""
    if rerun is not None and rerun.process.poll() is None:
        rerun.process.kill()
        rerun.process.wait()
    if rerun is not None and not rerun.output.closed:
        rerun.output.close()


def is_check(nodeid: str) -> bool:
    """Whether ``nodeid`` is the test that checks the run."""
    return Path(nodeid.split("::", 1)[0]).name + "::" + nodeid.split("::", 1)[-1] == CHECK
