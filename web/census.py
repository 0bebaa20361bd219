"""The census of a family over the store, as a page (``/census``) and in JSON
(``/api/v1/census/{ruleset}``): never waited for longer than a page waits.

A census is counted by a background job (``ruma.web.jobs``, its own lane): the request waits up to
``--page-seconds`` for it; a census done by then is answered at once, a longer one gets the job —
the page redirects to ``/jobs/ID``, which refreshes itself and, once the census is counted, leads
back to ``/census?...&job=ID`` showing its result; the API answers ``202 Accepted`` with the job,
whose ``result`` is the census once done. A census the service cannot count within its own time
limit fails with a hint: fewer seeds or pots, or ``ruma census ... --data DIR`` where the store is.
Errors (a malformed range, an unknown ruleset) are shown above the census form itself.
"""

from __future__ import annotations

import shlex
from typing import Any, Optional

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ruma.web import heavy
from ruma.web.api import ERRORS, Open, Pending, bearer, gateway, jobs_of, page_seconds
from ruma.web.gateway import Gateway, GatewayError
from ruma.web.jobs import Job
from ruma.web.pages import choices, render

router = APIRouter()

#: the largest count a range may name (the service's census fields are 32-bit)
MAX_RANGE = 2**31 - 1
#: what a census may be grouped by
BY = "^(value|outcome|atomic-weight|temperature)$"


def parse_range(text: Optional[str], what: str) -> Optional[tuple[int, int]]:
    """``"A-B"`` or ``"N"`` as ``(A, B)``; 400 quoting the text otherwise."""
    if text is None or not text.strip():
        return None
    low, dash, high = text.strip().partition("-")
    if not (low.isascii() and low.isdigit() and (high.isascii() and high.isdigit() if dash else True)):
        raise GatewayError(400, "INVALID_ARGUMENT", f"{what} {text!r}: expected N or A-B, e.g. 1-8")
    bounds = int(low), int(high if dash else low)
    if max(bounds) > MAX_RANGE:
        raise GatewayError(400, "INVALID_ARGUMENT", f"{what} {text!r}: at most {MAX_RANGE} (the service refuses far "
                                                    f"less; see /api/v1/stats for its limits)")
    return bounds


def census_pots(ruleset: str, seeds: tuple[int, int], pots: Optional[tuple[int, int]]
                ) -> tuple[Optional[tuple[int, int]], Optional[int]]:
    """The pots a census searches — ``pots`` as given, else what the seeds can fill as far as the
    walk budget reaches, as ``ruma census`` does (``ruma.engine.families.bounds``) — and what the
    seeds can fill (``None`` for a family this process cannot walk: the service judges it)."""
    try:
        from ruma.engine.families.bounds import fill_pots, question_pots

        return pots or (1, question_pots(ruleset, seeds)[0]), fill_pots(ruleset, seeds[1])
    except Exception:  # noqa: BLE001
        return pots, None


def census_query(ruleset: str, seeds: str, pots: Optional[str], by: str, simplest: int,
                 values: list[str]) -> tuple[dict[str, Any], Optional[int]]:
    """The census a request asks (``Jobs.submit_census``'s query) and how many pots its seeds can fill."""
    seed_range = parse_range(seeds, "seeds")
    if seed_range is None:
        raise GatewayError(400, "INVALID_ARGUMENT", "a census needs seeds: N or A-B, e.g. 1-8")
    pot_range, fill = census_pots(ruleset, seed_range, parse_range(pots, "pots"))
    query = {"seeds": list(seed_range), "pots": list(pot_range) if pot_range else None, "by": by,
             "simplest": simplest, "values": values}
    return query, fill


def local_census_command(ruleset: str, query: dict[str, Any]) -> str:
    """The command that counts the census where the store is (``--data``), beyond the service's limits."""
    words = ["ruma", "census", ruleset, "--seeds", "{}..{}".format(*query["seeds"])]
    if query.get("pots"):
        words += ["--pots", "{}..{}".format(*query["pots"])]
    if query.get("by", "value") != "value":
        words += ["--by", query["by"]]
    for value in query.get("values") or ():
        words += ["--value", value]
    return " ".join(shlex.quote(w) for w in words) + " --data DIR"


def hint(error: GatewayError, ruleset: str, query: Optional[dict[str, Any]]) -> str:
    """What to do when a census failed: for one stopped by a time limit, a narrower census or the
    local command (empty otherwise)."""
    if query is None or heavy.stopped_by(error) not in ("time", "time-limit"):
        return ""
    return ("The service could not count this census within its time limit. Ask fewer seeds or pots, or count it "
            f"where the store is, beyond the service's limits: {local_census_command(ruleset, query)}")


