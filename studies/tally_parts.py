"""A family swept into the store and tallied in parts, each part kept in the store as it is done.

A tally of Sowing ≤ 14 walks ten million rows and takes minutes; ``sweep_and_tally`` cuts it into
``parts`` (``studies.tally``: every ``parts``-th row), keeps each part's books in the store as a
document (``tally/RULESET/S/P/kK/I-of-N``) the moment it is done, and joins them
(``tally.merge``). A run stopped — by ``minutes`` running out between two parts, or killed —
loses at most the part it was doing: the same command goes on from the parts the store holds
(and skips the sweep, which was complete before the first part began). Each part records its
wall time and the process's peak memory, so the whole tally's cost is known however many runs
it took.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from ruma.client.sweep.driver import StoreSink, run_sweep
from ruma.engine.cgt import Value
from ruma.engine.cgt.notation import format_game, parse_game
from ruma.engine.errors import RumaError
from ruma.engine.families.classes import Family
from ruma.studies.tally import Tally, TallyRow, merge, tally

__all__ = ["sweep_and_tally", "UnfinishedError", "FORMAT"]

FORMAT = 1


class UnfinishedError(RumaError):
    """The time given ran out before every part of a tally was done (the done ones are stored)."""


def _name(family: Family, keep: int, part: int, parts: int) -> str:
    return (f"tally/{family.ruleset}/{family.seeds_min}-{family.seeds_max}/{family.pots_min}-{family.pots_max}/"
            f"k{keep}/{part}-of-{parts}")


def _text(value: Value) -> str:
    return f"*{value}" if isinstance(value, int) else format_game(value, "braces")


def _encode(piece: Tally, seconds: float, peak: int) -> bytes:
    books = [{"value": _text(v), "nim": isinstance(v, int), "raw": row.raw_positions,
              "simplest": [[list(r), key.hex()] for r, key in row.simplest],
              "fewest": list(row.fewest_pots) if row.fewest_pots is not None else None}
             for v, row in piece.rows.items()]
    return json.dumps({"format": FORMAT, "raw_positions": piece.raw_positions, "walked": piece.walked,
                       "seconds": seconds, "peak_rss_bytes": peak, "books": books}).encode()


def _decode(family: Family, raw: bytes) -> tuple[Tally, float, int] | None:
    data = json.loads(raw)
    if data.get("format") != FORMAT:
        return None
    rows: dict[Value, TallyRow] = {}
    for entry in data["books"]:
        value: Value = int(entry["value"][1:]) if entry["nim"] else parse_game(entry["value"])
        rows[value] = TallyRow(value, entry["raw"], [(tuple(r), bytes.fromhex(k)) for r, k in entry["simplest"]],
                               tuple(entry["fewest"]) if entry["fewest"] is not None else None)
    return Tally(family, rows, data["raw_positions"], data["walked"]), data["seconds"], data["peak_rss_bytes"]


def sweep_and_tally(sink: StoreSink, family: Family, wanted: Callable[[Value], bool], keep: int,
                    workers: int | None, parts: int, minutes: float | None, costs: dict[str, float],
                    swept: dict[str, Any], peak_rss: Callable[[], int], fresh: bool = False) -> Tally:
    """Sweep ``family`` into the store (unless a part of its tally is stored: the sweep was done),
    then tally it in ``parts`` (see the module docstring). ``costs`` gets the seconds of the
    sweep and of the tally (the parts' own, whichever run did them), ``swept`` what the sweep
    found; ``costs["peak_rss_bytes"]`` the largest peak memory of a part. Raises ``UnfinishedError``
    when ``minutes`` run out with parts left to do (checked between parts, after the first this
    run does). ``fresh``: tally every part again, whatever the store holds."""
    started = time.perf_counter()
    store = sink.store
    names = [_name(family, keep, part, parts) for part in range(parts)]
    held = [None if fresh else store.documents.get(name) for name in names]
    pieces: list[Tally | None] = [None if raw is None else _decoded(family, raw, costs) for raw in held]
    sweep_name = _name(family, keep, 0, parts).rsplit("/", 1)[0] + "/sweep"
    if all(piece is None for piece in pieces):
        summary = run_sweep(family, sink, workers=workers)
        record = {"seconds": time.perf_counter() - started, "classes": summary.classes,
                  "already_stored": summary.already_stored, "classes_valued": summary.classes_valued,
                  "workers": summary.workers}
        store.documents.put(sweep_name, json.dumps(record).encode())
    else:  # the sweep was complete before the first part was tallied
        record = json.loads(store.documents.get(sweep_name) or b"{}")
    costs["sweep"] = record.pop("seconds", 0.0)
    swept.update(record, parts=parts)
    done_here = 0
    for part, piece in enumerate(pieces):
        if piece is not None:
            continue
        if minutes is not None and done_here and time.perf_counter() - started > minutes * 60:
            done = sum(p is not None for p in pieces)
            raise UnfinishedError(f"the tally of {family.describe()} is stored in {done} of {parts} parts; "
                                  f"run the same command again to go on")
        begun = time.perf_counter()
        piece = pieces[part] = tally(family, store.lookup_many, wanted, keep, part=part, parts=parts)
        seconds = time.perf_counter() - begun
        store.documents.put(names[part], _encode(piece, seconds, peak_rss()))
        costs["tally"] = costs.get("tally", 0.0) + seconds
        costs["peak_rss_bytes"] = max(costs.get("peak_rss_bytes", 0), peak_rss())
        done_here += 1
    return merge(family, [p for p in pieces if p is not None], keep)


def _decoded(family: Family, raw: bytes, costs: dict[str, float]) -> Tally | None:
    found = _decode(family, raw)
    if found is None:
        return None
    piece, seconds, peak = found
    costs["tally"] = costs.get("tally", 0.0) + seconds
    costs["peak_rss_bytes"] = max(costs.get("peak_rss_bytes", 0), peak)
    return piece
