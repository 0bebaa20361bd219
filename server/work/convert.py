"""Engine objects → protobuf messages (the only place the service builds its replies).

Analysing a value (outcome, temperature, atomic weight) costs far more than a store lookup, and
the same few values come back again and again, so analyses are cached by the game's interned id
(its text is cached by ``ruma.engine.cgt.notation``). A nim value ``k`` is written and analysed
without building ``∗k`` (which builds ``∗0 … ∗(k-1)`` first): ``∗k`` for ``k ≥ 2`` has the
analysis of ``∗2`` but for its nim value and birthday (both ``k``).
"""

from __future__ import annotations

import logging
import threading
from typing import Iterable, Sequence

from ruma.engine.cgt import ZERO, Game, Value, as_game, format_value
from ruma.engine.errors import NotAtomicError
from ruma.v1 import ruma_pb2 as pb

log = logging.getLogger(__name__)

ALL_STYLES = ("ascii", "unicode", "braces")
_STYLE_OF: dict[int, str] = {pb.NOTATION_ASCII: "ascii", pb.NOTATION_UNICODE: "unicode", pb.NOTATION_BRACES: "braces"}
_OUTCOME = {"L": pb.OUTCOME_L, "R": pb.OUTCOME_R, "N": pb.OUTCOME_N, "P": pb.OUTCOME_P}

#: analyses kept in the cache before it is cleared (values are small; ids are stable)
CACHE_LIMIT = 200_000

_lock = threading.Lock()
_analysed: dict[int, pb.Analysis] = {}


def styles(notations: Iterable[int]) -> tuple[str, ...]:
    """The notation names asked for; none (or only UNSPECIFIED) means all of them."""
    chosen = tuple(dict.fromkeys(_STYLE_OF[n] for n in notations if n in _STYLE_OF))
    return chosen or ALL_STYLES


def value_message(value: Value, chosen: Sequence[str]) -> pb.Value:
    """A ``Value`` message with the chosen notations filled."""
    return pb.Value(**{style: format_value(value, style) for style in chosen})


def outcome_of(value: Value) -> pb.Outcome:
    """The ``Outcome`` enum of a value."""
    if isinstance(value, int):
        return pb.OUTCOME_P if value == 0 else pb.OUTCOME_N
    return _OUTCOME[value.outcome.value]


def analysis_message(value: Value) -> pb.Analysis:
    """Outcome, nim value, atomic weight, temperature, mean, stops, birthday (cached by id)."""
    if isinstance(value, int) and value > 2:  # *k: *2's analysis, with its own nim value and birthday
        message = pb.Analysis()
        message.CopyFrom(analysis_message(2))
        message.nim_value = message.birthday = value
        return message
    game = as_game(value)
    cached = _analysed.get(game.id)
    if cached is not None:
        return cached
    message = pb.Analysis(outcome=outcome_of(game))
    for field in ("temperature", "mean", "left_stop", "right_stop", "birthday"):
        try:
            setattr(message, field, getattr(game, field) if field == "birthday" else str(getattr(game, field)))
        except Exception as error:  # noqa: BLE001 - an analysis bug must not fail the value itself
            _report_analysis_error(game, field, error)
    try:
        nim = game.nim_value
        if nim is not None:
            message.nim_value = nim
        if game is ZERO or game.is_infinitesimal:
            message.atomic_weight.CopyFrom(value_message(game.atomic_weight, ALL_STYLES))
    except NotAtomicError:
        pass
    except Exception as error:  # noqa: BLE001
        _report_analysis_error(game, "atomic_weight", error)
    with _lock:
        if len(_analysed) >= CACHE_LIMIT:
            _analysed.clear()
        _analysed[game.id] = message
    return message


_reported: set[str] = set()


def _report_analysis_error(game: Game, field: str, error: Exception) -> None:
    """Log (once per field and error type) an analysis that raised; the field is left empty."""
    tag = f"{field}:{type(error).__name__}"
    if tag not in _reported:
        _reported.add(tag)
        log.error("analysis %s of %s failed: %r (left empty; further such errors not logged)", field,
                  format_value(game, "ascii"), error, exc_info=error)


def evaluation_message(
    evaluation: object, chosen: Sequence[str], *, shared: bool = False, brief: bool = False
) -> pb.Evaluation:
    """An ``Evaluation`` message from a ``ruma.engine.evaluator.Evaluation``."""
    from ruma.engine.evaluator import Evaluation

    assert isinstance(evaluation, Evaluation)
    rules = evaluation.ruleset
    stats = evaluation.stats
    message = pb.Evaluation(
        ruleset=rules.name,
        ruleset_version=rules.version,
        position=str(evaluation.position),
        canonical=str(evaluation.canonical),
        key=evaluation.key,
        mirrored=evaluation.mirrored,
        value=value_message(evaluation.value, chosen),
        from_store=evaluation.from_memo,
        shared=shared,
        stats=pb.EvalStats(
            positions_valued=stats.positions_valued,
            memo_hits=stats.memo_hits,
            memo_misses=stats.memo_misses,
            seconds=stats.seconds,
        ),
    )
    if not brief:
        message.analysis.CopyFrom(analysis_message(evaluation.value))
        message.components.extend(
            pb.Component(
                position=str(c.position),
                key=c.key,
                value=value_message(c.value, chosen),
                from_store=c.from_memo,
            )
            for c in evaluation.components
        )
    return message


def option_message(position: str, value: Value, chosen: Sequence[str]) -> pb.Option:
    """One option with its value."""
    option = pb.Option(position=position, value=value_message(value, chosen), outcome=outcome_of(value))
    nim = value if isinstance(value, int) else value.nim_value
    if nim is not None:
        option.nim_value = nim
    return option
