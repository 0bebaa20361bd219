"""The HTTP JSON API, ``/api/v1/...``: the service's values, options, catalog and counters.

Every endpoint is a thin call of the ``Gateway``; errors are ``{"error": {"status", "code",
"message"}}`` with the status of the gRPC code (400 bad input, 413 a request larger than the
service takes, 422 a position beyond its limits — the message names the limit —, 429 or 503 the
service or the explorer busy, 504 a deadline ...). A position whose value is not stored and takes
longer than a page waits is not waited for: ``202 Accepted`` with a background job to poll
(``/api/v1/jobs/ID``, also its ``Location``) and the exact ``ruma`` command. ``POST
/api/v1/batch/{ruleset}`` values many positions, each with its own status.
A request may bring ``Authorization: Bearer TOKEN``; the gateway then calls the service with that
token instead of its own. The OpenAPI description is ``/api/v1/openapi.json`` (browsable at
``/docs``).
"""

from __future__ import annotations

from typing import Any, Optional

from fastapi import APIRouter, Body, Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ruma.web import heavy
from ruma.web.catalog import with_values
from ruma.web.gateway import Gateway, GatewayError
from ruma.web.jobs import Jobs

router = APIRouter(prefix="/api/v1", tags=["ruma"])


def gateway(request: Request) -> Gateway:
    """The app's gateway."""
    found: Gateway = request.app.state.gateway
    return found


def jobs_of(request: Request) -> Jobs:
    """The app's queue of background valuations (made on first use)."""
    state = request.app.state
    found: Jobs | None = getattr(state, "jobs", None)
    if found is None:
        found = state.jobs = Jobs(state.gateway)
    return found


def page_seconds(request: Request) -> float:
    """How long a request waits for a value before offering a background job (``ruma web --page-seconds``)."""
    return float(getattr(request.app.state, "page_seconds", None) or heavy.PAGE_SECONDS)


def bearer(authorization: Optional[str] = Header(None, description="`Bearer TOKEN`: call the service with this token")
           ) -> Optional[str]:
    """The visitor's token, when the request brings one."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


class Value(BaseModel):
    """A value in the three notations, and as CGSuite writes it (``cgsuite``: the ascii text with
    a compound operand of ``+-`` in parentheses, ``+-(1*)``)."""

    unicode: str = Field(examples=["{2||1|0}"])
    ascii: str
    braces: str
    cgsuite: str = Field(examples=["{2||1|0}"], description="CGSuite's plain text (the 'copy as CGSuite' text)")


class Analyses(BaseModel):
    """Stops, mean and temperature (exact rationals as text), birthday, atomic weight."""

    left_stop: Optional[str] = None
    right_stop: Optional[str] = None
    mean: Optional[str] = None
    temperature: Optional[str] = None
    birthday: Optional[int] = None
    atomic_weight: Optional[str] = None


class Thermograph(BaseModel):
    """Vertices ``[x, t]`` of each wall from ``t = -1`` up (vertical above the last), exact."""

    left_wall: list[list[str]]
    right_wall: list[list[str]]
    mean: str
    temperature: str


class Option(BaseModel):
    """An option: its value and whether moving there wins for the player who moves."""

    position: str
    value: Value
    outcome: str
    nim_value: Optional[int] = None
    winning: bool = Field(description="Left: the option's value is >= 0; Right: <= 0")
    url: str


class Component(BaseModel):
    """An independent summand of the position, with its value."""

    position: str
    value: str
    from_store: bool


class PositionOut(BaseModel):
    """A position with its value, analyses, thermograph and options."""

    ruleset: str
    position: str
    canonical: str
    mirrored: bool
    url: str = Field(description="the position's page")
    value: Value
    outcome: str = Field(description="L, R, N or P")
    nim_value: Optional[int] = None
    analyses: Analyses
    components: list[Component]
    from_store: bool
    unverified: bool = Field(False, description="the value (or a component's) is an upload the service has not "
                                                "re-valued yet: it may be wrong")
    thermograph: Optional[Thermograph] = None
    left: Optional[list[Option]] = None
    right: Optional[list[Option]] = None


class ValueAnalyses(Analyses):
    """A value's analyses: typed as a position's are (``birthday`` and ``nim_value`` are integers)."""

    model_config = ConfigDict(extra="allow")

    outcome: str
    nim_value: Optional[int] = None


class ValueOut(BaseModel):
    """A value expression's canonical form and analyses."""

    expression: str
    value: Value
    analyses: ValueAnalyses
    thermograph: Optional[Thermograph] = None


class JobOut(BaseModel):
    """Background work: a position's valuation (``kind`` position: its ``value`` once done) or a
    census (``kind`` census: the ``census`` asked, its ``result`` once done); ``state`` is queued,
    running, done or failed (with its ``message``)."""

    id: str
    kind: str = Field(examples=["position", "census"])
    ruleset: str
    state: str
    message: Optional[str] = None
    url: str
    page: str
    seconds: float
    position: Optional[str] = None
    value: Optional[str] = None
    position_url: Optional[str] = None
    census: Optional[dict[str, Any]] = None
    result: Optional[dict[str, Any]] = None


