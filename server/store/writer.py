"""The store's bulk writer: a child process that writes ``insert_many``'s large batches while the
evaluation goes on (``ruma.server.store.memo``; narrative in ``docs/store.md``, "Bulk methods").

Why a process: a cold evaluation into the store spends about as long in LMDB (two B-tree puts an
entry, a commit with ``fsync`` every batch) as the compiled search spends valuing the positions,
so writing each batch before valuing on caps it near twice the in-memory time. A thread cannot
take that work off the search: py-lmdb releases the GIL around each put and takes it back half a
microsecond later, and the search, which needs the GIL for every memo lookup, then loses the race
for it and sleeps out CPython's 5 ms switch interval again and again (measured: slower than
writing in line). A child process has its own GIL; LMDB already serialises writers across
processes, and the store already adopts a map another process has grown.

The parent interns the batch's new games itself (in their own transaction, committed before the
positions that name them: ``BulkOps._game_codes``) — except in a partizan sweep's drains, whose
values are ids of the sweep's shared table of games: those go as *shared frames* with the nodes
they need, which the child interns in the transaction of the positions (``ruma.engine.frame.pack_shared``,
``BulkOps.insert_shared``) — and sends the keys with the values' codes in
the store as a batch frame (``ruma.engine.frame``, the engine's format: ``_native.pack_batch``;
an impartial search packs its batches itself: ``submit_packed``) through an
in-memory file, the pipe saying where each frame is (``_frames_file``; down the child's stdin
where there is no memfd); the child writes the ``positions``
records as an in-line bulk write does (the same bytes, ``overwrite=False``, the counts in
``meta``): in C on LMDB's own API (``store._native.Writer``, server/store/lmdb.c), or without it
with the store's own bulk code through py-lmdb (``BulkOps.write_codes``) — batches that queued up
together, and those that arrive while they are put, in one transaction — and answers one line a
batch, in order. Guarantees, as for the insert buffer
(``docs/store.md``, "Inserts and durability"):

* **Visible at once**: a sent batch answers this process's ``lookup``/``lookup_many`` until its
  commit is visible to them (``snapshot``/``find_in``; a batch leaves ``pending`` only after its
  commit and the renewal of this process's read transactions), where the database does not hold
  the key.
* **Committed by ``flush``**: ``flush()`` (and ``close()``; every evaluation worker flushes before
  it answers) waits until every batch sent before it is committed (``drain``).
* **Never lost silently**: a batch the child fails to write, or that is in flight when the child
  dies, goes back into the insert buffer and its error is raised by the next ``flush`` or
  ``close`` (or ``insert_many`` handing the writer a batch) — so an evaluation or a worker's
  answer fails instead of reporting values that were not stored; that flush also writes the
  given-back entries in line if it can (else they stay buffered for the next). Once the child is
  gone the store writes in line.
* **Bounded**: at most ``DEPTH`` batches are in flight; sending blocks (without the GIL) beyond.
* **Orphans end**: a child whose parent dies sees its stdin close, finishes the batch it has
  read whole (a batch read in part is dropped: nothing half-written) and exits.

The child runs ``writer_child.main``.
"""

from __future__ import annotations

import logging
import os
import struct
import sys
import threading
import weakref
from array import array
from pathlib import Path
from typing import Any, Callable

from ruma.engine.frame import is_shared, unpack_frame

DEPTH = 8
"""Batches that may be in flight to the child before ``submit`` blocks (up to 8 × 32,768 entries,
some 50 MB: room for the child to fall behind and then write what queued up in one transaction,
which costs less an entry than a transaction each — 4 let a cold evaluation stall on it)."""

_HEADER = struct.Struct("<I")
_IN_FILE = 0xFFFFFFFF  # a header meaning "the frame is in the frames file": (offset, size) follow
_SPAN = struct.Struct("<QI")
_FILE_ROOM = 64 << 20  # the frames file's size: a ring the frames in flight go round
log = logging.getLogger(__name__)
Lookup = Callable[[bytes], Any]  # key -> value, or None


