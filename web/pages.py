"""The explorer's HTML pages: server-rendered (Jinja2), no script, every page a shareable URL.

``/sowing/(10)^3 03 (01)^2`` is the page of that position: value, outcome, analyses, thermograph
and each player's options, every option a link to its own page. ``/catalog``, ``/tags``,
``/theorems`` and ``/search`` browse the catalog; ``/value`` is a calculator; ``/stats`` the store.
The position form submits to ``/go``, which redirects to the position's URL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from ruma.web.api import bearer, gateway, parse_range
from ruma.web.gateway import Gateway, GatewayError, position_path, sketch

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
router = APIRouter(include_in_schema=False)

OUTCOMES = {"L": "Left wins, whoever starts", "R": "Right wins, whoever starts",
            "N": "the player to move wins", "P": "the second player wins"}


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
              429: "Too much work for this service's limits", 504: "The service ran out of time"}
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
    """Named positions, filtered by tag, ruleset, value or name."""
    entries = gw.named_positions(token, name=name or None, tag=tag or None, ruleset=ruleset or None, value=value or None)
    return render(request, "catalog.html", entries=entries, tag=tag, value=value, ruleset=ruleset)


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
    """Named and stored positions of a value."""
    named: list[Any] = []
    stored: list[Any] = []
    if value:
        named = gw.named_positions(token, ruleset=ruleset or None, value=value)
        if ruleset:
            gw.check_ruleset(ruleset, token)
            stored = gw.search_stored(ruleset, value, 50, token)
    return render(request, "search.html", value=value, ruleset=ruleset, named=named, stored=stored,
                  choices=[c for c in choices(gw, token) if ":" not in c])


@router.get("/census", response_class=HTMLResponse)
def census_page(request: Request, ruleset: Optional[str] = None, seeds: Optional[str] = None,
                pots: Optional[str] = None, by: str = Query("value", pattern="^(value|outcome|atomic-weight|temperature)$"),
                gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """A census of a family over the store (once the service offers one)."""
    c = None
    if ruleset and seeds:
        gw.check_ruleset(ruleset, token)
        seed_range = parse_range(seeds, "seeds")
        assert seed_range is not None
        c = gw.census(ruleset, seed_range, parse_range(pots, "pots"), by=by, token=token)
    return render(request, "census.html", c=c, ruleset=ruleset or "sowing", seeds=seeds, pots=pots, by=by,
                  choices=choices(gw, token, ruleset))


@router.get("/stats", response_class=HTMLResponse)
def stats_page(request: Request, gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """The store's counters and the service's limits."""
    return render(request, "stats.html", s=gw.stats(token))


@router.get("/{ruleset}/{position:path}", response_class=HTMLResponse)
def position_page(request: Request, ruleset: str, position: str, gw: Gateway = Depends(gateway),
                  token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """A position: value, outcome, analyses, thermograph and each player's options."""
    gw.check_ruleset(ruleset, token)
    p = gw.position(ruleset, position, token)
    a = p["analyses"]
    rows = [(label, a[key]) for label, key in (("left stop", "left_stop"), ("right stop", "right_stop"),
                                               ("mean", "mean"), ("temperature", "temperature"),
                                               ("birthday", "birthday"), ("atomic weight", "atomic_weight"))
            if a.get(key) is not None]
    if p["nim_value"] is not None:
        rows.insert(0, ("nim value", p["nim_value"]))
    impartial = any(r["name"] == ruleset and r["impartial"] for r in gw.rulesets(token)) or (
        p["left"] == p["right"] and all(o["outcome"] in ("P", "N") for o in p["left"]))
    sides = [("left", "Moves", p["left"])] if impartial else [("left", "Left's options", p["left"]),
                                                              ("right", "Right's options", p["right"])]
    return render(request, "position.html", p=p, rows=rows, sides=sides, sketch=sketch(p["value"]["ascii"]),
                  outcome_text=f"{p['outcome']}: {OUTCOMES.get(p['outcome'], '')}", ruleset=ruleset,
                  position=p["position"], choices=choices(gw, token, ruleset))
