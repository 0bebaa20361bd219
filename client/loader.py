"""Bulk loading: value many positions on a server, in batches.

``load(client, ruleset, positions, batch_size=256, progress=None)`` sends ``EvaluateBatch`` calls
(``brief``: no components or analyses come back; two batches in flight) and returns a
``LoadSummary``: how many positions were valued now, how many were already stored, and which
failed and why. A position the server refuses fails alone; a call the server refuses as a whole
(unknown ruleset, missing token, unreachable server) stops the load at once with that
``RumaRpcError`` (its ``summary`` holds what was done before), so the same problem is reported
once. Calls that fail with ``UNAVAILABLE`` were already retried by gRPC's ``retryPolicy`` (see
``ruma.client.client``). Loading is idempotent: a rerun skips what is stored.

``progress``: ``None`` or ``True`` shows a progress bar on stderr when it is a terminal, ``False``
never does, and a callable receives ``(done, total)`` after every batch.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

import grpc

from ruma.client.results import LoadSummary
from ruma.engine.errors import RumaInputError

if TYPE_CHECKING:
    from ruma.client.client import Client

ProgressCallback = Callable[[int, int], None]


def read_positions(path: str | Path) -> list[str]:
    """Positions from a file (``-``: standard input): one a line (blank lines and ``#`` comments
    skipped), or a ``.csv`` / ``.jsonl`` with a ``position`` column/field."""
    file = Path(path)
    try:
        text = sys.stdin.read() if str(path) == "-" else file.read_text(encoding="utf-8")
    except OSError as error:
        raise RumaInputError(f"cannot read {str(path)!r}: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise RumaInputError(f"cannot read {str(path)!r}: not UTF-8 text ({error.reason} at byte {error.start})") from None
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


_CALL_FAILS_ONE_BATCH = (grpc.StatusCode.DEADLINE_EXCEEDED,)


def _send(client: "Client", ruleset: str, batch: list[str], timeout: float | None
          ) -> tuple[list[tuple[str, int, str, bool]], str | None]:
    """One batch: ``(items, error)``; each item is ``(position, status code, message, already
    stored)``; ``error`` is the reason when the batch's deadline passed. Other call failures raise."""
    from ruma.client.client import RumaRpcError
    from ruma.v1 import ruma_pb2 as pb

    request = pb.EvaluateBatchRequest(ruleset=ruleset, positions=batch, notations=[pb.NOTATION_ASCII], brief=True)
    try:
        reply = client.call(client.stub.EvaluateBatch, request, timeout)
    except RumaRpcError as error:
        if error.code in _CALL_FAILS_ONE_BATCH:
            return [], f"deadline exceeded: {error.details}"
        raise
    items = [(item.position, item.status.code, item.status.message, item.evaluation.from_store or item.evaluation.shared)
             for item in reply.items]
    return items, None


def load(
    client: "Client",
    ruleset: str,
    positions: Iterable[str],
    *,
    batch_size: int = 256,
    progress: bool | ProgressCallback | None = None,
    timeout: float | None = None,
    concurrency: int = 2,
) -> LoadSummary:
    """Value every position on the server; returns what happened to each (see module docstring).

    ``concurrency`` batches are in flight at once, so the server values one while this process
    sends the next and reads the previous reply.
    """
    from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

    from ruma.client.cli.output import progress as progress_display
    from ruma.client.client import RumaRpcError, status_code

    if batch_size < 1:
        raise RumaInputError(f"batch size must be at least 1, got {batch_size!r}")
    todo = list(positions)
    summary = LoadSummary()
    started = time.monotonic()
    done = 0
    enabled = False if progress is False or callable(progress) else None

    def count(batch: list[str], items: list[tuple[str, int, str, bool]], error: str | None) -> None:
        if error is not None:
            summary.failed.extend((position, error) for position in batch)
        for position, code, message, stored in items:
            if code:
                summary.failed.append((position, message or status_code(code).name.lower().replace("_", " ")))
            elif stored:
                summary.already_stored += 1
            else:
                summary.valued += 1

    with progress_display(f"loading {ruleset}", total=len(todo), enabled=enabled) as bar, \
            ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="ruma-load") as pool:
        report: ProgressCallback = progress if callable(progress) else bar.update
        batches = list(_batches(todo, batch_size))
        futures = {pool.submit(_send, client, ruleset, batch, timeout): batch for batch in batches}
        batches_order = {future: n for n, future in enumerate(futures)}
        pending = set(futures)
        while pending:  # batches are counted as they end (in any order), so a failure loses none of them
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            failure = next((f.exception() for f in finished if f.exception() is not None), None)
            for future in sorted(finished, key=batches_order.__getitem__):
                if future.exception() is None:
                    count(futures[future], *future.result())
                    done += len(futures[future])
                    report(done, len(todo))
            if failure is not None:
                for future in pending:
                    future.cancel()
                for future in pending:  # what was under way when the call failed, if it was answered
                    if not future.cancelled() and future.exception(timeout=None) is None:
                        count(futures[future], *future.result())
                summary.seconds = time.monotonic() - started
                if isinstance(failure, RumaRpcError):
                    failure.summary = summary  # type: ignore[attr-defined]
                raise failure
    summary.seconds = time.monotonic() - started
    return summary
