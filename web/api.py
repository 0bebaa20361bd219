"""The HTTP JSON API, ``/api/v1/...``: the service's values, options, catalog and counters.

Every endpoint is a thin call of the ``Gateway``; errors are ``{"error": {"status", "code",
"message"}}`` with the status of the gRPC code (400 bad input, 429 a limit, 504 a deadline ...).
A request may bring ``Authorization: Bearer TOKEN``; the gateway then calls the service with that
token instead of its own. The OpenAPI description is ``/api/v1/openapi.json`` (browsable at
``/docs``).
"""

from __future__ import annotations

from typing import Any, Optional

from fastapi import APIRouter, Body, Depends, Header, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from ruma.web.gateway import Gateway, GatewayError

router = APIRouter(prefix="/api/v1", tags=["ruma"])


def gateway(request: Request) -> Gateway:
    """The app's gateway."""
    found: Gateway = request.app.state.gateway
    return found


def bearer(authorization: Optional[str] = Header(None, description="`Bearer TOKEN`: call the service with this token")) -> Optional[str]:
    """The visitor's token, when the request brings one."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


class Value(BaseModel):
    """A value in the three notations."""

    unicode: str = Field(examples=["{2||1|0}"])
    ascii: str
    braces: str


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
    thermograph: Optional[Thermograph] = None
    left: Optional[list[Option]] = None
    right: Optional[list[Option]] = None


class ValueOut(BaseModel):
    """A value expression's canonical form and analyses."""

    expression: str
    value: Value
    analyses: dict[str, str]
    thermograph: Optional[Thermograph] = None


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
    429: {"model": ErrorOut, "description": "a limit of the service (RESOURCE_EXHAUSTED)"},
    504: {"model": ErrorOut, "description": "the deadline passed (DEADLINE_EXCEEDED)"},
}


@router.get("/rulesets", response_model=list[Ruleset], responses=ERRORS)
def rulesets(gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """The rulesets the service offers."""
    return gw.rulesets(token)


@router.get("/positions/{ruleset}/{position:path}", response_model=PositionOut, responses=ERRORS)
def position(ruleset: str = Path(examples=["sowing"]), position: str = Path(examples=["(10)^3 03 (01)^2"]),
             options: bool = Query(True, description="include each player's options"),
             gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Value, analyses and thermograph of a position, and its Left and Right options, each with its
    value and whether it is a winning move for the player who makes it."""
    gw.check_ruleset(ruleset, token)
    return gw.position(ruleset, position, token, options=options)


@router.get("/value", response_model=ValueOut, responses=ERRORS)
def value(expression: str = Query(..., min_length=1, examples=["{2||1|0} + ^*"]),
          gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Canonical form, analyses and thermograph of a value expression (CGSuite, Unicode or braces)."""
    return gw.value(expression, token)


@router.get("/catalog/positions", response_model=list[Open], responses=ERRORS)
def named_positions(name: Optional[str] = None, tag: Optional[str] = None, ruleset: Optional[str] = None,
                    value: Optional[str] = Query(None, description="only positions of this value, e.g. `*4`"),
                    limit: Optional[int] = Query(None, ge=1, le=10_000),
                    gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """Named positions of the catalog matching every filter (with values when ``value`` is given)."""
    return gw.named_positions(token, name=name, tag=tag, ruleset=ruleset, value=value, limit=limit)


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


#: the largest count a range may name (the service's census fields are 32-bit)
MAX_RANGE = 2**31 - 1


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


@router.get("/census/{ruleset}", response_model=Open, responses=ERRORS)
def census(ruleset: str, seeds: str = Query(..., examples=["1-8"], description="seeds A-B (or N)"),
           pots: Optional[str] = Query(None, examples=["1-6"], description="pots C-D (or N); default: any"),
           by: str = Query("value", pattern="^(value|outcome|atomic-weight|temperature)$"),
           simplest: int = Query(3, ge=0, le=20), gw: Gateway = Depends(gateway),
           token: Optional[str] = Depends(bearer)) -> Any:
    """The census of a family over the shared store: how many positions (normalisation classes and
    raw positions) have each value (or outcome, atomic weight, temperature), with the simplest
    positions of each row."""
    gw.check_ruleset(ruleset, token)
    seed_range = parse_range(seeds, "seeds")
    assert seed_range is not None
    return gw.census(ruleset, seed_range, parse_range(pots, "pots"), by=by, simplest=simplest, token=token)


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
