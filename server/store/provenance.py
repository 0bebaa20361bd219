"""Where a stored value came from: values uploaded by a client are *unverified* until the server
has re-valued them itself.

An ``Upload`` (``Sweeps.Upload``, ``ruma sweep --server``) stores its new entries and, in the same
transaction, an ``unverified`` record for each (``store.scan.UNVERIFIED_MARK`` and the upload's
time, sealed like every record). Until the mark goes:

* the service serves the value marked ``unverified`` (a field of its replies), never as its own;
* a store opened with ``hide_unverified`` (the evaluation workers') reads it as a miss, so no
  value the server computes is built on it;
* the ``UploadVerifier`` thread of a server re-values marked entries while the server is idle
  (``revalue_marked`` on an evaluation worker: the server's own evaluation, which reads no marked
  entry, settling every marked entry it values on the way and storing the values it computed),
  and ``ruma store verify --revalue`` does so for all of them at once. A value found right loses
  its mark; one found wrong is replaced by the server's own (``settle``), logged and counted.

``UploadMarks`` is a mixin of the store's ``_Core``; ``StoreProvenance`` is a store's
``provenance``, what its callers use.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, Sequence

from ruma.engine.cgt import Game, Value
from ruma.engine.memo import capabilities
from ruma.engine.stores import Store
from ruma.server.store import codec
from ruma.server.store.scan import UNVERIFIED_MARK

if TYPE_CHECKING:
    from ruma.server.store.memo import LmdbStore

log = logging.getLogger(__name__)

def same_value(a: Value | None, b: Value | None) -> bool:
    """Whether two store values are the same (a Game is interned; a nim value is an int)."""
    if isinstance(a, Game) or isinstance(b, Game):
        return a is b
    return a == b


class UploadMarks:
    """The ``unverified`` marks of the store's ``_Core`` (a mixin; the host provides the attributes
    below)."""

    dbs: dict[str, Any]
    generation: int
    to_store: dict[int, int]
    from_store: dict[int, int]
    _write: Callable[..., Any]
    _read: Callable[..., Any]
    _intern: Callable[..., int]
    _write_entries: Callable[..., dict[int, int]]
    _remember_games: Callable[[dict[int, int]], None]
    decode: Callable[[Any, bytes, bytes], tuple[Value, int]]
    flush: Callable[..., None]
    _marks_seen: tuple[int, int] = (-1, 0)

    def unverified_count(self) -> int:
        """How many stored entries are unverified (read again once this process committed)."""
        generation, count = self._marks_seen
        if generation != self.generation:
            marks = self.dbs["unverified"]
            count = self._read(lambda txn: txn.stat(marks)["entries"])
            self._marks_seen = (self.generation, count)
        return count

    def unverified_among(self, keys: Sequence[bytes]) -> list[bool]:
        """Whether each key's stored value is unverified (one read; none when nothing is)."""
        if not keys or not self.unverified_count():
            return [False] * len(keys)
        marks = self.dbs["unverified"]
        return self._read(lambda txn: [3 <= len(key) <= 511 and txn.get(key, db=marks) is not None for key in keys])  # type: ignore[no-any-return]

    def insert_unverified(self, items: Iterable[tuple[bytes, Value]]) -> int:
        """Store uploaded entries with their marks in one transaction (a key stored already keeps
        its value and its provenance); returns how many were new."""
        self.flush()
        batch = sorted(items, key=lambda item: item[0])
        positions, marks = self.dbs["positions"], self.dbs["unverified"]
        stamp = UNVERIFIED_MARK + int(time.time()).to_bytes(8, "big")

        def write(txn: Any) -> tuple[dict[int, int], int]:
            new = [(key, (value, 0)) for key, value in batch if txn.get(key, db=positions) is None]
            made = self._write_entries(txn, new)
            for key, _ in new:
                txn.put(key, codec.seal(key, stamp), db=marks)
            return made, len(new)

        made, stored = self._write(write)
        self._adopt_games(made)
        return stored  # type: ignore[no-any-return]

    def unverified_entries(self, limit: int, after: bytes = b"") -> list[tuple[bytes, Value | None]]:
        """Up to ``limit`` marked keys after ``after`` in key order, with their stored values
        (``None``: damaged, or no longer stored)."""
        marks, positions = self.dbs["unverified"], self.dbs["positions"]

        def read(txn: Any) -> list[tuple[bytes, Value | None]]:
            found: list[tuple[bytes, Value | None]] = []
            with txn.cursor(db=marks) as cursor:
                if not cursor.set_range(after):
                    return found
                for key in cursor.iternext(values=False):
                    if key == after:
                        continue
                    raw = txn.get(key, db=positions)
                    try:
                        value = None if raw is None else self.decode(txn, key, raw)[0]
                    except codec.CorruptRecordError:
                        value = None
                    found.append((key, value))
                    if len(found) >= limit:
                        break
            return found

        return self._read(read)  # type: ignore[no-any-return]

    def settle(self, truths: Sequence[tuple[bytes, Value]]) -> list[bool]:
        """The server's own values of marked keys, in one transaction: each mark goes, and a stored
        value that differs is replaced. Whether each was replaced."""
        positions, marks = self.dbs["positions"], self.dbs["unverified"]

        def write(txn: Any) -> tuple[dict[int, int], list[bool]]:
            made: dict[int, int] = {}
            pending: dict[int, int] = {}
            done = []
            for key, truth in truths:
                raw = txn.get(key, db=positions)
                try:
                    stored = None if raw is None else self.decode(txn, key, raw)[0]
                except codec.CorruptRecordError:
                    stored = None
                replaced = raw is not None and not same_value(stored, truth)
                if replaced:
                    self._replace(txn, key, truth, pending, made)
                txn.delete(key, db=marks)
                done.append(replaced)
            return made, done

        made, done = self._write(write)
        self._adopt_games(made)
        return done  # type: ignore[no-any-return]

    def _replace(self, txn: Any, key: bytes, truth: Value, pending: dict[int, int], made: dict[int, int]) -> None:
        """Put ``truth`` in place of the stored record of ``key``."""
        if isinstance(truth, Game):
            sid = self.to_store.get(truth.id)
            if sid is None:
                sid = self._intern(txn, truth, pending, made, [])
            encoded = codec.encode_value(True, sid)
        else:
            encoded = codec.encode_value(False, truth)
        txn.put(key, codec.seal(key, encoded + b"\x00"), db=self.dbs["positions"])

    def _adopt_games(self, made: dict[int, int]) -> None:
        self._remember_games(made)
        self.generation += 1  # cached read transactions renew: lookups see the commit