class Job:
    """A batch sent to the child: its sorted keys and values, or the frame they were packed in
    (``BulkWriter.submit_packed``: decoded only when needed — given back, or looked up with no
    ``lookup`` given), and how a lookup finds its values until its commit is visible."""

    __slots__ = ("frame", "_keys", "_values", "_lookup", "at")

    def __init__(self, keys: list[bytes] | None, values: list[Any] | None, frame: bytes | None = None,
                 lookup: Lookup | None = None) -> None:
        self.frame, self._keys, self._values = frame, keys, values
        self.at: int | None = None  # where its frame is in the frames file (None: sent down the pipe)
        self._lookup = lookup if lookup is not None or keys is None else dict(zip(keys, values or ())).get

    def pairs(self) -> tuple[list[bytes], list[Any]]:
        """The batch's keys and values (a packed batch's codes ``2n`` as nim values ``n``; none for a
        shared frame, whose values are ids in a sweep's table: such a batch is never given back,
        its loss is an error — ``BulkWriter._read_answers``)."""
        if self._keys is None or self._values is None:
            frame = self.frame or b""
            self._keys, self._values = ([], []) if is_shared(frame) else unpack_nim(frame)
        return self._keys, self._values

    def lookup(self) -> Lookup:
        """``key -> value or None`` for the batch's keys (made from its pairs the first time)."""
        if self._lookup is None:
            self._lookup = dict(zip(*self.pairs())).get
        return self._lookup


def find_in(batches: list[Lookup], key: bytes) -> Any:
    """The value of ``key`` in one of ``batches`` (``BulkWriter.snapshot``), else ``None``."""
    for lookup in batches:
        value = lookup(key)
        if value is not None:
            return value
    return None


def unpack(payload: bytes) -> tuple[list[bytes], list[int]]:
    """A batch frame's keys and codes (``_native.unpack_batch`` in C, else
    ``ruma.engine.frame.unpack_frame``)."""
    from ruma.server.store.bulk import _NATIVE

    if _NATIVE is not None:
        return _NATIVE.unpack_batch(payload)  # type: ignore[no-any-return]
    return unpack_frame(payload)


def unpack_nim(payload: bytes) -> tuple[list[bytes], list[int]]:
    """The keys and nim values of a packed batch of nim values (codes ``2n``)."""
    keys, codes = unpack(payload)
    return keys, [code >> 1 for code in codes]


