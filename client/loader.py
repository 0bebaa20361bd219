"""Bulk loading: value many positions on a server, in batches, retrying when it is unavailable.

``load(client, positions, ruleset, batch_size=256, progress=None)`` sends ``EvaluateBatch`` calls
(``brief``: no components or analyses come back; two batches in flight) and returns a ``LoadSummary``: how many
positions were valued now, how many were already stored, and which failed and why. A batch that
fails with ``UNAVAILABLE`` (server restarting, connection refused) is retried with exponential
backoff; other call-level failures fail the batch's positions with that reason.

``progress``: ``None`` draws a bar on stderr when stderr is a terminal, ``False`` never does,
``True`` always does, and a callable receives ``(done, total)`` after every batch.
"""

from __future__ import annotations

import csv
import json
import random
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, TextIO

import grpc

from ruma.client.results import LoadSummary
from ruma.engine.errors import RumaInputError

if TYPE_CHECKING:
    from ruma.client.client import Client

ProgressCallback = Callable[[int, int], None]


class ProgressBar:
    """A one-line progress bar on a stream (no dependency; redraws at most 10 times a second)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.total, self.stream, self.width = total, stream, width
        self.started = time.monotonic()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        fraction = done / total if total else 1.0
        filled = int(self.width * fraction)
        rate = done / max(now - self.started, 1e-9)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {rate:,.0f}/s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def read_positions(path: str | Path) -> list[str]:
    """Positions from a file: one a line, or a ``.csv`` / ``.jsonl`` with a ``position`` column/field."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise RumaInputError(f"cannot read {str(path)!r}: {error.strerror}") from error
    suffix = file.suffix.lower()
    if suffix == ".csv":
        rows = csv.DictReader(text.splitlines())
        if rows.fieldnames is None or "position" not in rows.fieldnames:
            raise RumaInputError(f"{str(path)!r} has no 'position' column (columns: {rows.fieldnames})")
        return [row["position"].strip() for row in rows if (row.get("position") or "").strip()]
    if suffix == ".jsonl":
        positions = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise RumaInputError(f"{str(path)!r} line {number} is not JSON: {line.strip()!r}") from error
            if not isinstance(record, dict) or "position" not in record:
                raise RumaInputError(f"{str(path)!r} line {number} has no 'position' field: {line.strip()!r}")
            positions.append(str(record["position"]).strip())
        return positions
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _batches(positions: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(positions), size):
        yield positions[start : start + size]


def _send(client: "Client", ruleset: str, batch: list[str], timeout: float | None, max_retries: int,
          initial_backoff: float, max_backoff: float) -> tuple[list[tuple[str, int, str, bool]], int, str | None]:
    """One batch with retries on UNAVAILABLE: ``(items, retries, call error)``; each item is
    ``(position, status code, message, already stored)``."""
    from ruma.client.client import RumaRpcError
    from ruma.v1 import ruma_pb2 as pb

    request = pb.EvaluateBatchRequest(ruleset=ruleset, positions=batch, notations=[pb.NOTATION_ASCII], brief=True)
    backoff = initial_backoff
    retries = 0
    while True:
        try:
            reply = client.call(client.stub.EvaluateBatch, request, timeout)
        except RumaRpcError as error:
            if error.code == grpc.StatusCode.UNAVAILABLE and retries < max_retries:
                retries += 1
                time.sleep(backoff * (0.5 + random.random()))
                backoff = min(backoff * 2, max_backoff)
                continue
            return [], retries, str(error)
        items = []
        for item in reply.items:
            evaluation = item.evaluation
            items.append((item.position, item.status.code, item.status.message,
                          evaluation.from_store or evaluation.shared))
        return items, retries, None


def load(
    client: "Client",
    positions: Iterable[str],
    ruleset: str,
    *,
    batch_size: int = 256,
    progress: bool | ProgressCallback | None = None,
    max_retries: int = 8,
    initial_backoff: float = 0.2,
    max_backoff: float = 10.0,
    timeout: float | None = None,
    concurrency: int = 2,
) -> LoadSummary:
    """Value every position on the server; returns what happened to each (see module docstring).

    ``concurrency`` batches are in flight at once, so the server values one while this process
    sends the next and reads the previous reply.
    """
    from concurrent.futures import ThreadPoolExecutor

    from ruma.client.client import _code_name

    if batch_size < 1:
        raise RumaInputError(f"batch size must be at least 1, got {batch_size!r}")
    todo = list(positions)
    summary = LoadSummary()
    report: ProgressCallback | None
    if callable(progress):
        report = progress
    elif progress or (progress is None and sys.stderr.isatty()):
        report = ProgressBar(len(todo))
    else:
        report = None
    started = time.monotonic()
    done = 0
    with ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="ruma-load") as pool:
        futures = [pool.submit(_send, client, ruleset, batch, timeout, max_retries, initial_backoff, max_backoff)
                   for batch in _batches(todo, batch_size)]
        for batch, future in zip(_batches(todo, batch_size), futures):
            items, retries, error = future.result()
            summary.retries += retries
            if error is not None:
                summary.failed.extend((position, error) for position in batch)
            for position, code, message, stored in items:
                if code:
                    summary.failed.append((position, f"{_code_name(code)}: {message}"))
                elif stored:
                    summary.already_stored += 1
                else:
                    summary.valued += 1
            done += len(batch)
            if report is not None:
                report(done, len(todo))
    if report is not None and not todo:
        report(0, 0)
    summary.seconds = time.monotonic() - started
    return summary
