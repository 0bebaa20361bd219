"""Work in the background: what the explorer offers when a value or a census takes longer than a
page can wait.

``Jobs`` is a small queue in the explorer's process with one lane per kind of job:
``submit(ruleset, position, token)`` returns the job valuing that position, ``submit_census(ruleset,
query, token)`` the job counting that census (the same job while it is queued or running). Each
lane has up to ``JOBS_RUNNING`` threads (started by a submission, ended when idle), so a census never
waits behind a heavy position. A position's job calls the service (``Evaluate``, then ``Options``
so that the page's options are stored too) within the service's own limits (``JOB_SECONDS`` is
only the calls' deadline); when the service stops it at its time limit, what it valued is stored,
and the job asks again, up to ``JOB_ROUNDS`` times. The value lands in the service's store, so the
position's page is then served at once. A census job keeps its result (``Job.result``) for its
page. A page polls ``/jobs/ID`` (a ``<meta http-equiv="refresh">``, no script);
``/api/v1/jobs/ID`` is the same in JSON. At most ``MAX_JOBS`` jobs wait in a lane; more are
refused (``503``: try again later). Finished jobs are forgotten after ``KEEP_SECONDS``.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlencode

from ruma.web.gateway import Gateway, GatewayError, position_path
from ruma.web.heavy import stopped_by

#: jobs of a lane run at once (the service's own evaluation workers do the work)
JOBS_RUNNING = 1
#: jobs that may wait in a lane; more are refused
MAX_JOBS = 16
#: times a position's job asks again when the service stops it at its time limit (each time it
#: goes on from what the service stored)
JOB_ROUNDS = 10
#: seconds a finished job is remembered
KEEP_SECONDS = 600.0
#: the deadline of a job's calls (the service's own time limit still applies)
JOB_SECONDS = 3600.0
#: seconds a job thread waits for another job before it ends
IDLE_SECONDS = 30.0


@dataclass
class Job:
    """One position to value (``kind`` ``position``) or one census to count (``census``, its
    ``query``: seeds, pots, by, simplest, values): its state is ``queued``, ``running``, ``done`` or
    ``failed``; ``finished`` is set when it is done or failed."""

    id: str
    ruleset: str
    position: str = ""
    token: str | None = field(default=None, repr=False)
    kind: str = "position"
    query: dict[str, Any] | None = None
    state: str = "queued"
    message: str = ""
    value: str | None = None
    result: dict[str, Any] | None = field(default=None, repr=False)
    error: GatewayError | None = field(default=None, repr=False)
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    finished: float | None = None
    ended: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes two submissions the same job."""
        return self.kind, self.ruleset, self.position if self.query is None else json.dumps(self.query, sort_keys=True)

    @property
    def url(self) -> str:
        """The job's page."""
        return f"/jobs/{self.id}"

    @property
    def census_page(self) -> str:
        """A census job's page of results (``/census?...&job=ID``)."""
        assert self.query is not None
        return "/census?" + urlencode({"job": self.id, **census_parameters(self.ruleset, self.query)})

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the job to end; whether it has."""
        return self.ended.wait(seconds)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``/api/v1/jobs/ID``)."""
        now = time.monotonic()
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "ruleset": self.ruleset, "state": self.state,
               "message": self.message or None, "url": f"/api/v1/jobs/{self.id}", "page": self.url,
               "seconds": round((self.finished or now) - (self.started or now), 1) if self.started else 0.0}
        if self.kind == "census":
            out.update(census=self.query, result=self.result)
        else:
            out.update(position=self.position, value=self.value,
                       position_url=position_path(self.ruleset, self.position))
        return out


def census_parameters(ruleset: str, query: dict[str, Any]) -> dict[str, str]:
    """A census query as the census page's parameters."""
    seeds, pots = query["seeds"], query.get("pots")
    out = {"ruleset": ruleset, "seeds": f"{seeds[0]}-{seeds[1]}"}
    if pots:
        out["pots"] = f"{pots[0]}-{pots[1]}"
    out["by"] = query.get("by", "value")
    if query.get("values"):
        out["value"] = ", ".join(query["values"])
    return out


