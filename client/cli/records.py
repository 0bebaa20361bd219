"""The records the command line prints with ``--json``: one shape per kind, for local and remote.

Each kind has a JSON Schema in ``ruma/client/cli/schemas/<kind>.json`` (``schema(kind)``; the tests
validate every command's output against it). A local evaluation and one from a server give the
same ``evaluation`` record: ``evaluation_record`` here mirrors ``results.Evaluation.to_dict``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ruma.engine.cgt import ZERO, Game, Value, format_value
from ruma.engine.errors import NotAtomicError, RumaInputError

if TYPE_CHECKING:
    from ruma.engine.cgt.analysis import Thermograph, Trajectory
    from ruma.engine.evaluator import Evaluation

#: every kind of record, each with ``schemas/<kind>.json``
KINDS = (
    "evaluation", "value", "option", "load-summary", "ruleset", "nim-value", "p-position", "octal",
    "named-position", "stored-position", "theorem", "verification-run", "seed", "removed", "db-revision",
    "store-stats", "store-backup", "store-verify", "store-repair", "store-compact", "server", "tchoukaillon-board",
    "tchoukaillon-min-stones",
    "tchoukaillon-complete", "tchoukaillon-check", "tchoukaillon-graph", "picture", "sweep-summary", "census-row",
)


@lru_cache(maxsize=None)
def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a kind of record."""
    if kind not in KINDS:
        raise KeyError(f"no record kind {kind!r}")
    text = resources.files("ruma.client.cli").joinpath("schemas", f"{kind}.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def rational(value: Fraction | None) -> str | None:
    """A rational as text (``"-2"``, ``"1/2"``), None stays None."""
    return None if value is None else str(value)


def formatted(value: Value | None, notation: str) -> str | None:
    """A value in ``notation`` (None stays None)."""
    return None if value is None else format_value(value, notation)


def renotate(text: str | None, notation: str) -> str | None:
    """A value written in any notation (e.g. the catalog's CGSuite text), rewritten in ``notation``;
    text that does not parse as a value is left as it is."""
    if text is None:
        return None
    from ruma.engine.cgt.notation import format_game, parse_game

    try:
        return format_game(parse_game(text), notation)
    except RumaInputError:
        return text


def analysis_fields(game: Game, notation: str) -> dict[str, Any]:
    """Outcome, nim value, stops, mean, temperature, atomic weight and birthday of a game."""
    weight: Game | None = None
    if game.is_infinitesimal or game is ZERO:  # as the server (ruma.server.work.convert) and the engine do
        try:
            weight = game.atomic_weight
        except NotAtomicError:
            weight = None
    return {
        "outcome": game.outcome.value,
        "nim_value": game.nim_value,
        "left_stop": rational(game.left_stop),
        "right_stop": rational(game.right_stop),
        "mean": rational(game.mean),
        "temperature": rational(game.temperature),
        "atomic_weight": formatted(weight, notation),
        "birthday": game.birthday,
    }


def evaluation_record(evaluation: "Evaluation", notation: str = "unicode") -> dict[str, Any]:
    """The ``evaluation`` record of a local evaluation (``ruma.engine.evaluator.Evaluation``)."""
    stats = evaluation.stats
    return {
        "ruleset": evaluation.ruleset.name,
        "position": str(evaluation.position),
        "canonical": str(evaluation.canonical),
        "mirrored": evaluation.mirrored,
        "notation": notation,
        "value": formatted(evaluation.value, notation),
        **analysis_fields(evaluation.game, notation),
        "components": [{"position": str(c.position), "value": formatted(c.value, notation), "from_store": c.from_memo}
                       for c in evaluation.components],
        "from_store": evaluation.from_memo,
        "shared": False,
        "unverified": False,  # (a local store's values are its own computations or verified uploads' alike)
        "stats": {"positions_valued": stats.positions_valued, "memo_hits": stats.memo_hits,
                  "memo_misses": stats.memo_misses, "seconds": round(stats.seconds, 6)},
    }


def _wall(trajectory: "Trajectory") -> dict[str, Any]:
    return {"points": [[str(x), str(t)] for t, x in trajectory.points], "top_slope": str(trajectory.top_slope)}


def thermograph_record(thermograph: "Thermograph") -> dict[str, Any]:
    """A thermograph as JSON: each wall's vertices ``[x, t]`` (value, then temperature, as CGSuite,
    cgt-py and the web API write them) from ``t = -1`` up, and its slope above."""
    return {"temperature": str(thermograph.temperature), "mast": str(thermograph.mast),
            "left_wall": _wall(thermograph.left_wall), "right_wall": _wall(thermograph.right_wall)}


def value_record(expression: str, notation: str = "unicode") -> dict[str, Any]:
    """The ``value`` record of a value expression (raises ``NotationError`` if malformed)."""
    from ruma.engine.cgt.analysis import atomicity
    from ruma.engine.cgt.notation import STYLES, format_game, parse_game

    game = parse_game(expression)
    weight, reason = atomicity(game)
    return {
        "expression": expression,
        "notation": notation,
        "value": format_game(game, notation),
        "notations": {style: format_game(game, style) for style in STYLES},
        **analysis_fields(game, notation),
        "atomic_weight": formatted(weight, notation),
        "atomic_weight_reason": reason or None,
        "thermograph": thermograph_record(game.thermograph),
        "is_number": game.is_number,
        "is_nimber": game.is_nimber,
        "is_infinitesimal": game.is_infinitesimal,
        "is_all_small": game.is_all_small,
    }
