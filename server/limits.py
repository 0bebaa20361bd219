"""The service's limits (kept apart from the servicer so that ``ruma --help`` does not import grpc)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server (``None``: unlimited)."""

    max_pots: int | None = 64
    max_seeds: int | None = 512
    max_positions: int | None = 5_000_000
    max_batch_size: int = 10_000