def counted(request: Request, gw: Gateway, ruleset: str, query: dict[str, Any], token: Optional[str],
            job_id: Optional[str] = None) -> Job:
    """The job of this census: the one ``job_id`` names when it counted this very census, else one
    submitted now (or the same census queued or running already), waited for up to ``--page-seconds``."""
    jobs = jobs_of(request)
    job = jobs.find(job_id) if job_id else None
    if job is None or job.kind != "census" or (job.ruleset, job.query) != (ruleset, query):
        gw.check_ruleset(ruleset, token)
        job = jobs.submit_census(ruleset, query, token)
    job.wait(page_seconds(request))
    return job


@router.get("/census", response_class=HTMLResponse, include_in_schema=False)
def census_page(request: Request, ruleset: Optional[str] = None, seeds: Optional[str] = None,
                pots: Optional[str] = None, by: str = Query("value", pattern=BY),
                value: Optional[str] = Query(None, description="only these values, comma-separated"),
                job: Optional[str] = None, gw: Gateway = Depends(gateway),
                token: Optional[str] = Depends(bearer)) -> Response:
    """A census of a family over the store, or only of some values (a question by value); one that
    takes longer than a page waits is counted in the background (see the module doc)."""
    context: dict[str, Any] = {"ruleset": ruleset or "sowing", "seeds": seeds, "pots": pots, "by": by, "value": value}
    query = None
    try:
        context["choices"] = choices(gw, token, ruleset)
        if not (ruleset and seeds):
            return render(request, "census.html", c=None, fill=None, **context)
        values = [v.strip() for v in (value or "").split(",") if v.strip()]
        query, fill = census_query(ruleset, seeds, pots, by, 3, values)
        found = counted(request, gw, ruleset, query, token, job)
        if found.state == "done":
            return render(request, "census.html", c=found.result, fill=fill,
                          needs_token=heavy.limits(gw, token).auth_required, **context)
        if found.state == "failed":
            raise found.error or GatewayError(500, "INTERNAL", found.message)
        return RedirectResponse(found.url, status_code=303)
    except GatewayError as error:
        context.setdefault("choices", [])
        return render(request, "census.html", error.status, c=None, fill=None, error=error.message,
                      hint=hint(error, ruleset or "", query), **context)


@router.get("/api/v1/census/{ruleset}", response_model=Open, tags=["ruma"],
            responses={**ERRORS, 202: {"model": Pending, "description": "longer than a request waits: a background "
                                                                     "job counts it (poll its url)"}})
def census_api(request: Request, ruleset: str,
               seeds: str = Query(..., examples=["1-8"], description="seeds A-B (or N)"),
               pots: Optional[str] = Query(None, examples=["1-6"], description="pots C-D (or N); default: any"),
               by: str = Query("value", pattern=BY), simplest: int = Query(3, ge=0, le=20),
               value: list[str] = Query([], description="only the positions of this value (repeatable), e.g. `*3`"),
               gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """The census of a family over the shared store: how many positions (normalisation classes and
    raw positions) have each value (or outcome, atomic weight, temperature), with the simplest
    positions of each row; with ``value``, only the positions of those values (a question by
    value: the simplest positions of ``*3``). The summary states the family searched; ``pots``
    defaults to what the seeds can fill as far as a walk of 6 million rows reaches, and
    ``fill_pots`` says how many pots rows of that many seeds can fill (more than the summary's
    pots: those longer rows were not searched). A census that takes longer than a request waits
    gets ``202`` at once with the background job counting it (its ``result`` is the census once
    done)."""
    gw.check_ruleset(ruleset, token)
    query, fill = census_query(ruleset, seeds, pots, by, simplest, value)
    job = counted(request, gw, ruleset, query, token)
    if job.state == "done":
        return {**(job.result or {}), "fill_pots": fill}
    if job.state == "failed":
        error = job.error or GatewayError(500, "INTERNAL", job.message)
        extra = hint(error, ruleset, query)
        raise GatewayError(error.status, error.code, f"{error.message}. {extra}" if extra else error.message)
    body = {"status": 202, "code": "COMPUTING", "job": job.to_dict(), "command": local_census_command(ruleset, query),
            "message": f"the census takes longer than a request waits ({page_seconds(request):g} s): a background "
                       f"job counts it (poll {job.to_dict()['url']})"}
    return JSONResponse(body, status_code=202, headers={"Location": f"/api/v1/jobs/{job.id}"})