class StoreProvenance:
    """The provenance of one store handle's values, reached as ``store.provenance`` (raises
    ``StoreError`` once the handle is closed)."""

    __slots__ = ("_store",)

    def __init__(self, store: "LmdbStore") -> None:
        self._store = store

    def insert_unverified(self, items: Iterable[tuple[bytes, Value]]) -> int:
        """Store uploaded entries, marked unverified (a key stored already keeps its value); how many were new."""
        return self._store.core.insert_unverified(items)

    def unverified_among(self, keys: Sequence[bytes]) -> list[bool]:
        """Whether each key's stored value is an upload the server has not re-valued yet."""
        return self._store.core.unverified_among(keys)

    def unverified_count(self) -> int:
        """How many stored values are unverified uploads."""
        return self._store.core.unverified_count()

    def unverified_entries(self, limit: int, after: bytes = b"") -> list[tuple[bytes, Value | None]]:
        """Up to ``limit`` unverified keys after ``after``, with their stored values."""
        return self._store.core.unverified_entries(limit, after)

    def settle(self, truths: Sequence[tuple[bytes, Value]]) -> list[bool]:
        """The server's own values of unverified keys (one transaction): unmarked, and each replaced
        if it differs (True)."""
        return self._store.core.settle(truths)


class Correction(NamedTuple):
    """An uploaded value found wrong and replaced: its key, ruleset, position, the value stored and
    the true one (as text)."""

    key: bytes
    ruleset: str
    position: str
    stored: str
    value: str


