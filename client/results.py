"""Typed results of the ruma client: plain dataclasses built from the service's messages.

Values print in Unicode (``str(value)``), CGSuite plain text (``value.ascii``) and cgt-py's braces
notation (``value.braces``), and render in notebooks (``_repr_html_``). ``to_dict()`` gives the
JSON-able record the CLI prints: ``Evaluation.to_dict()`` is the same ``evaluation`` record as
``ruma eval --json`` prints for a local evaluation (schema ``ruma/client/schemas/evaluation.json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import grpc

from ruma.v1 import ruma_pb2 as pb

OUTCOMES = {pb.OUTCOME_L: "L", pb.OUTCOME_R: "R", pb.OUTCOME_N: "N", pb.OUTCOME_P: "P", pb.OUTCOME_UNSPECIFIED: ""}
RELATIONS = {pb.RELATION_EQUAL: "=", pb.RELATION_GREATER: ">", pb.RELATION_LESS: "<", pb.RELATION_CONFUSED: "||"}
STYLES = ("ascii", "unicode", "braces")


class GameValue:
    """A CGT value in every notation; ``str()`` is Unicode.

    Notations the server did not send are formatted locally (from the ASCII form, with
    ``ruma.engine.cgt.notation``) on first use, so bulk replies cost nothing extra to decode.
    Equality compares the canonical ASCII form.
    """

    __slots__ = ("_texts",)

    def __init__(self, ascii: str, unicode: str = "", braces: str = "") -> None:
        self._texts = {"ascii": ascii, "unicode": unicode, "braces": braces}

    @classmethod
    def from_message(cls, message: pb.Value) -> "GameValue":
        """From a ``ruma.v1.Value``."""
        return cls(message.ascii, message.unicode, message.braces)

    def _text(self, style: str) -> str:
        texts = self._texts
        text = texts[style]
        if not text:
            source = next((texts[s] for s in STYLES if texts[s]), "")
            text = source
            if source:
                try:
                    from ruma.engine.cgt.notation import format_game, parse_game

                    text = format_game(parse_game(source), style)
                except Exception:  # noqa: BLE001 - fall back to the notation the server sent
                    text = source
            texts[style] = text
        return text

    @property
    def ascii(self) -> str:
        """CGSuite plain text, e.g. ``{1|*}``, ``^``, ``*2``."""
        return self._text("ascii")

    @property
    def unicode(self) -> str:
        """Unicode, e.g. ``↑``, ``∗2``, ``½``."""
        return self._text("unicode")

    @property
    def braces(self) -> str:
        """cgt-py's braces notation."""
        return self._text("braces")

    def game(self) -> Any:
        """The value as a ``ruma.engine.cgt.Game`` (parsed locally)."""
        from ruma.engine.cgt.notation import parse_game

        return parse_game(self.ascii)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameValue) and self.ascii == other.ascii

    def __hash__(self) -> int:
        return hash(self.ascii)

    def __repr__(self) -> str:
        return f"GameValue({self.ascii!r})"

    def __str__(self) -> str:
        return self.unicode or self.ascii

    def _repr_html_(self) -> str:
        from ruma.client.display import value_html

        return value_html(self)

    def _repr_svg_(self) -> str | None:
        from ruma.client.display import value_svg

        return value_svg(self)

    def _repr_latex_(self) -> str | None:
        from ruma.client.display import value_latex

        return value_latex(self)


def _value_or_none(message: Any, name: str) -> GameValue | None:
    return GameValue.from_message(getattr(message, name)) if message.HasField(name) else None


def _fraction(text: str) -> Fraction | None:
    return Fraction(text) if text else None


@dataclass(slots=True)
class EvalStats:
    """What one evaluation cost on the server."""

    positions_valued: int
    memo_hits: int
    memo_misses: int
    seconds: float


@dataclass(slots=True)
class Component:
    """One independent summand of a position."""

    position: str
    key: bytes
    value: GameValue
    from_store: bool


