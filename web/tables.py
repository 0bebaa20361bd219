"""The Tables page and its JSON: the tables of Erickson's open questions, as ``ruma tables`` computed
them and the store keeps them (``tables/NAME`` documents, read through the service's ``Documents``
call: served as stored, never recomputed).

``/tables`` renders every stored table (each position a link to its page); ``/api/v1/tables``
lists them, ``/api/v1/tables/NAME`` is one table with every row, and
``/api/v1/tables/NAME/rows/LABEL`` one row (``LABEL`` as the table prints it: ``2^-3``, ``∗4``,
``+_1/2``; followers' rows are ``FAMILY/n`` and ``seeds/s``).
"""

from __future__ import annotations

import json
from typing import Any, Optional
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse

from ruma.client import sweeps_client as sweeps
from ruma.studies.markdown import KIND_TITLES, TITLES, memory
from ruma.studies.open_questions import DOCUMENT_PREFIX, SECTIONS
from ruma.web.api import bearer, gateway
from ruma.web.gateway import Gateway, GatewayError, position_path

router = APIRouter()
API = "/api/v1/tables"


def _row_api(section: str, label: str) -> str:
    return f"{API}/{section}/rows/{quote(label, safe='')}"


def _link(ruleset: str, entry: dict[str, Any]) -> None:
    entry["url"] = position_path(ruleset, entry["position"])


def annotate(document: dict[str, Any]) -> dict[str, Any]:
    """A stored document with its title, its addresses and every position's page."""
    section = document["section"]
    document.update(name=section, title=TITLES.get(section, section), url=f"/tables#{section}", api=f"{API}/{section}")
    ruleset = document["ruleset"]
    document["peak_memory"] = memory(document["generated"]["peak_rss_bytes"])
    for row in document.get("rows", []):
        _link(ruleset, row)
        _link(ruleset, row["fewest_pots"])
        row["others"] = [{"position": p, "url": position_path(ruleset, p)} for p in row.get("others", [])]
        row["api"] = _row_api(section, row["label"])
    if section == "sowing-values":
        document["kinds"] = [{"kind": kind, "title": title, "rows": [r for r in document["rows"] if r["kind"] == kind]}
                             for kind, title in KIND_TITLES.items()]
    for pattern in document.get("patterns", []):
        pattern["title"] = KIND_TITLES.get(pattern["kind"], pattern["kind"])
        for instance in pattern["instances"]:
            _link(ruleset, instance)
    for series in document.get("series", []):
        for count in series["counts"]:
            _link(series["ruleset"], count)
            count["api"] = _row_api(section, f"{series['ruleset']} {series['family']}/{count['n']}")
    for search in document.get("searches", []):
        for found in search["found"]:
            _link(found["ruleset"], found)
    for entry in document.get("largest", []):
        _link(ruleset, entry)
        entry["api"] = _row_api(section, f"seeds/{entry['seeds']}")
    return document


def stored_tables(gw: Gateway, token: Optional[str]) -> list[dict[str, Any]]:
    """Every table the service's store keeps, annotated, in the order of docs/tables.md."""
    client = gw.client(token)
    found = gw.call(lambda: sweeps.documents(client, DOCUMENT_PREFIX))
    tables = []
    for name, content in found:
        try:
            document = json.loads(content)
        except ValueError:
            raise GatewayError(500, "DATA_LOSS", f"the stored document {name!r} is not JSON") from None
        if isinstance(document, dict) and document.get("section") in SECTIONS:
            tables.append(annotate(document))
    return sorted(tables, key=lambda d: SECTIONS.index(d["section"]))


def _table(gw: Gateway, token: Optional[str], section: str) -> dict[str, Any]:
    tables = stored_tables(gw, token)
    for table in tables:
        if table["section"] == section:
            return table
    kept = ", ".join(t["section"] for t in tables) or "none"
    raise GatewayError(404, "NOT_FOUND", f"no table {section!r} in the service's store (it keeps: {kept}; "
                                         f"`ruma tables {section}` computes it)")


def _rows(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = {row["label"]: row for row in table.get("rows", [])}
    for series in table.get("series", []):
        for count in series["counts"]:
            rows[f"{series['ruleset']} {series['family']}/{count['n']}"] = {**count, "ruleset": series["ruleset"],
                                                                           "family": series["family"]}
    for entry in table.get("largest", []):
        rows[f"seeds/{entry['seeds']}"] = entry
    return rows


@router.get(API, tags=["tables"])
def list_tables(gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """The tables of Erickson's open questions the store keeps: name, title, bound, how they were
    computed (command, wall time, peak memory) and where to read each."""
    return [{key: table.get(key) for key in ("name", "title", "ruleset", "bound", "generated", "url", "api")}
            for table in stored_tables(gw, token)]


@router.get(API + "/{section}", tags=["tables"])
def one_table(section: str = Path(examples=["sowing-values"]), gw: Gateway = Depends(gateway),
              token: Optional[str] = Depends(bearer)) -> Any:
    """One table with every row; each position with its page (``url``), each row with its own
    address (``api``)."""
    return _table(gw, token, section)


@router.get(API + "/{section}/rows/{label:path}", tags=["tables"])
def one_row(section: str = Path(examples=["sowing-values"]), label: str = Path(examples=["2^-3"]),
            gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> Any:
    """One row of a table, by its label."""
    rows = _rows(_table(gw, token, section))
    if label not in rows:
        raise GatewayError(404, "NOT_FOUND", f"table {section!r} has no row {label!r}")
    return rows[label]


@router.get("/tables", response_class=HTMLResponse, include_in_schema=False)
def tables_page(request: Request, gw: Gateway = Depends(gateway), token: Optional[str] = Depends(bearer)) -> HTMLResponse:
    """Every stored table, rendered."""
    from ruma.web.pages import render

    return render(request, "tables.html", tables=stored_tables(gw, token))
