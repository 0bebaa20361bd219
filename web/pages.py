"""The explorer's HTML pages: server-rendered (Jinja2), every page a shareable URL; the one script,
``static/copy.js``, makes the "copy as CGSuite" button beside each value copy its CGSuite text.

``/sowing/(10)^3 03 (01)^2`` is the page of that position: value, outcome, analyses, thermograph
and each player's options, every option a link to its own page. A position whose value is not
stored and takes longer than a page waits (``ruma.web.heavy``) gets an immediate page that says
so, offers to compute it in the background (``POST /jobs``; ``/jobs/ID`` refreshes itself until
the value is there, then leads to the position) and gives the exact ``ruma`` command.
``/catalog`` (with values, and whether each agrees with its paper), ``/tags``, ``/theorems`` and
``/search`` browse the catalog (``/census``, a census of a family, is ``ruma.web.census``); ``/value``
is a calculator; ``/stats`` the store. The position form submits to ``/go``, which redirects to
the position's URL.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Optional

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from ruma.engine.cgt.notation import cgsuite_text
from ruma.web import heavy
from ruma.web.api import bearer, gateway, jobs_of, page_seconds
from ruma.web.catalog import COUNT_UP_TO, cgsuite, counted, unicode, with_values
from ruma.web.gateway import Gateway, GatewayError, position_path, sketch

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
router = APIRouter(include_in_schema=False)

OUTCOMES = {"L": "Left wins, whoever starts", "R": "Right wins, whoever starts",
            "N": "the player to move wins", "P": "the second player wins"}
#: stored positions a search page lists
SEARCH_ROWS = 50


def when(text: Any) -> str:
    """An ISO 8601 time as ``2026-11-27 08:17 UTC`` (text that is no time is left as it is)."""
    if not text:
        return ""
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return str(text)
    zone = moment.strftime("%Z") or ("UTC" if moment.utcoffset() is None else "")
    return f"{moment:%Y-%m-%d %H:%M} {zone}".strip()


def duration(seconds: Any) -> str:
    """Seconds as ``2 h 5 min``, ``3 min 12 s`` or ``4.2 s``."""
    value = float(seconds or 0)
    if value < 60:
        return f"{value:.1f} s"
    minutes, secs = divmod(int(value), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    parts = [(days, "d"), (hours, "h"), (minutes, "min"), (secs, "s")]
    shown = [f"{n} {unit}" for n, unit in parts if n][:2]
    return " ".join(shown)


def figure(value: Any) -> str:
    """A counter as people read it: thousands separated, floats rounded."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def words(text: Any) -> Markup:
    """A command or path as words that each stay on one line (``span.word``), escaped: the line
    breaks only at its spaces, never inside a path or after an option's dashes."""
    return Markup(" ").join(Markup('<span class="word">{}</span>').format(word) for word in str(text).split())


TEMPLATES.env.filters.update(when=when, duration=duration, figure=figure, unicode=unicode, cgsuite=cgsuite,
                             cgsuite_text=cgsuite_text, words=words)


def choices(gw: Gateway, token: Optional[str], current: Optional[str] = None) -> list[str]:
    """Ruleset names for a form (``octal:CODE`` shown as the current octal game, or ``octal:0.37``)."""
    out = []
    for r in gw.rulesets(token):
        name = r["name"]
        if name.endswith(":CODE"):
            family = name.partition(":")[0]
            name = current if current and current.startswith(family + ":") else f"{family}:0.37"
        out.append(name)
    return out


def impartial(gw: Gateway, ruleset: str, token: Optional[str]) -> bool:
    """Whether the service calls ``ruleset`` impartial (an octal game is)."""
    family = ruleset.partition(":")[0]
    return any(r["impartial"] and r["name"] in (ruleset, f"{family}:CODE") for r in gw.rulesets(token))


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """A page with the common context (service address, read-only flag)."""
    gw: Gateway = request.app.state.gateway
    context.setdefault("ruleset", None)
    context.setdefault("position", None)
    return TEMPLATES.TemplateResponse(request, template, {"service": gw.address, "read_only": gw.read_only, **context},
                                      status_code=status_code)


