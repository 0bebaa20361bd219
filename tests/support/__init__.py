"""What the tests share: harnesses (a real server, ``ruma serve``, the explorer, commands in a fresh
process), store readers, random inputs, and oracles independent of ruma (brute force, the cgt-py and
pycgt reference evaluators, reading SVG back)."""

from __future__ import annotations

from pathlib import Path

#: the repository root
ROOT = Path(__file__).resolve().parents[2]
#: stores an older ruma wrote (``data/store-v1``, ``data/store-v2``)
DATA = ROOT / "tests" / "data"