class Jobs:
    """The queue of one explorer (see the module docstring)."""

    def __init__(self, gateway: Gateway, running: int = JOBS_RUNNING, max_jobs: int = MAX_JOBS) -> None:
        self.gateway = gateway
        self.max_jobs = max_jobs
        self.running = max(1, running)
        self.lock = threading.Condition()
        self.jobs: OrderedDict[str, Job] = OrderedDict()
        self.waiting: dict[str, list[Job]] = {"position": [], "census": []}
        self.threads = {kind: 0 for kind in self.waiting}  # each ends after IDLE_SECONDS without a job

    def submit(self, ruleset: str, position: str, token: str | None = None) -> Job:
        """The job valuing ``position`` (an existing one while it is queued or running)."""
        return self._submit(Job(secrets.token_hex(8), ruleset, position, token))

    def submit_census(self, ruleset: str, query: dict[str, Any], token: str | None = None) -> Job:
        """The job counting the census ``query`` (``seeds``, ``pots``, ``by``, ``simplest``,
        ``values``) of ``ruleset`` (an existing one while it is queued or running)."""
        return self._submit(Job(secrets.token_hex(8), ruleset, token=token, kind="census", query=query))

    def _submit(self, new: Job) -> Job:
        with self.lock:
            self._forget()
            for job in self.jobs.values():
                if job.key == new.key and job.state in ("queued", "running"):
                    return job
            lane = self.waiting[new.kind]
            if len(lane) >= self.max_jobs:
                what = "positions wait to be valued" if new.kind == "position" else "censuses wait to be counted"
                raise GatewayError(503, "UNAVAILABLE", f"{len(lane)} {what} already (this explorer's limit is "
                                   f"{self.max_jobs}); try again in a minute")
            self.jobs[new.id] = new
            lane.append(new)
            if self.threads[new.kind] < self.running:
                self.threads[new.kind] += 1
                threading.Thread(target=self._work, args=(new.kind,), name=f"ruma-web-{new.kind}-job",
                                 daemon=True).start()
            self.lock.notify_all()
            return new

    def find(self, job_id: str) -> Job | None:
        """A job by id (``None`` when unknown or forgotten)."""
        with self.lock:
            return self.jobs.get(job_id)

    def get(self, job_id: str) -> Job:
        """A job by id (404 when unknown or forgotten)."""
        job = self.find(job_id)
        if job is None:
            raise GatewayError(404, "NOT_FOUND", f"no job {job_id!r} (finished jobs are kept {KEEP_SECONDS:.0f} s)")
        return job

    def _forget(self) -> None:
        now = time.monotonic()
        for job_id in [i for i, j in self.jobs.items() if j.finished is not None and now - j.finished > KEEP_SECONDS]:
            del self.jobs[job_id]

    def _work(self, kind: str) -> None:
        lane = self.waiting[kind]
        while True:
            with self.lock:
                if not lane:
                    self.lock.wait(IDLE_SECONDS)
                if not lane:
                    self.threads[kind] -= 1
                    return
                job = lane.pop(0)
                job.state, job.started = "running", time.monotonic()
            try:
                if kind == "census":
                    self._count(job)
                else:
                    self._value(job)
            except GatewayError as error:
                if job.state == "done":  # the value is stored; the page values the options it lacks
                    job.message = f"the options were not all valued: {error.message}"
                else:
                    job.state, job.message, job.error = "failed", error.message, error
            except Exception as error:  # noqa: BLE001 - a job's failure is shown on its page
                job.state, job.message = "failed", f"{type(error).__name__}: {error}"
                job.error = GatewayError(500, "INTERNAL", job.message)
            finally:
                job.finished = time.monotonic()
                job.ended.set()

    def _value(self, job: Job) -> None:
        gateway = self.gateway
        client = gateway.client(job.token)
        steps: list[Callable[[], Any]] = [
            lambda: client.evaluate(job.ruleset, job.position, max_positions=gateway.max_positions, timeout=JOB_SECONDS),
            lambda: client.options(job.ruleset, job.position, timeout=JOB_SECONDS)]
        for round_ in range(1, JOB_ROUNDS + 1):
            try:
                evaluation = gateway.call(steps[0])
                break
            except GatewayError as error:  # stopped at the service's time limit: it goes on from what it stored
                if round_ == JOB_ROUNDS or stopped_by(error) != "time-limit":
                    raise
        job.value = evaluation.value.unicode
        job.state = "done"
        gateway.call(steps[1])

    def _count(self, job: Job) -> None:
        assert job.query is not None
        query = job.query
        job.result = self.gateway.census(
            job.ruleset, tuple(query["seeds"]), tuple(query["pots"]) if query.get("pots") else None,
            by=query.get("by", "value"), simplest=query.get("simplest", 3), token=job.token,
            values=query.get("values", ()), timeout=JOB_SECONDS)
        job.state = "done"