Revalue = Callable[[list[bytes]], tuple[int, list[Correction]]]
"""``revalue(keys)``: ``revalue_marked`` of those keys (where the server's evaluations run)."""


class UploadVerifier:
    """A thread that re-values a store's unverified entries while the server is idle.

    ``idle()``: whether the server has nothing else to do; ``revalue``: ``revalue_marked`` run
    where the server evaluates (``Revalue``); ``corrected(correction)``: called for each value
    found wrong and replaced (the service forgets its cached copy and counts it). A batch of
    ``batch`` marked keys is re-valued at a time (one task on one evaluation worker, which settles
    every marked entry it meets on the way too), the next at once while the server stays idle,
    else after ``pause`` seconds: a call that arrives meanwhile waits for one batch at most. A
    pass over every mark that settles none (entries beyond the server's limits) waits ``retry``
    seconds before the next."""

    def __init__(self, store: Store, revalue: Revalue, idle: Callable[[], bool],
                 corrected: Callable[[Correction], None] | None = None,
                 batch: int = 64, pause: float = 0.5, retry: float = 60.0) -> None:
        self.store, self.revalue, self.idle, self.corrected = store, revalue, idle, corrected
        self.batch, self.pause, self.retry = batch, pause, retry
        self.stop_event = threading.Event()
        self.checked = self.replaced = 0
        self.thread = threading.Thread(target=self._run, name="ruma-upload-verifier", daemon=True)

    def start(self) -> "UploadVerifier":
        """Start the thread."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread (after the batch under way)."""
        self.stop_event.set()
        if self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join()

    close = stop  # (what the server calls at shutdown)

    def _run(self) -> None:
        after = b""
        wait = self.pause
        settled_in_pass = False  # (a pass over the marks that settles none waits ``retry`` before the next)
        while not self.stop_event.wait(wait):
            wait = self.pause
            try:
                marks = self.store.provenance
                if not self.idle() or not marks.unverified_count():
                    continue
                entries = marks.unverified_entries(self.batch, after)
                if not entries:
                    after = b""  # from the start again (marks added behind the cursor)
                    wait = self.pause if settled_in_pass else self.retry
                    settled_in_pass = False
                    continue
                after = entries[-1][0]
                if self.run_batch([key for key, _ in entries]):
                    settled_in_pass = True
                    wait = 0.0  # the next batch at once while the server stays idle
            except codec.StoreError as error:
                if "closed" in str(error):
                    return  # the store closed under it (a server that failed to start, or stopping)
                log.warning("the upload verifier could not re-value a batch: %s", error)
            except Exception as error:  # noqa: BLE001 - the next round tries again; never the server's end
                log.warning("the upload verifier could not re-value a batch: %s", error)

    def run_batch(self, keys: list[bytes]) -> int:
        """Re-value one batch of marked keys (and the marked entries met on the way) and settle
        them; how many were settled."""
        checked, corrections = self.revalue(keys)
        self.checked += checked
        for correction in corrections:
            self.replaced += 1
            if self.corrected is not None:
                self.corrected(correction)
        return checked


def trusted_lookups(store: Store) -> tuple[Callable[[bytes], Value | None],
                                          Callable[[Sequence[bytes]], list[Value | None]]]:
    """``(lookup, lookup_many)`` of ``store`` that read an unverified entry as a miss (what a
    re-valuation may read): two reads a batch, however many keys."""
    lookup_many, among = store.lookup_many, store.provenance.unverified_among

    def many(keys: Sequence[bytes]) -> list[Value | None]:
        found: list[Value | None] = list(lookup_many(keys))
        hits = [i for i, value in enumerate(found) if value is not None]
        if hits:
            for i, marked in zip(hits, among([keys[i] for i in hits])):
                if marked:
                    found[i] = None
        return found

    return (lambda key: many([key])[0]), many


