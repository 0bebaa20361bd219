"""Bulk loading: value many positions on a server, each with its own outcome.

``load(client, ruleset, positions, batch_size=256, progress=None, max_seconds=0)`` returns a
``LoadSummary``: how many positions were valued now, how many the server stored before they were
sent, and which failed and why. What a load does, in order:

1. **Skip what is stored.** The canonical keys of the positions (computed here with the engine)
   are asked of the server's ``Sweeps.Contains`` in large batches; a stored position counts as
   done at once, so a rerun of a load that stopped starts where it ended and its progress is
   cumulative. (Positions this process cannot read, and servers without the ``Sweeps`` service,
   skip this step: the server answers stored positions from its store anyway.)
2. **Value the rest** in ``EvaluateBatch`` calls (``brief``: no components or analyses come back;
   ``concurrency`` calls in flight), each call sized to take about ``CALL_SECONDS`` (from one
   position up to ``batch_size``: doubled after a quick call, halved after a slow one), so that
   positions are counted as they finish, not in lumps. Every position has its own outcome and
   its own time: the server stops one that runs out of its time (``max_seconds`` each, else the
   server's limit a request) or of the memory budget alone, and values the others. A position
   the server's limit a call kept from its time — not started before the call's time ran out,
   or stopped when the positions before it had taken most of it, or in a call whose worker never
   answered (the server's words ``send it again`` / ``send it alone``) — is sent again, alone in
   a call of its own when it was cut short, when it comes back a second time or when its call got
   nowhere, up to ``RESENDS`` times (then that reason stands): a heavy neighbour never costs a
   cheap position its time, and a position reported out of time had the whole of it. A position
   the server refuses fails alone, with the server's reason.
3. **A call that fails as a whole** (its deadline passed, the server was out of resources or met
   an internal error) is split in two and each half sent again, down to single positions, so that
   one heavy position never takes its batch with it; a single position whose call fails gets that
   failure as its reason.
4. **Positions refused for want of capacity** (the server's queue full, its memory budget in use:
   "try again later") are sent again after a pause, up to ``rounds`` times.
5. **Nothing stored is reported failed.** The positions that failed are asked of the server's
   store once more at the end (``Sweeps.Contains``): one it holds by then (valued as another's
   follower, or its reply lost with a call that failed) counts as valued.

A call the server refuses for everyone (unknown ruleset, missing token, unreachable server) stops
the load at once with that ``RumaRpcError`` (its ``summary`` holds what was done before), so the
same problem is reported once. Calls that fail with ``UNAVAILABLE`` were already retried by
gRPC's ``retryPolicy`` (see ``ruma.client.client``). Loading is idempotent.

Files of positions (``read_positions``) hold one position a line; a line whose first character
(after spaces) is ``COMMENT`` (``%``, which starts no position in any ruleset's notation) is a
comment, and a line starting with ``#`` is a position (a full pot: ``#1^11#``).

``progress``: ``None`` or ``True`` shows a progress bar on stderr when it is a terminal (the time
left at the average pace since the stored positions were counted), ``False`` never does, and a
callable receives ``(done, total)`` whenever positions are done.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import grpc

from ruma.client.results import LoadSummary
from ruma.engine.errors import RumaInputError
from ruma.engine.rulesets.base import COMMENT

if TYPE_CHECKING:
    from ruma.client.client import Client, RumaRpcError

ProgressCallback = Callable[[int, int], None]

#: failures of a whole call that a smaller batch may not have: split the batch (a server that stays
#: UNAVAILABLE after gRPC's own retries, or a cancelled call, stops the load instead)
_SPLIT = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INTERNAL,
          grpc.StatusCode.UNKNOWN)
#: a position refused for want of capacity (the server's words) is sent again later
_LATER = "try again later"
#: a position the server's limit a call kept from its time (the server's words): sent again, in a
#: later call, or alone in a call of its own
_AGAIN, _ALONE = "send it again", "send it alone"
#: seconds before each further round of positions refused for want of capacity
PAUSES = (1.0, 3.0, 9.0)
#: the time a call should take: its number of positions follows (see the module docstring)
CALL_SECONDS = 2.0
#: positions in the first call (at most ``batch_size``)
FIRST_CALL = 32
#: times a position kept from its time by its neighbours is sent again
RESENDS = 2
_RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]


def read_positions(path: str | Path) -> list[str]:
    """Positions from a file (``-``: standard input): one a line (blank lines and ``%`` comments
    skipped; ``#`` starts a position, a full pot), or a ``.csv`` / ``.jsonl`` with a ``position``
    column/field."""
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
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(COMMENT)]


def write_failures(path: str | Path, failed: Sequence[tuple[str, str]]) -> None:
    """Write ``(position, reason)`` pairs so that ``read_positions`` reads the positions back (a
    rerun of the failures is ``ruma load RULESET FILE``): a ``.csv`` with ``position`` and
    ``reason`` columns, ``.jsonl`` records, or else text with each reason as a ``%`` comment line
    above its position."""
    file = Path(path)
    suffix = file.suffix.lower()
    out = io.StringIO()
    if suffix == ".csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["position", "reason"])
        writer.writerows(failed)
    elif suffix == ".jsonl":
        for position, reason in failed:
            out.write(json.dumps({"position": position, "reason": reason}, ensure_ascii=False) + "\n")
    else:
        for position, reason in failed:
            out.write("".join(f"{COMMENT} {line}\n" for line in reason.splitlines() or [""]) + position + "\n")
    try:
        file.write_text(out.getvalue(), encoding="utf-8")
    except OSError as error:
        raise RumaInputError(f"cannot write the failures to {str(path)!r}: {error.strerror}") from None


def _stored(client: "Client", ruleset: str, todo: Sequence[str], batch: int) -> list[bool | None]:
    """For each position, whether the server's store holds it (``Sweeps.Contains`` on the keys
    computed here; ``None`` where this process cannot tell)."""
    from ruma.client.client import RumaRpcError
    from ruma.engine.rulesets import get_ruleset

    try:
        rules = get_ruleset(ruleset)
    except RumaInputError:
        return [None] * len(todo)
    keys: list[bytes | None] = []
    for text in todo:
        try:
            keys.append(rules.canonical_key(rules.parse(text))[0])
        except Exception:  # noqa: BLE001 - the server gives the reason when it values the position
            keys.append(None)
    known = [i for i, key in enumerate(keys) if key is not None]
    found: list[bool | None] = [None] * len(todo)
    for start in range(0, len(known), batch):
        chunk = known[start:start + batch]
        try:
            answers = client.contains(ruleset, [keys[i] for i in chunk])  # type: ignore[misc]
        except RumaRpcError as error:
            if error.code in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT,
                              grpc.StatusCode.RESOURCE_EXHAUSTED):
                return found  # (no Sweeps service, another ruleset version, smaller batches: value the rest)
            raise
        for i, present in zip(chunk, answers):
            found[i] = present
    return found


#: one call's answer: per item ``(index, status code, message, from the store)``, the call's own
#: failure when it is one that a smaller batch may not have, and the call's seconds
Answer = tuple[list[tuple[int, int, str, bool]], "RumaRpcError | None", float]


class _Load:
    """One load's books: what is done, what is waiting, what to send again."""

    def __init__(self, client: "Client", ruleset: str, todo: list[str], batch_size: int, timeout: float | None,
                 max_seconds: float, report: ProgressCallback) -> None:
        self.client, self.ruleset, self.todo = client, ruleset, todo
        self.batch_size, self.timeout, self.max_seconds = batch_size, timeout, max_seconds
        self.report = report
        self.summary = LoadSummary()
        self.failed: dict[int, str] = {}  # index -> reason
        self.later: list[tuple[int, str]] = []  # (index, last reason) refused for want of capacity
        self.unstored: set[int] = set()  # positions the server's store did not hold when the load began
        self.pending: deque[int] = deque()  # positions to send, in calls of ``size``
        self.ready: deque[list[int]] = deque()  # calls made already (halves of a failed call, a position alone)
        self.size = min(batch_size, FIRST_CALL)
        self.resent: dict[int, int] = {}
        self.done = 0

    def finish(self, count: int) -> None:
        """Count ``count`` more positions done and report."""
        if count:
            self.done += count
            self.report(self.done, len(self.todo))

    def send(self, indices: list[int]) -> Answer:
        """One ``EvaluateBatch`` call (see ``Answer``)."""
        from ruma.client.client import RumaRpcError
        from ruma.v1 import ruma_pb2 as pb

        request = pb.EvaluateBatchRequest(ruleset=self.ruleset, positions=[self.todo[i] for i in indices],
                                          notations=[pb.NOTATION_ASCII], brief=True, max_seconds=self.max_seconds)
        started = time.monotonic()
        try:
            reply = self.client.call(self.client.stub.EvaluateBatch, request, self.timeout)
        except RumaRpcError as error:
            if error.code in _SPLIT:
                return [], error, time.monotonic() - started
            raise
        return ([(i, item.status.code, item.status.message, item.evaluation.from_store or item.evaluation.shared)
                 for i, item in zip(indices, reply.items)], None, time.monotonic() - started)

    def next_call(self) -> list[int]:
        """The positions of the next call: one made already, else the next ``size`` waiting."""
        if self.ready:
            return self.ready.popleft()
        return [self.pending.popleft() for _ in range(min(self.size, len(self.pending)))]

    def take(self, indices: list[int], items: list[tuple[int, int, str, bool]], error: "RumaRpcError | None",
             seconds: float) -> None:
        """Book a call's answer: its positions done, failed, or to send again (the halves of a
        failed call first); the size of the next calls from its time."""
        from ruma.client.client import status_code

        if error is not None:
            if len(indices) > 1:
                half = len(indices) // 2
                self.ready.extendleft([indices[half:], indices[:half]])
                return
            reason = error.details or error.code.name.lower().replace("_", " ")
            self.finish(self.fail(indices[0], reason, error.code == grpc.StatusCode.RESOURCE_EXHAUSTED))
            return
        if seconds < CALL_SECONDS / 2 and len(indices) >= self.size:
            self.size = min(self.batch_size, 2 * self.size)
        elif seconds > 2 * CALL_SECONDS:
            self.size = max(1, self.size // 2)
        count = 0
        again: list[int] = []
        for index, code, message, stored in items:
            if not code:
                if stored and index not in self.unstored:
                    self.summary.already_stored += 1
                else:
                    self.summary.valued += 1
                count += 1
            elif code == _RESOURCE_EXHAUSTED and (_AGAIN in message or _ALONE in message):
                if self.resent.get(index, 0) >= RESENDS:  # (the reason stands, without the advice)
                    count += self.fail(index, message.split(f"; {_AGAIN}")[0].split(f"; {_ALONE}")[0], False)
                    continue
                self.resent[index] = self.resent.get(index, 0) + 1
                if _ALONE in message or self.resent[index] > 1:
                    self.ready.append([index])
                else:
                    again.append(index)
            else:
                reason = message or status_code(code).name.lower().replace("_", " ")
                count += self.fail(index, reason, code == _RESOURCE_EXHAUSTED)
        if count:
            self.pending.extendleft(reversed(again))
        else:  # (a call that got nowhere — its worker stopped or never came: which position held it is unknown)
            self.ready.extend([index] for index in again)
        self.finish(count)

    def fail(self, index: int, reason: str, exhausted: bool) -> int:
        """A position that failed: kept to send again later when it was refused for want of
        capacity (0), else failed for good (1)."""
        if exhausted and _LATER in reason:
            self.later.append((index, reason))
            return 0
        self.failed[index] = reason
        return 1

    def recheck(self) -> None:
        """Count the failed positions the server's store holds by now as valued (step 5)."""
        from ruma.client.client import RumaRpcError

        failed = sorted(self.failed)
        try:
            found = _stored(self.client, self.ruleset, [self.todo[i] for i in failed], 1024) if failed else []
        except RumaRpcError:
            return  # (the failures stand as the server gave them)
        for index, present in zip(failed, found):
            if present:
                del self.failed[index]
                self.summary.valued += 1

    def close(self, started: float) -> LoadSummary:
        """The summary, failures in the order of the positions."""
        self.summary.failed = [(self.todo[i], reason) for i, reason in sorted(self.failed.items())]
        self.summary.seconds = time.monotonic() - started
        return self.summary

    def run(self, indices: list[int], concurrency: int) -> None:
        """Send every position of ``indices``, ``concurrency`` calls at a time, splitting the calls
        that fail as a whole and sending again the positions kept from their time."""
        self.pending.extend(indices)
        with ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="ruma-load") as pool:
            running: dict[Future[Answer], list[int]] = {}
            try:
                while self.pending or self.ready or running:
                    while (self.pending or self.ready) and len(running) < max(1, concurrency):
                        batch = self.next_call()
                        running[pool.submit(self.send, batch)] = batch
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in sorted(finished, key=lambda f: f.exception() is not None):
                        batch = running.pop(future)
                        self.take(batch, *future.result())
            except BaseException:
                for future in running:
                    future.cancel()
                for future, batch in running.items():  # the calls under way when the load stopped, if answered
                    if not future.cancelled() and future.exception() is None:
                        self.take(batch, *future.result())
                raise


