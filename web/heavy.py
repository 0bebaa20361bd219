"""What a page does before it asks for a value: the service's size limits, and the time a page
can wait.

``check_size`` refuses, before any call, a position beyond the service's limits: ``413`` when
the request itself is too large (more characters than the service reads, a batch larger than it
takes), ``422`` when the position is well formed but has more pots or seeds than the service
values; the message names the limit and its value. ``within_page`` values a position within
``PAGE_SECONDS``: the store first (``Lookup``, never computing), then ``Evaluate`` with that
deadline; what takes longer, or more than the service computes for one request, becomes a
``Heavy`` — an immediate page (or a ``202`` in the API) that says so, offers to compute it in the
background (``ruma.web.jobs``) when the service could, and gives the ``ruma`` command that works
against this service: ``ruma query`` names ``--token "$RUMA_TOKEN"`` when the service requires a
token (the token itself is never shown), and says that the service stops a request at its own time
limit (``--max-seconds``). The work a stopped evaluation did stays in the store, so the job, or the
command run again, goes on from there.
"""

from __future__ import annotations

import shlex
import threading
import time
import weakref
from dataclasses import dataclass
from typing import Any

from ruma.web.gateway import Gateway, GatewayError

#: seconds a page waits for a value before it offers to compute it in the background
PAGE_SECONDS = 5.0
#: seconds the service's limits are cached
LIMITS_SECONDS = 60.0
#: words of the service's messages that tell what stopped an evaluation
_STOPPED_BY = (("positions (limit)", "positions"), ("--max-seconds", "time"), ("--max-memory", "memory"))

_limits: "weakref.WeakKeyDictionary[Gateway, tuple[float, Any]]" = weakref.WeakKeyDictionary()
_limits_lock = threading.Lock()


@dataclass
class Heavy:
    """A position whose value the page does not wait for: ``reason`` is ``time`` (longer than a
    page waits; a job can value it), ``positions``, ``time-limit`` or ``memory`` (beyond what the
    service computes for one request: only a local evaluation can)."""

    ruleset: str
    position: str
    reason: str
    message: str
    page_seconds: float
    service: str
    #: the service's time limit of a request (0: none) and whether it requires a token
    max_seconds: float = 0.0
    needs_token: bool = False

    @property
    def can_queue(self) -> bool:
        """Whether a background job of the service can value it."""
        return self.reason == "time"

    @property
    def command(self) -> str:
        """The exact command that values it: through the service, or locally beyond its limits."""
        if self.can_queue:
            return service_command(self.service, self.ruleset, self.position, token=self.needs_token)
        return local_command(self.ruleset, self.position)

    def command_note(self) -> str:
        """What to know before running ``command`` against this service (one sentence, or empty)."""
        if not self.can_queue:
            return ""
        words = []
        if self.max_seconds:
            words.append(f"The service computes at most {self.max_seconds:g} s a request and keeps what it valued: "
                         f"if the command stops at that limit, run it again and it goes on from there.")
        if self.needs_token:
            words.append("The service requires a token: put yours in RUMA_TOKEN.")
        return " ".join(words)

    def explanation(self) -> str:
        """Why the page does not show the value (one sentence)."""
        if self.reason == "time":
            return (f"The value of this position is not stored yet, and computing it takes longer than a page "
                    f"waits ({self.page_seconds:g} s).")
        return f"The value of this position is not stored, and it is beyond what this service computes: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"ruleset": self.ruleset, "position": self.position, "reason": self.reason,
                "message": self.explanation(), "can_queue": self.can_queue, "command": self.command}


def service_command(service: str, ruleset: str, position: str, *, token: bool = False) -> str:
    """The command that has the service value a position (within the service's own time limit),
    with ``--token "$RUMA_TOKEN"`` when the service requires a token (never the token itself)."""
    auth = ' --token "$RUMA_TOKEN"' if token else ""
    return f"ruma query --server {service}{auth} {ruleset} {shlex.quote(position)}"