class BulkWriter:
    """One store's writer process, seen from the parent: ``submit`` a batch, ``drain`` to wait."""

    def __init__(self, path: Path, give_back: Callable[[list[bytes], list[Any]], None],
                 committed: Callable[[], None], map_size: int = 0) -> None:
        self._give_back, self._committed = give_back, committed
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()  # frames go out in the order of ``pending``
        self._idle = threading.Condition(self._lock)
        self._slots = threading.BoundedSemaphore(DEPTH)
        self.pending: list[Job] = []  # sent, not yet committed (oldest first)
        self._error: BaseException | None = None
        self.dead = False  # the child is gone (or never came up): the store writes in line
        self.ready = False  # the child is known to be up (until then batches go only where the pipe has room: ``accepts``)
        self._settled = threading.Event()  # set once the child is up or gone
        self._closing = False
        self._killed = False  # ended by ``close`` before it was up: what it was sent is given back
        self._early = 0  # bytes sent before the child was known to be up (where ``_in_pipe`` cannot tell)
        # Frames go through a file in memory when the system has them (Linux's memfd), the pipe
        # carrying 16 bytes a batch: a frame (~800 kB of 32,768 values) nearly fills a 1 MiB pipe,
        # so the sender (the search) blocked until the child had read the one before, and the
        # child, never finding more than one frame waiting, wrote each in a transaction of its
        # own — where batches queued together cost a third less an entry in one (``GROUP``).
        self._frames_fd = _frames_file()
        self._frames_at = 0  # where the next frame goes in the frames file
        import subprocess  # (here: the writer process itself, which imports this module, needs none)

        self._process = subprocess.Popen(
            # (``-c``, not ``-m``: a module run as ``__main__`` is compiled on every start, an
            # imported one comes from its cached bytecode)
            [sys.executable, "-c", "import sys; from ruma.server.store.writer_child import main; sys.exit(main(sys.argv[1:]))",
             str(path), "--map-size", str(map_size),
             *([] if self._frames_fd is None else ["--frames-fd", str(self._frames_fd)])],
            pass_fds=() if self._frames_fd is None else (self._frames_fd,),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True,
            # its own session: a Ctrl-C at the terminal reaches this process, which closes the store
            # (the child writes what it was sent and ends); the child interrupted as well died
            # mid-batch (an interpreter aborting with its reader thread) and failed the close
            start_new_session=True,
        )
        self._pipe_bytes = _widen(self._process.stdin)
        _WRITERS.add(self)
        self._reader = threading.Thread(target=self._read_answers, name=f"ruma-store-writer:{path.name}", daemon=True)
        self._reader.start()

    def accepts(self, size: int) -> bool:
        """Whether a frame of ``size`` bytes goes to the child now: always once it is known to be
        up; before, while the pipe has room for it (frames wait there for the child, and sending
        never waits for its start-up: the caller writes in line instead). The pipe's fill level is
        asked of the kernel: the thread that reads the child's ``ready`` needs the GIL, which the
        compiled search holds between its calls back, so the flag itself comes late."""
        if self.ready:
            return True
        if self.dead:
            return False
        if self._frames_fd is not None:  # (frames wait in the file: all but one of the slots, never blocking)
            return len(self.pending) < DEPTH - 1
        held = _in_pipe(self._process.stdin)
        return (self._early if held is None else held) + size + _HEADER.size <= self._pipe_bytes

    def submit(self, keys: list[bytes], values: list[Any], frame: bytes) -> bool:
        """Send a batch (keys sorted; ``frame``: their batch frame, ``ruma.engine.frame``); raises an earlier batch's
        error first. ``False`` when the child is gone (the caller writes the batch in line)."""
        return self._send(Job(keys, values), frame)

    def submit_packed(self, frame: bytes, lookup: Lookup | None = None) -> bool:
        """``submit`` for a batch of nim values that comes as a batch frame (keys sorted and
        valid): no Python object an entry unless it has to be given back or looked up. ``lookup``
        (``key -> value or None``): where this process's lookups find its values meanwhile (the
        search's ``CompactMemo`` it put them in), else a dict made from the frame when asked."""
        return self._send(Job(None, None, frame, lookup), frame)

    def submit_shared(self, frame: bytes) -> bool:
        """``submit`` for a sweep's shared frame (``pack_shared``): until its commit, this process's
        lookups do not see its values (the sweep reads its own table); if it is not written, the
        next ``flush`` raises the error (it cannot be given back: its values are ids in the
        sweep's table)."""
        return self._send(Job(None, None, frame), frame)

    def _send(self, job: Job, frame: bytes) -> bool:
        self.raise_error()
        self._slots.acquire()
        with self._send_lock:
            with self._lock:
                if self.dead:
                    self._slots.release()
                    return False
                if self._frames_fd is not None:
                    job.at = self._place(len(frame))
                self.pending.append(job)
                if not self.ready:
                    self._early += len(frame) + _HEADER.size
            stdin: Any = self._process.stdin
            try:
                if job.at is not None and self._frames_fd is not None:
                    _write_at(self._frames_fd, frame, job.at)
                    stdin.write(_HEADER.pack(_IN_FILE) + _SPAN.pack(job.at, len(frame)))
                else:
                    stdin.write(_HEADER.pack(len(frame)))
                    stdin.write(frame)
                stdin.flush()
            except (OSError, ValueError):
                pass  # the child is gone: the answer reader gives the batch back and reports it
            except BaseException:
                # interrupted mid-frame (KeyboardInterrupt, say): the stream is broken, so end it —
                # the child drops the partial frame and exits, the answer reader gives back what
                # it had not committed (this batch too) and reports it
                try:
                    stdin.close()
                except BaseException:  # noqa: BLE001 - closing a broken pipe
                    pass
                raise
        return True

    def _place(self, size: int) -> int | None:
        """Where a frame of ``size`` bytes goes in the frames file, or ``None`` (down the pipe): the
        file is a ring of ``_FILE_ROOM`` bytes. The child reads frames in the order sent and a batch
        leaves ``pending`` only once answered (its frame read), so the frames in flight lie from the
        oldest pending one's start to the end of the newest, possibly wrapping round; a frame goes
        after the newest, or at the start when the end has no room and the start has. (Resetting to
        the start only when nothing was in flight let the file grow with every frame of a long
        evaluation, which never stops sending.) Called with ``_lock`` held."""
        tail = next((job.at for job in self.pending if job.at is not None), None)
        head = 0 if tail is None else self._frames_at
        if tail is not None and head <= tail:  # wrapped: in flight from tail to the end, and from the start to head
            if head + size > tail:
                return None
            at = head
        elif head + size <= _FILE_ROOM:  # in flight (if any) from tail to head: after it
            at = head
        elif tail is not None and size <= tail:  # or round to the start
            at = 0
        else:
            return None
        self._frames_at = at + size
        return at

    def snapshot(self) -> list[Lookup]:
        """The batches not yet committed (each as a lookup: key -> value or None), now. A lookup takes it
        *before* it reads the database and consults it only on a miss there (``find_in``): a
        batch leaves ``pending`` only once its commit is visible to reads begun afterwards, and a
        committed value (the first stored) wins. (Batches that share one lookup — a search's
        ``CompactMemo`` — are asked once.)"""
        return list(dict.fromkeys(job.lookup() for job in self.pending))

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the child is up or gone (at most ``timeout`` seconds); whether it is up."""
        self._settled.wait(timeout)
        return self.ready and not self.dead

    def drain(self) -> None:
        """Wait until every batch sent so far is committed; raise a write's error, if any."""
        with self._lock:
            while self.pending:
                self._idle.wait()
        self.raise_error()

    def raise_error(self) -> None:
        """Raise (once) the error of a batch that was not written."""
        with self._lock:
            error, self._error = self._error, None
        if error is not None:
            raise error

    def close(self) -> None:
        """Let the child write what it has and exit; raise a write's error, if any. A child not up
        yet is ended at once and the batches waiting for it in the pipe are given back (the
        caller's flush writes them in line), so a short evaluation never waits for the start-up of
        a writer it did not need."""
        with self._send_lock:
            self._closing = True
            if not self.ready:
                # not up yet: ended at once, and the batches waiting in the pipe for it go back to
                # the insert buffer (the caller's flush writes them in line) — none was committed
                self._killed = True
                self._process.kill()
            try:
                self._process.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
        if self._reader is not threading.current_thread():
            self._reader.join()
        self._process.wait()
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()
        self._close_frames()
        self.raise_error()

    def _close_frames(self) -> None:
        fd, self._frames_fd = self._frames_fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass

    def _read_answers(self) -> None:
        out: Any = self._process.stdout
        ready = out.readline() == b"ready\n"
        self.ready = ready
        self._settled.set()
        while ready:
            line = out.readline()
            if not line:
                break
            with self._lock:
                job = self.pending[0]
            if line == b"ok\n":
                self._committed()  # (before the batch leaves ``pending``: lookups must see the commit)
            else:
                self._fail(*job.pairs(), line.decode(errors="replace").strip().removeprefix("error "))
            with self._lock:
                self.pending.pop(0)
                self._idle.notify_all()
            self._slots.release()
        # the child is gone (or never came up): give back what it had not written
        try:
            detail = self._process.stderr.read().decode(errors="replace").strip()  # type: ignore[union-attr]
        except (OSError, ValueError):
            detail = ""
        code = self._process.wait()
        with self._lock:
            self.dead = True
            lost, self.pending = self.pending, []
        self._settled.set()
        reason = f"the store's writer process ended (exit code {code})" + (f": {detail.splitlines()[-1]}" if detail else "")
        if not ready and not self._closing:  # it never came up: nothing was written by it, the store writes in line
            log.warning("%s; writing bulk batches in line", reason)
        for job in lost:
            if (ready and not self._killed) or is_shared(job.frame or b""):
                self._fail(*job.pairs(), reason)
            else:
                self._give_back(*job.pairs())
            self._slots.release()
        with self._lock:
            self._idle.notify_all()

    def _fail(self, keys: list[bytes], values: list[Any], message: str) -> None:
        from ruma.server.store.codec import StoreError

        try:
            self._give_back(keys, values)  # into the insert buffer: the next flush writes them
        finally:
            with self._lock:
                if self._error is None:
                    self._error = StoreError(f"a bulk write failed: {message}")