@dataclass(slots=True)
class Evaluation:
    """The value of one position, with its analysis and provenance."""

    ruleset: str
    ruleset_version: int
    position: str
    canonical: str
    key: bytes
    mirrored: bool
    value: GameValue
    outcome: str
    nim_value: int | None
    atomic_weight: GameValue | None
    temperature: Fraction | None
    mean: Fraction | None
    left_stop: Fraction | None
    right_stop: Fraction | None
    birthday: int | None
    components: list[Component]
    from_store: bool
    shared: bool
    stats: EvalStats
    #: the value (or a component's) is an upload the server has not re-valued yet
    unverified: bool = False

    @classmethod
    def from_message(cls, m: pb.Evaluation) -> "Evaluation":
        """From a ``ruma.v1.Evaluation``."""
        stats = m.stats
        common: dict[str, Any] = dict(
            ruleset=m.ruleset, ruleset_version=m.ruleset_version, position=m.position, canonical=m.canonical,
            key=m.key, mirrored=m.mirrored, value=GameValue.from_message(m.value),
            components=[Component(c.position, c.key, GameValue.from_message(c.value), c.from_store) for c in m.components],
            from_store=m.from_store, shared=m.shared, unverified=m.unverified,
            stats=EvalStats(stats.positions_valued, stats.memo_hits, stats.memo_misses, stats.seconds),
        )
        if not m.HasField("analysis"):  # brief replies
            return cls(outcome="", nim_value=None, atomic_weight=None, temperature=None, mean=None,
                       left_stop=None, right_stop=None, birthday=None, **common)
        a = m.analysis
        return cls(
            outcome=OUTCOMES[a.outcome],
            nim_value=a.nim_value if a.HasField("nim_value") else None,
            atomic_weight=_value_or_none(a, "atomic_weight"),
            temperature=_fraction(a.temperature), mean=_fraction(a.mean),
            left_stop=_fraction(a.left_stop), right_stop=_fraction(a.right_stop),
            birthday=a.birthday, **common,
        )

    def __str__(self) -> str:
        return f"{self.position} = {self.value}"

    def __repr__(self) -> str:
        how = "from the store" if self.from_store else f"computed {self.stats.positions_valued} positions"
        if self.unverified:
            how += " (an unverified upload)"
        outcome = f", outcome {self.outcome}" if self.outcome else ""
        return f"<Evaluation {self.ruleset} {self.position!r} = {self.value.ascii}{outcome}, {how}>"

    def _repr_html_(self) -> str:
        from ruma.client.display import evaluation_html

        return evaluation_html(self)

    def _repr_svg_(self) -> str | None:
        return self.value._repr_svg_()

    def _repr_latex_(self) -> str:
        from ruma.client.display import evaluation_latex

        return evaluation_latex(self)

    def to_dict(self, notation: str = "unicode") -> dict[str, Any]:
        """The ``evaluation`` record (values in ``notation``), as ``ruma eval``/``ruma query`` print it."""
        from ruma.client.records import analysis_record, build_evaluation_record

        def text(value: GameValue | None) -> str | None:
            return None if value is None else str(getattr(value, notation))

        return build_evaluation_record(
            ruleset=self.ruleset, position=self.position, canonical=self.canonical, mirrored=self.mirrored,
            notation=notation, value=text(self.value),
            analysis=analysis_record(self.outcome or None, self.nim_value, self.left_stop, self.right_stop, self.mean,
                                     self.temperature, text(self.atomic_weight), self.birthday),
            components=[(c.position, text(c.value), c.from_store) for c in self.components],
            from_store=self.from_store, shared=self.shared, unverified=self.unverified, stats=self.stats)


@dataclass(slots=True)
class BatchItem:
    """One position of a batch: its status and, when OK, its evaluation."""

    position: str
    code: grpc.StatusCode  # OK on success
    message: str
    evaluation: Evaluation | None

    @property
    def ok(self) -> bool:
        """Whether the position was valued."""
        return bool(self.code == grpc.StatusCode.OK)

    def __str__(self) -> str:
        return str(self.evaluation) if self.evaluation is not None else f"{self.position}: {self.message}"


