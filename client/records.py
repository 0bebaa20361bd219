"""The records the command line prints with ``--json``: one shape per kind, for local and remote.

Each kind has a JSON Schema in ``ruma/client/schemas/<kind>.json`` (``schema(kind)``; the tests
validate every command's output against it). A local evaluation and one from a server give the
same ``evaluation`` record, both built by ``build_evaluation_record``: ``evaluation_record`` here
from the engine's ``Evaluation``, ``ruma.client.results.Evaluation.to_dict`` from a server's.
"""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Iterable, Protocol

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
    "beyond-position",
)


@cache
def schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a kind of record."""
    if kind not in KINDS:
        raise KeyError(f"no record kind {kind!r}")
    text = resources.files("ruma.client").joinpath("schemas", f"{kind}.json").read_text(encoding="utf-8")
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
    return analysis_record(game.outcome.value, game.nim_value, game.left_stop, game.right_stop, game.mean,
                           game.temperature, formatted(weight, notation), game.birthday)


def analysis_record(outcome: str | None, nim_value: int | None, left_stop: Fraction | None,
                    right_stop: Fraction | None, mean: Fraction | None, temperature: Fraction | None,
                    atomic_weight: str | None, birthday: int | None) -> dict[str, Any]:
    """The analysis fields of a record, in their order (``None`` where unknown or undefined)."""
    return {
        "outcome": outcome,
        "nim_value": nim_value,
        "left_stop": rational(left_stop),
        "right_stop": rational(right_stop),
        "mean": rational(mean),
        "temperature": rational(temperature),
        "atomic_weight": atomic_weight,
        "birthday": birthday,
    }


class Cost(Protocol):
    """What an evaluation cost, as the engine's and the client's ``EvalStats`` both say it."""

    positions_valued: int
    memo_hits: int
    memo_misses: int
    seconds: float


def build_evaluation_record(*, ruleset: str, position: str, canonical: str, mirrored: bool, notation: str,
                            value: str | None, analysis: dict[str, Any],
                            components: Iterable[tuple[str, str | None, bool]], from_store: bool, shared: bool,
                            unverified: bool, stats: Cost) -> dict[str, Any]:
    """The ``evaluation`` record, its values already written in ``notation``; ``analysis`` is
    ``analysis_record``'s, ``components`` are ``(position, value, from_store)``."""
    return {
        "ruleset": ruleset,
        "position": position,
        "canonical": canonical,
        "mirrored": mirrored,
        "notation": notation,
        "value": value,
        **analysis,
        "components": [{"position": p, "value": v, "from_store": stored} for p, v, stored in components],
        "from_store": from_store,
        "shared": shared,
        "unverified": unverified,
        "stats": {"positions_valued": stats.positions_valued, "memo_hits": stats.memo_hits,
                  "memo_misses": stats.memo_misses, "seconds": round(stats.seconds, 6)},
    }


def evaluation_record(evaluation: "Evaluation", notation: str = "unicode", stored: bool = True) -> dict[str, Any]:
    """The ``evaluation`` record of a local evaluation (``ruma.engine.evaluator.Evaluation``);
    ``stored``: whether its memo is a store (else ``from_store`` is false: a value found in this
    process's own memo, valued earlier in the same run, came from no store)."""
    return build_evaluation_record(
        ruleset=evaluation.ruleset.name, position=str(evaluation.position), canonical=str(evaluation.canonical),
        mirrored=evaluation.mirrored, notation=notation, value=formatted(evaluation.value, notation),
        analysis=analysis_fields(evaluation.game, notation),
        components=[(str(c.position), formatted(c.value, notation), stored and c.from_memo)
                    for c in evaluation.components],
        from_store=stored and evaluation.from_memo, shared=False,
        unverified=False,  # (a local store's values are its own computations or verified uploads' alike)
        stats=evaluation.stats)


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