def revalue_marked(store: Store, keys: Sequence[bytes], memo: Any = None, *, keep: bool = False,
                   should_cancel: Callable[[], bool] | None = None,
                   max_positions: int | None = None) -> tuple[int, list[Correction]]:
    """Re-value the marked entries ``keys`` with the server's own evaluator — through ``memo``, a
    ``RecordingMemo`` over ``trusted_lookups(store)`` (a new one by default), which reads no marked
    entry — and settle, in one transaction, every marked entry valued on the way: the asked ones
    and the uploaded followers the evaluations met (an upload of a family is mostly such
    followers, so a batch settles far more than it asks). ``keep``: also store the values
    computed on the way that the store lacked (the server's own: later batches read them instead
    of valuing them again). A cancelled evaluation (``should_cancel``) ends the batch; what was
    valued before it is settled. Returns how many entries were settled and the corrections made
    (each logged)."""
    from ruma.engine.cgt import format_value
    from ruma.engine.errors import CancelledError, LimitExceededError
    from ruma.engine.evaluator import evaluate
    from ruma.engine.families.packets import RecordingMemo
    from ruma.server.store.keys import state_of_key

    memo = RecordingMemo(*trusted_lookups(store)) if memo is None else memo
    asked: list[tuple[bytes, Value]] = []
    for key in keys:
        try:
            rules, state = state_of_key(key)
        except codec.CodecError:
            continue
        try:
            asked.append((key, evaluate(rules, state, memo, should_cancel=should_cancel,
                                        max_positions=max_positions).value))
        except LimitExceededError as error:  # (it stays marked: served as unverified)
            log.warning("an uploaded value could not be re-valued within this server's limits: %s", error)
        except CancelledError:
            break
    computed = dict(memo.take())
    computed.update(asked)
    items = list(computed.items())
    marked = store.provenance.unverified_among([key for key, _ in items])
    truths = [item for item, mark in zip(items, marked) if mark]
    if keep:
        capabilities(store).insert_many([item for item, mark in zip(items, marked) if not mark])
    stored = {key: store.lookup_served(key) for key, _ in truths}
    corrections = []
    for (key, truth), replaced in zip(truths, store.provenance.settle(truths)):
        if replaced:
            rules, state = state_of_key(key)
            was = stored.get(key)
            corrections.append(Correction(key, rules.name, rules.format(state), "?" if was is None else format_value(was),
                                          format_value(truth)))
            log.warning("an uploaded value was wrong: %s %s was stored as %s, is %s (replaced)", rules.name,
                        corrections[-1].position, corrections[-1].stored, corrections[-1].value)
    store.flush()
    return len(truths), corrections


def revalue_store(store: Store, progress: Callable[[int], None] | None = None,
                  batch: int = 256) -> tuple[int, list[dict[str, str]]]:
    """``ruma store verify --revalue``: re-value every unverified upload of an open store in this
    process (``revalue_marked`` over one scratch memo for them all) and settle each; returns how
    many were checked and the corrections made (position, stored, true value)."""
    from ruma.engine.families.packets import RecordingMemo

    memo = RecordingMemo(*trusted_lookups(store))
    checked = 0
    corrections: list[dict[str, str]] = []
    after = b""
    while True:
        entries = store.provenance.unverified_entries(batch, after)
        if not entries:
            return checked, corrections
        after = entries[-1][0]
        settled, corrected = revalue_marked(store, [key for key, _ in entries], memo)
        checked += settled
        corrections += [{"ruleset": c.ruleset, "position": c.position, "key": c.key.hex(), "stored": c.stored,
                         "value": c.value} for c in corrected]
        if progress is not None:
            progress(checked)