@dataclass(slots=True)
class LookupItem:
    """One position looked up in the store."""

    position: str
    found: bool
    code: grpc.StatusCode  # OK unless the position is malformed
    message: str
    evaluation: Evaluation | None

    @property
    def ok(self) -> bool:
        """Whether the position could be looked up (found or not)."""
        return bool(self.code == grpc.StatusCode.OK)

    def __str__(self) -> str:
        if self.code != grpc.StatusCode.OK:
            return f"{self.position}: {self.message}"
        return str(self.evaluation) if self.evaluation is not None else f"{self.position}: not stored"


@dataclass(frozen=True)
class Comparison:
    """How two values compare: ``relation`` is one of ``=``, ``>``, ``<``, ``||``."""

    relation: str
    a: GameValue
    b: GameValue
    difference: GameValue

    def __str__(self) -> str:
        return f"{self.a} {self.relation} {self.b}"


@dataclass(frozen=True)
class SumResult:
    """A disjunctive sum."""

    value: GameValue
    outcome: str
    nim_value: int | None
    temperature: Fraction | None
    terms: list[GameValue]
    mean: Fraction | None = None
    left_stop: Fraction | None = None
    right_stop: Fraction | None = None
    birthday: int | None = None
    atomic_weight: GameValue | None = None

    def __str__(self) -> str:
        return str(self.value)

    def _repr_html_(self) -> str:
        return self.value._repr_html_()

    def _repr_latex_(self) -> str | None:
        return self.value._repr_latex_()


@dataclass(frozen=True)
class OptionValue:
    """One option of a position with its value."""

    position: str
    value: GameValue
    outcome: str
    nim_value: int | None

    def __str__(self) -> str:
        return f"{self.position} = {self.value}"


@dataclass(frozen=True)
class OptionsResult:
    """A position's value and each player's options with theirs."""

    evaluation: Evaluation
    left: list[OptionValue]
    right: list[OptionValue]

    def __str__(self) -> str:
        lefts = ", ".join(map(str, self.left))
        rights = ", ".join(map(str, self.right))
        return f"{self.evaluation}\n  Left:  {lefts or '-'}\n  Right: {rights or '-'}"

    def _repr_html_(self) -> str:
        from ruma.client.display import options_html

        return options_html(self)


@dataclass(frozen=True)
class RulesetInfo:
    """A ruleset the server knows."""

    name: str
    code: int
    version: int
    impartial: bool
    description: str


@dataclass(frozen=True)
class Capabilities:
    """What the server offers."""

    rulesets: list[RulesetInfo]
    max_pots: int
    max_seeds: int
    max_positions: int
    max_batch_size: int
    server_version: str
    engine_version: str
    auth_required: bool
    services: list[str]
    max_text: int = 0
    """characters of a position or value expression (0: not said)"""
    max_seconds: float = 0.0
    """a request's time budget on the server (0: none)"""


@dataclass(frozen=True)
class Stats:
    """The server's counters."""

    store_entries: int
    store_bytes: int
    hits: int
    misses: int
    evaluations_in_flight: int
    evaluations_total: int
    positions_valued: int
    shared: int
    uptime_seconds: float
    #: stored uploads the server has not re-valued yet
    unverified_entries: int = 0
    #: uploaded values the server found wrong and replaced since it started
    uploads_corrected: int = 0


@dataclass
class LoadSummary:
    """What a bulk load did: positions valued now, stored already (before the load sent them),
    failed (with reasons; none of them stored when the load ended)."""

    valued: int = 0
    already_stored: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def total(self) -> int:
        """Positions processed."""
        return self.valued + self.already_stored + len(self.failed)

    def __str__(self) -> str:
        return (f"{self.total} positions: {self.valued} valued, {self.already_stored} already stored, "
                f"{len(self.failed)} failed ({self.seconds:.1f} s)")

    def to_dict(self) -> dict[str, Any]:
        """The ``load-summary`` record."""
        return {"total": self.total, "valued": self.valued, "already_stored": self.already_stored,
                "failed": [{"position": p, "reason": r} for p, r in self.failed],
                "seconds": round(self.seconds, 3)}