def load(
    client: "Client",
    ruleset: str,
    positions: Iterable[str],
    *,
    batch_size: int = 256,
    progress: bool | ProgressCallback | None = None,
    timeout: float | None = None,
    concurrency: int = 2,
    max_seconds: float = 0.0,
    rounds: int = len(PAUSES),
) -> LoadSummary:
    """Value every position on the server; returns what happened to each (see the module docstring).

    ``batch_size``: the most positions a call; ``max_seconds``: the time each position may
    compute (0: the server's limit only); ``rounds``: how many times positions refused for want
    of capacity are sent again."""
    from ruma.client.client import RumaRpcError
    from ruma.client.progress import progress as progress_display

    if batch_size < 1:
        raise RumaInputError(f"batch size must be at least 1, got {batch_size!r}")
    if max_seconds < 0:
        raise RumaInputError(f"--max-seconds must be positive, got {max_seconds!r}")
    todo = list(positions)
    started = time.monotonic()
    enabled = False if progress is False or callable(progress) else None
    with progress_display(f"loading {ruleset}", total=len(todo), enabled=enabled, pace=True) as bar:
        books = _Load(client, ruleset, todo, batch_size, timeout, max_seconds,
                      progress if callable(progress) else bar.update)
        try:
            found = _stored(client, ruleset, todo, max(batch_size, 1024)) if todo else []
            books.unstored = {i for i, present in enumerate(found) if present is False}
            books.summary.already_stored = sum(1 for present in found if present)
            books.finish(books.summary.already_stored)
            bar.pace_from(books.done)
            pending = [i for i, present in enumerate(found) if not present]
            reasons: dict[int, str] = {}
            for pause in (0.0, *PAUSES[:max(0, rounds)]):
                if not pending:
                    break
                time.sleep(pause)
                books.run(pending, concurrency)
                pending, reasons = [i for i, _ in books.later], dict(books.later)
                books.later = []
            books.failed.update((index, reasons[index]) for index in pending)
            books.finish(len(pending))
            books.recheck()
        except RumaRpcError as error:
            error.summary = books.close(started)  # type: ignore[attr-defined]
            raise
    return books.close(started)