class Pending(BaseModel):
    """A position or census not waited for: why, the job computing it, and the command that does."""

    status: int = Field(examples=[202])
    code: str = Field(examples=["COMPUTING"])
    message: str
    job: JobOut
    command: str


class NewJob(BaseModel):
    """A position to value in the background."""

    ruleset: str
    position: str


class BatchIn(BaseModel):
    """Positions of one ruleset to value."""

    positions: list[str]


class BatchItem(BaseModel):
    """One position of a batch: its own HTTP-style status, gRPC code and message, and its value."""

    position: str
    status: int = Field(description="200 valued; 202 not valued within this request (see command); 4xx refused")
    code: str
    message: str = ""
    value: Optional[Value] = None
    from_store: Optional[bool] = None
    unverified: Optional[bool] = None
    command: Optional[str] = None


class Ruleset(BaseModel):
    """A ruleset of the service."""

    name: str
    impartial: bool
    version: int
    description: str


class Open(BaseModel):
    """A catalog record (fields as ``ruma catalog ... --json`` prints them)."""

    model_config = ConfigDict(extra="allow")


class Tag(BaseModel):
    """A tag and how many named positions carry it."""

    tag: str
    positions: int


class Stored(BaseModel):
    """A stored position of the value searched for."""

    ruleset: str
    key: str
    value: str
    position: Optional[str] = None
    url: Optional[str] = None
    unverified: bool = Field(False, description="an upload the service has not re-valued yet: it may be wrong")


class ErrorBody(BaseModel):
    """What went wrong: HTTP status, gRPC code name, the service's message."""

    status: int
    code: str = Field(examples=["INVALID_ARGUMENT"])
    message: str


class ErrorOut(BaseModel):
    """The body of every error response."""

    error: ErrorBody


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "bad input (the message quotes it)"},
    404: {"model": ErrorOut, "description": "unknown ruleset or name"},
    413: {"model": ErrorOut, "description": "a request larger than the service takes (the limit named)"},
    422: {"model": ErrorOut, "description": "a position or value beyond the service's limits (the limit named)"},
    429: {"model": ErrorOut, "description": "the service is busy: try again later"},
    504: {"model": ErrorOut, "description": "the deadline passed (DEADLINE_EXCEEDED)"},
}


