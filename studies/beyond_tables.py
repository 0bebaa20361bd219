"""The ``beyond`` section of ``docs/tables.md`` and ``docs/data/beyond.jsonl``: what the searches of
``ruma find --beyond`` (``studies.beyond``) kept in the store, gathered into one document.

``beyond(sink, command)`` reads every search's state (``beyond/RULESET/VALUE``), and keeps the
document ``tables/beyond`` (rendered by ``studies.markdown``, served by the explorer): per search,
its value, its bound, the positions found of the value asked — and of values below it that the
bound does not hold at all (found on the way, as links of a chain) — each with its size and how
it was reached, and the exact extent searched. ``records(document)`` are the lines of
``docs/data/beyond.jsonl``: one JSON record a found position.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from typing import Any

from ruma.client.sweep.driver import StoreSink
from ruma.engine.cgt.notation import parse_game
from ruma.studies.beyond import DOCUMENT_PREFIX, extent, read_state
from ruma.studies.kinds import KINDS, kind_of

__all__ = ["beyond", "records", "LISTED"]

#: positions listed per value (the simplest)
LISTED = 5


def _order(search: dict[str, Any]) -> tuple[Any, ...]:
    value = parse_game(search["value"])
    kind = kind_of(int(value.nim_value) if search["impartial"] and value.nim_value is not None else value)
    if kind is None:
        return (search["ruleset"], len(KINDS), 0, search["value"])
    return (search["ruleset"], KINDS.index(kind[0]), Fraction(kind[1]), search["value"])


def _search(state: dict[str, Any], impartial: bool) -> dict[str, Any]:
    goals = {g["value"]: g for g in state["goals"]}
    found = sorted(state["found"], key=lambda f: (f["seeds"], f["pots"], f["position"]))
    listed: list[dict[str, Any]] = []
    beside: dict[str, int] = {}
    values = []  # the value asked and those below it the bound holds none of: found or not
    for value in goals:
        mine = [f for f in found if f["value"] == value]
        if value == state["value"] or goals[value]["stored"] == 0:
            listed += mine[:LISTED]
            values.append({"value": value, "label": mine[0]["label"] if mine else _label(value, impartial),
                           "count": len(mine), "first": mine[0] if mine else None, "asked": value == state["value"]})
        elif mine:
            beside[mine[0]["label"]] = len(mine)
    stats = state["stats"]
    runs = stats["runs"]
    return {"ruleset": state["ruleset"], "value": state["value"], "impartial": impartial,
            "label": _label(state["value"], impartial),
            "bound": state["bound"], "found": listed, "values": values, "count": sum(f["value"] == state["value"] for f in found),
            "beside": beside, "goals": state["goals"], "extent": extent(state),
            "seconds": stats["seconds"], "candidates": stats["candidates"], "gave_up": stats["gave_up"],
            "from_store": stats["from_store"], "memo_hits": stats["memo_hits"], "computed": stats["computed"],
            "command": runs[-1]["command"] if runs else "", "runs": len(runs)}


def _label(value: str, impartial: bool) -> str:
    from ruma.engine.cgt import format_value

    game = parse_game(value)
    return format_value(int(game.nim_value) if impartial and game.nim_value is not None else game, "unicode")


def beyond(sink: StoreSink, command: str) -> dict[str, Any]:
    """The ``beyond`` document from the searches the store keeps (see the module docstring)."""
    from ruma.engine.rulesets import get_ruleset
    from ruma.studies.open_questions import DOCUMENT_PREFIX as TABLES
    from ruma.studies.open_questions import _generated

    started = time.perf_counter()
    documents = sink.store.documents
    searches = []
    for name in documents.names(DOCUMENT_PREFIX):
        if name.startswith(DOCUMENT_PREFIX + "census/"):
            continue
        state = read_state(documents, name)
        if state is not None:
            searches.append(_search(state, get_ruleset(state["ruleset"]).impartial))
    searches.sort(key=_order)
    document = {"format": 1, "section": "beyond", "ruleset": "sowing", "searches": searches,
                "generated": _generated(command, started, {s["ruleset"] + " " + s["value"]: s["seconds"]
                                                           for s in searches})}
    documents.put(TABLES + "beyond", json.dumps(document, ensure_ascii=False).encode())
    return document


def records(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The lines of ``docs/data/beyond.jsonl``: every position the section lists."""
    out = []
    seen = set()
    for search in document["searches"]:
        for f in search["found"]:
            if (f["ruleset"], f["position"]) in seen:
                continue
            seen.add((f["ruleset"], f["position"]))
            out.append({"ruleset": f["ruleset"], "position": f["position"], "value": f["value"], "seeds": f["seeds"],
                        "pots": f["pots"], "how": f["how"], "label": f["label"],
                        "search": search["command"], "bound": search["bound"],
                        "found_after_seconds": f["searched_seconds"], "date": f["date"]})
    return out