def query_command(gw: Gateway, ruleset: str, position: str, token: str | None = None) -> str:
    """``service_command`` for the service behind ``gw`` (naming ``--token`` when it requires one)."""
    return service_command(gw.address, ruleset, position, token=limits(gw, token).auth_required)


def local_command(ruleset: str, position: str) -> str:
    """The command that values a position on one's own machine, beyond any service's limits."""
    return f"ruma eval {ruleset} {shlex.quote(position)} --no-limit"


def limits(gw: Gateway, token: str | None = None) -> Any:
    """The service's capabilities (cached ``LIMITS_SECONDS``)."""
    with _limits_lock:
        cached = _limits.get(gw)
    if cached is not None and time.monotonic() - cached[0] < LIMITS_SECONDS:
        return cached[1]
    caps = gw.call(lambda: gw.client(token).capabilities())
    with _limits_lock:
        _limits[gw] = (time.monotonic(), caps)
    return caps


def check_size(gw: Gateway, ruleset: str, position: str, token: str | None = None) -> None:
    """``413`` or ``422`` (the limit named) for a position beyond the service's size limits."""
    caps = limits(gw, token)
    if caps.max_text and len(position) > caps.max_text:
        raise GatewayError(413, "RESOURCE_EXHAUSTED", f"position {position[:40]!r}... has {len(position):,} characters; "
                           f"this service reads at most {caps.max_text:,} (max_text)")
    try:
        from ruma.engine.rulesets import get_ruleset

        rules = get_ruleset(ruleset)
        pots, seeds = rules.size(rules.parse(position))
    except Exception:  # noqa: BLE001 - what this process cannot read, the service judges
        return
    for count, limit, what in ((pots, caps.max_pots, "pots"), (seeds, caps.max_seeds, "seeds")):
        if limit and count > limit:
            raise GatewayError(422, "RESOURCE_EXHAUSTED", f"position {position[:60]!r} has {count:,} {what}; this "
                               f"service values positions of at most {limit:,} {what} (max_{what})")


def check_batch(gw: Gateway, count: int, token: str | None = None) -> None:
    """``413`` for a batch larger than the service takes."""
    caps = limits(gw, token)
    if caps.max_batch_size and count > caps.max_batch_size:
        raise GatewayError(413, "RESOURCE_EXHAUSTED", f"a batch of {count:,} positions; this service takes at most "
                           f"{caps.max_batch_size:,} a request (max_batch_size)")


def within_page(gw: Gateway, ruleset: str, position: str, token: str | None = None,
                seconds: float = PAGE_SECONDS) -> Heavy | None:
    """``None`` once the position's value is stored (it was, or it was valued within ``seconds``),
    else why not (see the module docstring). Bad input and other failures raise ``GatewayError``."""
    check_size(gw, ruleset, position, token)
    client = gw.client(token)
    item = gw.call(lambda: client.lookup(ruleset, [position]))[0]
    if not item.ok:
        status = {"INVALID_ARGUMENT": 400, "RESOURCE_EXHAUSTED": 422}.get(item.code.name, 500)
        raise GatewayError(status, item.code.name, item.message)
    if item.found:
        return None
    try:
        gw.call(lambda: client.evaluate(ruleset, position, max_positions=gw.max_positions, timeout=seconds))
        return None
    except GatewayError as error:
        reason = stopped_by(error)
        if reason is None:
            raise
        caps = limits(gw, token)
        return Heavy(ruleset, position, reason, error.message, seconds, gw.address, caps.max_seconds, caps.auth_required)


def stopped_by(error: GatewayError) -> str | None:
    """What stopped an evaluation, when it was its size or time (``None`` for anything else)."""
    if error.code == "DEADLINE_EXCEEDED":
        return "time"
    if error.code == "RESOURCE_EXHAUSTED":
        for words, reason in _STOPPED_BY:
            if words in error.message:
                return "time-limit" if reason == "time" else reason
    return None
