"""The summary of a sweep (the ``--json`` record of ``ruma sweep``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class SweepSummary:
    """What a sweep did (the ``--json`` record of ``ruma sweep``)."""

    ruleset: str
    seeds: tuple[int, int]
    pots: tuple[int, int]
    classes: int
    raw_positions: int
    already_stored: int
    classes_valued: int
    positions_valued: int
    entries_committed: int
    seconds: float
    workers: int
    backend: str
    worker_cpu_seconds: float = 0.0
    """CPU seconds the workers spent (0 for an inline sweep: all of it is the driver's)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        record = asdict(self)
        record["seeds"], record["pots"] = list(self.seeds), list(self.pots)
        record["seconds"] = round(self.seconds, 3)
        record["worker_cpu_seconds"] = round(self.worker_cpu_seconds, 3)
        return record
