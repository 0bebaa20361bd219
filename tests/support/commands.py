"""The ``ruma`` command line in a fresh process, and a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys


def ruma(*args: str, timeout: float = 300, check: bool = False) -> subprocess.CompletedProcess[str]:
    """``ruma ARGS`` in a fresh process (``python -m ruma.client.cli``, the console command's own
    code), its output captured; the caller's ``RUMA_TOKEN`` is not passed on."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("RUMA_TOKEN", None)
    return subprocess.run([sys.executable, "-m", "ruma.client.cli", *args], capture_output=True, text=True,
                          timeout=timeout, check=check, env=env)


def free_port() -> int:
    """A loopback port nobody listens on (at the moment it is asked for)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