@router.get("/rulesets", response_model=list[Ruleset], responses=ERRORS)
def rulesets(gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """The rulesets the service offers."""
    return gw.rulesets(token)


@router.get("/positions/{ruleset}/{position:path}", response_model=PositionOut,
            responses={**ERRORS, 202: {"model": Pending, "description": "not stored, and longer than a request waits: "
                                                                     "a background job values it"}})
def position(request: Request, ruleset: str = Path(examples=["sowing"]),
             position: str = Path(examples=["(10)^3 03 (01)^2"]),
             options: bool = Query(True, description="include each player's options"),
             gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Value, analyses and thermograph of a position, and its Left and Right options, each with its
    value and whether it is a winning move for the player who makes it. A position whose value is
    not stored and takes longer than a request waits gets ``202`` at once, with the background job
    valuing it (poll its ``url``; the position is then answered from the store) and the command;
    one beyond what the service computes for a request gets ``422``, the limit named."""
    gw.check_ruleset(ruleset, token)
    pending = heavy.within_page(gw, ruleset, position, token, page_seconds(request))
    if pending is not None:
        if not pending.can_queue:
            raise GatewayError(422, "RESOURCE_EXHAUSTED", f"{pending.explanation()} (on your machine: {pending.command})")
        job = jobs_of(request).submit(ruleset, position, token)
        body = {"status": 202, "code": "COMPUTING", "message": pending.explanation(), "job": job.to_dict(),
                "command": pending.command}
        return JSONResponse(body, status_code=202, headers={"Location": f"/api/v1/jobs/{job.id}"})
    return gw.position(ruleset, position, token, options=options)


@router.post("/jobs", response_model=JobOut, status_code=202, responses=ERRORS)
def start_job(request: Request, job: NewJob = Body(...), gw: Gateway = Depends(gateway),
              token: Optional[str] = Depends(bearer)) -> Any:
    """Value a position in the background (the same job while one of that position waits or runs)."""
    gw.check_ruleset(job.ruleset, token)
    heavy.check_size(gw, job.ruleset, job.position, token)
    started = jobs_of(request).submit(job.ruleset, job.position, token)
    return JSONResponse(started.to_dict(), status_code=202, headers={"Location": f"/api/v1/jobs/{started.id}"})


@router.get("/jobs/{job_id}", response_model=JobOut, responses=ERRORS)
def job_state(request: Request, job_id: str) -> Any:
    """Background work: queued, running, done (a position's value, a census's result) or failed (why)."""
    return jobs_of(request).get(job_id).to_dict()


@router.post("/batch/{ruleset}", response_model=list[BatchItem], responses=ERRORS)
def batch(request: Request, ruleset: str, body: BatchIn = Body(...), gw: Gateway = Depends(gateway),
          token: Optional[str] = Depends(bearer)) -> Any:
    """Many positions of one ruleset, each with its own outcome: stored ones at once, the others
    valued within the time a request waits, each at most that long (the service stops a heavy one
    alone: ``202`` with the command that values it); a malformed one ``400``, one beyond the
    service's limits ``422`` — never the batch's status. A batch larger than the service takes is
    ``413``."""
    from ruma.web.batch import value_batch

    gw.check_ruleset(ruleset, token)
    heavy.check_batch(gw, len(body.positions), token)
    return value_batch(gw, ruleset, body.positions, token, page_seconds(request))


@router.get("/value", response_model=ValueOut, responses=ERRORS)
def value(expression: str = Query(..., min_length=1, examples=["{2||1|0} + ^*"]),
          gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Canonical form, analyses and thermograph of a value expression (CGSuite, Unicode or braces)."""
    out = gw.value(expression, token)
    out["analyses"] = {key: int(text) if key in ("birthday", "nim_value") else text
                       for key, text in out["analyses"].items()}
    return out


@router.get("/catalog/positions", response_model=list[Open], responses=ERRORS)
def named_positions(request: Request, name: Optional[str] = None, tag: Optional[str] = None, ruleset: Optional[str] = None,
                    value: Optional[str] = Query(None, description="only positions of this value, e.g. `*4`"),
                    limit: Optional[int] = Query(None, ge=1, le=10_000),
                    gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Named positions of the catalog matching every filter, each with its stored value (``null``
    and ``stored: false`` when the store does not have it yet) and whether it agrees with the
    value printed in its paper (``source_agrees``, ``null`` when the paper prints none)."""
    return with_values(gw, gw.named_positions(token, name=name, tag=tag, ruleset=ruleset, value=value, limit=limit),
                       token, page_seconds(request))


@router.get("/catalog/positions/{name}", response_model=Open, responses=ERRORS)
def named_position(name: str, gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """One named position, with its value evaluated by the service."""
    return gw.named_position(name, token)


@router.get("/catalog/tags", response_model=list[Tag], responses=ERRORS)
def tags(gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Every tag of the catalog with how many named positions carry it."""
    return gw.tags(token)


@router.get("/theorems", response_model=list[Open], responses=ERRORS)
def theorems(ruleset: Optional[str] = None, gw: Gateway = Depends(gateway),
             token: Optional[str] = Depends(bearer)) -> Any:
    """Every theorem with its latest verification run (``last_run``)."""
    return gw.theorems(token, ruleset)


@router.get("/theorems/{name}", response_model=Open, responses=ERRORS)
def theorem(name: str, gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """One theorem, its latest verification and every run (``runs``, oldest first)."""
    return gw.theorem(name, token)


@router.get("/search/stored", response_model=list[Stored], responses=ERRORS)
def search_stored(ruleset: str = Query(..., examples=["impartial-sowing"]),
                  value: str = Query(..., min_length=1, examples=["*4"]),
                  limit: int = Query(20, ge=1, le=1000),
                  gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Positions in the shared store whose value is ``value``, simplest first."""
    gw.check_ruleset(ruleset, token)
    return gw.search_stored(ruleset, value, limit, token)


@router.get("/stats", response_model=Open, responses=ERRORS)
def stats(gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Store size, hits and misses, evaluations, the service's limits and versions."""
    return gw.stats(token)


class NewPosition(BaseModel):
    """A position to name in the catalog."""

    name: str
    ruleset: str
    position: str
    tags: list[str] = []
    notes: Optional[str] = None


@router.post("/catalog/positions", response_model=Open, responses={**ERRORS, 403: {"model": ErrorOut}})
def add_named_position(entry: NewPosition = Body(...), gw: Gateway = Depends(gateway),
                       token: Optional[str] = Depends(bearer)) -> Any:
    """Catalogue a position (only when the explorer runs with ``--allow-writes``; needs a write token)."""
    return gw.add_named_position(entry.name, entry.ruleset, entry.position, entry.tags, entry.notes, token)


@router.post("/theorems/{name}/verify", response_model=Open, responses={**ERRORS, 403: {"model": ErrorOut}})
def verify_theorem(name: str, up_to: int = Query(..., ge=0, le=64), gw: Gateway = Depends(gateway),
                   token: Optional[str] = Depends(bearer)) -> Any:
    """Verify a theorem up to ``up_to`` (only with ``--allow-writes``; needs a write token)."""
    return gw.verify_theorem(name, up_to, token)