def error_page(request: Request, error: GatewayError) -> HTMLResponse:
    """The page of a failed request, with the position form when the rulesets are known."""
    gw: Gateway = request.app.state.gateway
    try:
        names = choices(gw, None, request.path_params.get("ruleset"))
    except GatewayError:
        names = []
    titles = {400: "That is not something the service can read", 404: "Not found",
              413: "Too large for this service", 422: "Beyond this service's limits",
              429: "The service is busy", 503: "The service is busy", 504: "The service ran out of time"}
    return render(request, "error.html", error.status, status=error.status, title=titles.get(error.status, "Error"),
                  message=error.message, choices=names, ruleset=request.path_params.get("ruleset"),
                  position=request.path_params.get("position"))


@router.get("/", response_class=HTMLResponse)
def home(request: Request, gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """The position form and the rulesets."""
    return render(request, "home.html", rulesets=gw.rulesets(token), choices=choices(gw, token), ruleset="sowing")


@router.get("/go")
def go(ruleset: str = Query(...), position: str = Query(..., min_length=1)) -> RedirectResponse:
    """Redirect the position form to the position's shareable URL."""
    return RedirectResponse(position_path(ruleset, position.strip()), status_code=303)


@router.get("/value", response_class=HTMLResponse)
def value_page(request: Request, expression: Optional[str] = None, gw: Gateway = Depends(gateway),
               token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """The calculator: a value expression's canonical form, analyses and thermograph."""
    if not expression:
        return render(request, "value.html", v=None, expression="")
    v = gw.value(expression, token)
    return render(request, "value.html", v=v, expression=expression, sketch=sketch(v["value"]["ascii"]),
                  rows=[(k.replace("_", " "), val) for k, val in v["analyses"].items()])


@router.get("/catalog", response_class=HTMLResponse)
def catalog_page(request: Request, tag: Optional[str] = None, ruleset: Optional[str] = None,
                 value: Optional[str] = None, name: Optional[str] = None, gw: Gateway = Depends(gateway),
                 token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """Named positions with their values, filtered by tag, ruleset, value or name."""
    entries = gw.named_positions(token, name=name or None, tag=tag or None, ruleset=ruleset or None, value=value or None)
    return render(request, "catalog.html", entries=with_values(gw, entries, token, page_seconds(request)), tag=tag, value=value,
                  ruleset=ruleset)


@router.get("/catalog/{name}", response_class=HTMLResponse)
def named_page(request: Request, name: str, gw: Gateway = Depends(gateway),
               token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """One named position with its value and source."""
    return render(request, "named.html", e=gw.named_position(name, token))


@router.get("/tags", response_class=HTMLResponse)
def tags_page(request: Request, gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """Every tag with its number of named positions."""
    return render(request, "tags.html", tags=gw.tags(token))


@router.get("/theorems", response_class=HTMLResponse)
def theorems_page(request: Request, gw: Gateway = Depends(gateway),
                  token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """Every theorem with its latest verification."""
    return render(request, "theorems.html", theorems=gw.theorems(token))


@router.get("/theorems/{name}", response_class=HTMLResponse)
def theorem_page(request: Request, name: str, gw: Gateway = Depends(gateway),
                 token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """One theorem with every verification run."""
    return render(request, "theorem.html", t=gw.theorem(name, token))


@router.get("/search", response_class=HTMLResponse)
def search_page(request: Request, value: Optional[str] = None, ruleset: Optional[str] = None,
                gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """Named and stored positions of a value, saying how many more are stored than listed."""
    named: list[Any] = []
    stored: list[Any] = []
    more, exact = 0, True
    if value:
        named = gw.named_positions(token, ruleset=ruleset or None, value=value)
        if ruleset:
            gw.check_ruleset(ruleset, token)
            stored, more, exact = counted(lambda n: gw.search_stored(ruleset, value, n, token), SEARCH_ROWS)
    return render(request, "search.html", value=value, ruleset=ruleset, named=named, stored=stored, more=more,
                  exact=exact, count_up_to=COUNT_UP_TO, choices=[c for c in choices(gw, token) if ":" not in c])


@router.get("/stats", response_class=HTMLResponse)
def stats_page(request: Request, gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """The store's counters and the service's limits."""
    return render(request, "stats.html", s=gw.stats(token))


@router.post("/jobs")
async def start_job(request: Request, token: Optional[str] = Depends(bearer)) -> Response:
    """Value a position in the background (``ruma.web.jobs``); leads to the job's page. (The form
    is read here, with the standard library: no multipart parser is needed for two fields.)"""
    from urllib.parse import parse_qs

    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    ruleset, position = (form.get(name, [""])[0].strip() for name in ("ruleset", "position"))
    if not ruleset or not position:
        raise GatewayError(400, "INVALID_ARGUMENT", "a job needs a ruleset and a position (form fields)")
    gw: Gateway = request.app.state.gateway
    return await run_in_threadpool(_start_job, request, gw, ruleset, position, token)


def _start_job(request: Request, gw: Gateway, ruleset: str, position: str, token: Optional[str]) -> Response:
    gw.check_ruleset(ruleset, token)
    heavy.check_size(gw, ruleset, position, token)
    job = jobs_of(request).submit(ruleset, position, token)
    return RedirectResponse(job.url, status_code=303)


@router.get("/jobs/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, job_id: str) -> Response:
    """Background work: refreshes itself while it runs; leads to the position once it is valued, to
    the census's page once it is counted (or failed: the census page says why)."""
    job = jobs_of(request).get(job_id)
    if job.kind == "census":
        if job.state in ("done", "failed"):
            return RedirectResponse(job.census_page, status_code=303)
        return render(request, "census_job.html", job=job, ruleset=job.ruleset)
    if job.state == "done":
        return RedirectResponse(position_path(job.ruleset, job.position), status_code=303)
    return render(request, "job.html", job=job, ruleset=job.ruleset, position=job.position,
                  local=heavy.local_command(job.ruleset, job.position))


@router.get("/{ruleset}/{position:path}", response_class=HTMLResponse)
def position_page(request: Request, ruleset: str, position: str, gw: Gateway = Depends(gateway),
                  token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """A position: value, outcome, analyses, thermograph and each player's options; or, when its
    value would take longer than a page waits, an immediate page that offers to compute it."""
    gw.check_ruleset(ruleset, token)
    pending = heavy.within_page(gw, ruleset, position, token, page_seconds(request))
    if pending is not None:  # (422 when the service cannot value it at all)
        return render(request, "heavy.html", 200 if pending.can_queue else 422, h=pending, ruleset=ruleset,
                      position=position,
                      choices=choices(gw, token, ruleset),
                      local=heavy.local_command(ruleset, position))
    p = gw.position(ruleset, position, token)
    a = p["analyses"]
    plain = impartial(gw, ruleset, token)  # stops, mean, temperature and thermograph say nothing of a nimber
    keys = (("birthday", "birthday"),) if plain else (
        ("left stop", "left_stop"), ("right stop", "right_stop"), ("mean", "mean"), ("temperature", "temperature"),
        ("birthday", "birthday"), ("atomic weight", "atomic_weight"))
    rows = [(label, a[key]) for label, key in keys if a.get(key) is not None]
    if p["nim_value"] is not None:
        rows.insert(0, ("nim value", p["nim_value"]))
    sides = [("left", "Moves", p["left"])] if plain else [("left", "Left's options", p["left"]),
                                                          ("right", "Right's options", p["right"])]
    return render(request, "position.html", p=p, rows=rows, sides=sides,
                  sketch="" if plain else sketch(p["value"]["ascii"]),
                  outcome_text=f"{p['outcome']}: {OUTCOMES.get(p['outcome'], '')}", ruleset=ruleset,
                  position=p["position"], choices=choices(gw, token, ruleset))
