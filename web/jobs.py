"""Positions valued in the background: what the explorer offers when a value takes longer than a
page can wait.

``Jobs`` is a small queue in the explorer's process: ``submit(ruleset, position, token)`` returns
the job of that position (the same one while it is queued or running), and up to
``JOBS_RUNNING`` threads (started by ``submit``, ended when idle) value the jobs one after the
other by calling the service (``Evaluate``, then ``Options`` so that the page's options are
stored too) within the service's own limits (``JOB_SECONDS`` is only the calls' deadline); the
value lands in the service's store, so the position's page is then served at once. A page polls
``/jobs/ID`` (a ``<meta http-equiv="refresh">``, no script); ``/api/v1/jobs/ID`` is the same in
JSON. At most ``MAX_JOBS`` jobs wait; more are refused (``503``: try again later). Finished jobs
are forgotten after ``KEEP_SECONDS``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from ruma.web.gateway import Gateway, GatewayError, position_path

#: jobs valued at once (the service's own evaluation workers do the work)
JOBS_RUNNING = 1
#: jobs that may wait; more are refused
MAX_JOBS = 16
#: seconds a finished job is remembered
KEEP_SECONDS = 600.0
#: the deadline of a job's calls (the service's own time limit still applies)
JOB_SECONDS = 3600.0
#: seconds a job thread waits for another job before it ends
IDLE_SECONDS = 30.0


@dataclass
class Job:
    """One position to value: its state is ``queued``, ``running``, ``done`` or ``failed``."""

    id: str
    ruleset: str
    position: str
    token: str | None = field(default=None, repr=False)
    state: str = "queued"
    message: str = ""
    value: str | None = None
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None

    @property
    def url(self) -> str:
        """The job's page."""
        return f"/jobs/{self.id}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``/api/v1/jobs/ID``)."""
        now = time.monotonic()
        return {"id": self.id, "ruleset": self.ruleset, "position": self.position, "state": self.state,
                "message": self.message or None, "value": self.value, "url": f"/api/v1/jobs/{self.id}",
                "page": self.url, "position_url": position_path(self.ruleset, self.position),
                "seconds": round((self.finished or now) - (self.started or now), 1) if self.started else 0.0}


class Jobs:
    """The queue of one explorer (see the module docstring)."""

    def __init__(self, gateway: Gateway, running: int = JOBS_RUNNING, max_jobs: int = MAX_JOBS) -> None:
        self.gateway = gateway
        self.max_jobs = max_jobs
        self.running = max(1, running)
        self.lock = threading.Condition()
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.waiting: list[Job] = []
        self.threads = 0  # threads valuing jobs; each ends after IDLE_SECONDS without one

    def submit(self, ruleset: str, position: str, token: str | None = None) -> Job:
        """The job valuing ``position`` (an existing one while it is queued or running)."""
        with self.lock:
            self._forget()
            for job in self.jobs.values():
                if (job.ruleset, job.position) == (ruleset, position) and job.state in ("queued", "running"):
                    return job
            if len(self.waiting) >= self.max_jobs:
                raise GatewayError(503, "UNAVAILABLE", f"{len(self.waiting)} positions already wait to be valued "
                                   f"(this explorer's limit is {self.max_jobs}); try again in a minute")
            job = Job(secrets.token_hex(8), ruleset, position, token)
            self.jobs[job.id] = job
            self.waiting.append(job)
            if self.threads < self.running:
                self.threads += 1
                threading.Thread(target=self._work, name="ruma-web-job", daemon=True).start()
            self.lock.notify()
            return job

    def get(self, job_id: str) -> Job:
        """A job by id (404 when unknown or forgotten)."""
        with self.lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise GatewayError(404, "NOT_FOUND", f"no job {job_id!r} (finished jobs are kept {KEEP_SECONDS:.0f} s)")
        return job

    def _forget(self) -> None:
        now = time.monotonic()
        for job_id in [i for i, j in self.jobs.items() if j.finished is not None and now - j.finished > KEEP_SECONDS]:
            del self.jobs[job_id]

    def _work(self) -> None:
        while True:
            with self.lock:
                if not self.waiting:
                    self.lock.wait(IDLE_SECONDS)
                if not self.waiting:
                    self.threads -= 1
                    return
                job = self.waiting.pop(0)
                job.state, job.started = "running", time.monotonic()
            self._value(job)

    def _value(self, job: Job) -> None:
        gateway = self.gateway
        client = gateway.client(job.token)
        steps: list[Callable[[], Any]] = [
            lambda: client.evaluate(job.ruleset, job.position, max_positions=gateway.max_positions, timeout=JOB_SECONDS),
            lambda: client.options(job.ruleset, job.position, timeout=JOB_SECONDS)]
        try:
            evaluation = gateway.call(steps[0])
            job.value = evaluation.value.unicode
            job.state = "done"
            gateway.call(steps[1])
        except GatewayError as error:
            if job.state == "done":  # the value is stored; the page values the options it lacks
                job.message = f"the options were not all valued: {error.message}"
            else:
                job.state, job.message = "failed", error.message
        except Exception as error:  # noqa: BLE001 - a job's failure is shown on its page
            job.state, job.message = "failed", f"{type(error).__name__}: {error}"
        finally:
            job.finished = time.monotonic()