_WRITERS: "weakref.WeakSet[BulkWriter]" = weakref.WeakSet()


def _forget_in_forked_child() -> None:
    """In a process forked (without exec) from one with writers: close the inherited write ends of
    their pipes (else the child process would never see its input end when the parent closes it)
    and mark them dead (a forked process opens its own store: ``store._CORES`` is per pid)."""
    for writer in list(_WRITERS):
        writer.dead = True
        writer._close_frames()
        stdin = writer._process.stdin
        if stdin is not None:
            try:
                os.close(stdin.fileno())  # (not stdin.close(): that would flush the parent's buffer)
            except (OSError, ValueError):
                pass
    _WRITERS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_forked_child)


def _frames_file() -> int | None:
    """A file in memory for the frames on their way to the child (``memfd_create``), or ``None``
    where there is none (the frames then go down the pipe)."""
    make = getattr(os, "memfd_create", None)
    if make is None:
        return None
    try:
        return int(make("ruma-store-frames", getattr(os, "MFD_CLOEXEC", 0)))
    except OSError:
        return None


def _write_at(fd: int, data: bytes, at: int) -> None:
    """Write all of ``data`` at offset ``at`` of ``fd``."""
    view = memoryview(data)
    while view:
        done = os.pwrite(fd, view, at)
        view, at = view[done:], at + done


def _in_pipe(pipe: Any) -> int | None:
    """The bytes sent down ``pipe`` and not read yet (Linux's ``FIONREAD``), or ``None``."""
    try:
        import fcntl
        import termios

        held = array("i", [0])
        fcntl.ioctl(pipe.fileno(), termios.FIONREAD, held)
        return held[0]
    except (ImportError, AttributeError, OSError, ValueError):
        return None


def _widen(pipe: Any) -> int:
    """A 1 MiB pipe (Linux), so sending a batch rarely waits for the child to read; the bytes it
    holds (the 4 KiB POSIX guarantees when it cannot be widened)."""
    try:
        import fcntl

        return int(fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20))
    except (ImportError, AttributeError, OSError):
        return 4096
