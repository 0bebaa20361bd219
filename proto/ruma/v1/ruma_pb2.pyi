from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Notation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NOTATION_UNSPECIFIED: _ClassVar[Notation]
    NOTATION_ASCII: _ClassVar[Notation]
    NOTATION_UNICODE: _ClassVar[Notation]
    NOTATION_BRACES: _ClassVar[Notation]

class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTCOME_UNSPECIFIED: _ClassVar[Outcome]
    OUTCOME_L: _ClassVar[Outcome]
    OUTCOME_R: _ClassVar[Outcome]
    OUTCOME_N: _ClassVar[Outcome]
    OUTCOME_P: _ClassVar[Outcome]

class Relation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RELATION_UNSPECIFIED: _ClassVar[Relation]
    RELATION_EQUAL: _ClassVar[Relation]
    RELATION_GREATER: _ClassVar[Relation]
    RELATION_LESS: _ClassVar[Relation]
    RELATION_CONFUSED: _ClassVar[Relation]
NOTATION_UNSPECIFIED: Notation
NOTATION_ASCII: Notation
NOTATION_UNICODE: Notation
NOTATION_BRACES: Notation
OUTCOME_UNSPECIFIED: Outcome
OUTCOME_L: Outcome
OUTCOME_R: Outcome
OUTCOME_N: Outcome
OUTCOME_P: Outcome
RELATION_UNSPECIFIED: Relation
RELATION_EQUAL: Relation
RELATION_GREATER: Relation
RELATION_LESS: Relation
RELATION_CONFUSED: Relation

class Status(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class Value(_message.Message):
    __slots__ = ("ascii", "unicode", "braces")
    ASCII_FIELD_NUMBER: _ClassVar[int]
    UNICODE_FIELD_NUMBER: _ClassVar[int]
    BRACES_FIELD_NUMBER: _ClassVar[int]
    ascii: str
    unicode: str
    braces: str
    def __init__(self, ascii: _Optional[str] = ..., unicode: _Optional[str] = ..., braces: _Optional[str] = ...) -> None: ...

class Analysis(_message.Message):
    __slots__ = ("outcome", "nim_value", "atomic_weight", "temperature", "mean", "left_stop", "right_stop", "birthday")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    NIM_VALUE_FIELD_NUMBER: _ClassVar[int]
    ATOMIC_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    MEAN_FIELD_NUMBER: _ClassVar[int]
    LEFT_STOP_FIELD_NUMBER: _ClassVar[int]
    RIGHT_STOP_FIELD_NUMBER: _ClassVar[int]
    BIRTHDAY_FIELD_NUMBER: _ClassVar[int]
    outcome: Outcome
    nim_value: int
    atomic_weight: Value
    temperature: str
    mean: str
    left_stop: str
    right_stop: str
    birthday: int
    def __init__(self, outcome: _Optional[_Union[Outcome, str]] = ..., nim_value: _Optional[int] = ..., atomic_weight: _Optional[_Union[Value, _Mapping]] = ..., temperature: _Optional[str] = ..., mean: _Optional[str] = ..., left_stop: _Optional[str] = ..., right_stop: _Optional[str] = ..., birthday: _Optional[int] = ...) -> None: ...

class EvalStats(_message.Message):
    __slots__ = ("positions_valued", "memo_hits", "memo_misses", "seconds")
    POSITIONS_VALUED_FIELD_NUMBER: _ClassVar[int]
    MEMO_HITS_FIELD_NUMBER: _ClassVar[int]
    MEMO_MISSES_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    positions_valued: int
    memo_hits: int
    memo_misses: int
    seconds: float
    def __init__(self, positions_valued: _Optional[int] = ..., memo_hits: _Optional[int] = ..., memo_misses: _Optional[int] = ..., seconds: _Optional[float] = ...) -> None: ...

class Component(_message.Message):
    __slots__ = ("position", "key", "value", "from_store")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    FROM_STORE_FIELD_NUMBER: _ClassVar[int]
    position: str
    key: bytes
    value: Value
    from_store: bool
    def __init__(self, position: _Optional[str] = ..., key: _Optional[bytes] = ..., value: _Optional[_Union[Value, _Mapping]] = ..., from_store: _Optional[bool] = ...) -> None: ...

class EvaluateRequest(_message.Message):
    __slots__ = ("ruleset", "position", "notations", "max_positions")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    position: str
    notations: _containers.RepeatedScalarFieldContainer[Notation]
    max_positions: int
    def __init__(self, ruleset: _Optional[str] = ..., position: _Optional[str] = ..., notations: _Optional[_Iterable[_Union[Notation, str]]] = ..., max_positions: _Optional[int] = ...) -> None: ...

class Evaluation(_message.Message):
    __slots__ = ("ruleset", "ruleset_version", "position", "canonical", "key", "mirrored", "value", "analysis", "components", "from_store", "shared", "stats", "unverified")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    RULESET_VERSION_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    MIRRORED_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ANALYSIS_FIELD_NUMBER: _ClassVar[int]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    FROM_STORE_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    ruleset_version: int
    position: str
    canonical: str
    key: bytes
    mirrored: bool
    value: Value
    analysis: Analysis
    components: _containers.RepeatedCompositeFieldContainer[Component]
    from_store: bool
    shared: bool
    stats: EvalStats
    unverified: bool
    def __init__(self, ruleset: _Optional[str] = ..., ruleset_version: _Optional[int] = ..., position: _Optional[str] = ..., canonical: _Optional[str] = ..., key: _Optional[bytes] = ..., mirrored: _Optional[bool] = ..., value: _Optional[_Union[Value, _Mapping]] = ..., analysis: _Optional[_Union[Analysis, _Mapping]] = ..., components: _Optional[_Iterable[_Union[Component, _Mapping]]] = ..., from_store: _Optional[bool] = ..., shared: _Optional[bool] = ..., stats: _Optional[_Union[EvalStats, _Mapping]] = ..., unverified: _Optional[bool] = ...) -> None: ...

class EvaluateBatchRequest(_message.Message):
    __slots__ = ("ruleset", "positions", "notations", "max_positions", "brief")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    BRIEF_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    positions: _containers.RepeatedScalarFieldContainer[str]
    notations: _containers.RepeatedScalarFieldContainer[Notation]
    max_positions: int
    brief: bool
    def __init__(self, ruleset: _Optional[str] = ..., positions: _Optional[_Iterable[str]] = ..., notations: _Optional[_Iterable[_Union[Notation, str]]] = ..., max_positions: _Optional[int] = ..., brief: _Optional[bool] = ...) -> None: ...

class EvaluateBatchResponse(_message.Message):
    __slots__ = ("items",)
    class Item(_message.Message):
        __slots__ = ("position", "status", "evaluation")
        POSITION_FIELD_NUMBER: _ClassVar[int]
        STATUS_FIELD_NUMBER: _ClassVar[int]
        EVALUATION_FIELD_NUMBER: _ClassVar[int]
        position: str
        status: Status
        evaluation: Evaluation
        def __init__(self, position: _Optional[str] = ..., status: _Optional[_Union[Status, _Mapping]] = ..., evaluation: _Optional[_Union[Evaluation, _Mapping]] = ...) -> None: ...
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[EvaluateBatchResponse.Item]
    def __init__(self, items: _Optional[_Iterable[_Union[EvaluateBatchResponse.Item, _Mapping]]] = ...) -> None: ...

class LookupRequest(_message.Message):
    __slots__ = ("ruleset", "positions", "notations")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    positions: _containers.RepeatedScalarFieldContainer[str]
    notations: _containers.RepeatedScalarFieldContainer[Notation]
    def __init__(self, ruleset: _Optional[str] = ..., positions: _Optional[_Iterable[str]] = ..., notations: _Optional[_Iterable[_Union[Notation, str]]] = ...) -> None: ...

class LookupResponse(_message.Message):
    __slots__ = ("items",)
    class Item(_message.Message):
        __slots__ = ("position", "status", "found", "evaluation")
        POSITION_FIELD_NUMBER: _ClassVar[int]
        STATUS_FIELD_NUMBER: _ClassVar[int]
        FOUND_FIELD_NUMBER: _ClassVar[int]
        EVALUATION_FIELD_NUMBER: _ClassVar[int]
        position: str
        status: Status
        found: bool
        evaluation: Evaluation
        def __init__(self, position: _Optional[str] = ..., status: _Optional[_Union[Status, _Mapping]] = ..., found: _Optional[bool] = ..., evaluation: _Optional[_Union[Evaluation, _Mapping]] = ...) -> None: ...
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[LookupResponse.Item]
    def __init__(self, items: _Optional[_Iterable[_Union[LookupResponse.Item, _Mapping]]] = ...) -> None: ...

class Operand(_message.Message):
    __slots__ = ("position", "expression")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    EXPRESSION_FIELD_NUMBER: _ClassVar[int]
    position: PositionRef
    expression: str
    def __init__(self, position: _Optional[_Union[PositionRef, _Mapping]] = ..., expression: _Optional[str] = ...) -> None: ...

class PositionRef(_message.Message):
    __slots__ = ("ruleset", "position")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    position: str
    def __init__(self, ruleset: _Optional[str] = ..., position: _Optional[str] = ...) -> None: ...

class CompareRequest(_message.Message):
    __slots__ = ("a", "b", "notations")
    A_FIELD_NUMBER: _ClassVar[int]
    B_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    a: Operand
    b: Operand
    notations: _containers.RepeatedScalarFieldContainer[Notation]
    def __init__(self, a: _Optional[_Union[Operand, _Mapping]] = ..., b: _Optional[_Union[Operand, _Mapping]] = ..., notations: _Optional[_Iterable[_Union[Notation, str]]] = ...) -> None: ...

class CompareResponse(_message.Message):
    __slots__ = ("relation", "a", "b", "difference")
    RELATION_FIELD_NUMBER: _ClassVar[int]
    A_FIELD_NUMBER: _ClassVar[int]
    B_FIELD_NUMBER: _ClassVar[int]
    DIFFERENCE_FIELD_NUMBER: _ClassVar[int]
    relation: Relation
    a: Value
    b: Value
    difference: Value
    def __init__(self, relation: _Optional[_Union[Relation, str]] = ..., a: _Optional[_Union[Value, _Mapping]] = ..., b: _Optional[_Union[Value, _Mapping]] = ..., difference: _Optional[_Union[Value, _Mapping]] = ...) -> None: ...

class SumRequest(_message.Message):
    __slots__ = ("terms", "notations")
    TERMS_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    terms: _containers.RepeatedCompositeFieldContainer[Operand]
    notations: _containers.RepeatedScalarFieldContainer[Notation]
    def __init__(self, terms: _Optional[_Iterable[_Union[Operand, _Mapping]]] = ..., notations: _Optional[_Iterable[_Union[Notation, str]]] = ...) -> None: ...

class SumResponse(_message.Message):
    __slots__ = ("value", "analysis", "terms")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ANALYSIS_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    value: Value
    analysis: Analysis
    terms: _containers.RepeatedCompositeFieldContainer[Value]
    def __init__(self, value: _Optional[_Union[Value, _Mapping]] = ..., analysis: _Optional[_Union[Analysis, _Mapping]] = ..., terms: _Optional[_Iterable[_Union[Value, _Mapping]]] = ...) -> None: ...

class OptionsRequest(_message.Message):
    __slots__ = ("ruleset", "position", "notations")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    position: str
    notations: _containers.RepeatedScalarFieldContainer[Notation]
    def __init__(self, ruleset: _Optional[str] = ..., position: _Optional[str] = ..., notations: _Optional[_Iterable[_Union[Notation, str]]] = ...) -> None: ...

class Option(_message.Message):
    __slots__ = ("position", "value", "outcome", "nim_value")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    NIM_VALUE_FIELD_NUMBER: _ClassVar[int]
    position: str
    value: Value
    outcome: Outcome
    nim_value: int
    def __init__(self, position: _Optional[str] = ..., value: _Optional[_Union[Value, _Mapping]] = ..., outcome: _Optional[_Union[Outcome, str]] = ..., nim_value: _Optional[int] = ...) -> None: ...

class OptionsResponse(_message.Message):
    __slots__ = ("evaluation", "left", "right")
    EVALUATION_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    RIGHT_FIELD_NUMBER: _ClassVar[int]
    evaluation: Evaluation
    left: _containers.RepeatedCompositeFieldContainer[Option]
    right: _containers.RepeatedCompositeFieldContainer[Option]
    def __init__(self, evaluation: _Optional[_Union[Evaluation, _Mapping]] = ..., left: _Optional[_Iterable[_Union[Option, _Mapping]]] = ..., right: _Optional[_Iterable[_Union[Option, _Mapping]]] = ...) -> None: ...

class GetCapabilitiesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RulesetInfo(_message.Message):
    __slots__ = ("name", "code", "version", "impartial", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    IMPARTIAL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    code: int
    version: int
    impartial: bool
    description: str
    def __init__(self, name: _Optional[str] = ..., code: _Optional[int] = ..., version: _Optional[int] = ..., impartial: _Optional[bool] = ..., description: _Optional[str] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("max_pots", "max_seeds", "max_positions", "max_seconds", "max_memory", "eval_workers", "max_queue", "max_text", "max_birthday", "max_nimber", "max_depth")
    MAX_POTS_FIELD_NUMBER: _ClassVar[int]
    MAX_SEEDS_FIELD_NUMBER: _ClassVar[int]
    MAX_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MAX_MEMORY_FIELD_NUMBER: _ClassVar[int]
    EVAL_WORKERS_FIELD_NUMBER: _ClassVar[int]
    MAX_QUEUE_FIELD_NUMBER: _ClassVar[int]
    MAX_TEXT_FIELD_NUMBER: _ClassVar[int]
    MAX_BIRTHDAY_FIELD_NUMBER: _ClassVar[int]
    MAX_NIMBER_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    max_pots: int
    max_seeds: int
    max_positions: int
    max_seconds: float
    max_memory: int
    eval_workers: int
    max_queue: int
    max_text: int
    max_birthday: int
    max_nimber: int
    max_depth: int
    def __init__(self, max_pots: _Optional[int] = ..., max_seeds: _Optional[int] = ..., max_positions: _Optional[int] = ..., max_seconds: _Optional[float] = ..., max_memory: _Optional[int] = ..., eval_workers: _Optional[int] = ..., max_queue: _Optional[int] = ..., max_text: _Optional[int] = ..., max_birthday: _Optional[int] = ..., max_nimber: _Optional[int] = ..., max_depth: _Optional[int] = ...) -> None: ...

class Capabilities(_message.Message):
    __slots__ = ("rulesets", "limits", "max_batch_size", "notations", "server_version", "engine_version", "auth_required", "services")
    RULESETS_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTH_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    SERVICES_FIELD_NUMBER: _ClassVar[int]
    rulesets: _containers.RepeatedCompositeFieldContainer[RulesetInfo]
    limits: Limits
    max_batch_size: int
    notations: _containers.RepeatedScalarFieldContainer[Notation]
    server_version: str
    engine_version: str
    auth_required: bool
    services: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, rulesets: _Optional[_Iterable[_Union[RulesetInfo, _Mapping]]] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ..., max_batch_size: _Optional[int] = ..., notations: _Optional[_Iterable[_Union[Notation, str]]] = ..., server_version: _Optional[str] = ..., engine_version: _Optional[str] = ..., auth_required: _Optional[bool] = ..., services: _Optional[_Iterable[str]] = ...) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Stats(_message.Message):
    __slots__ = ("store_entries", "store_bytes", "hits", "misses", "evaluations_in_flight", "evaluations_total", "positions_valued", "shared", "uptime_seconds", "workers_busy", "queued", "worker_memory", "server_memory", "refused", "workers_recycled", "unverified_entries", "uploads_corrected")
    STORE_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    STORE_BYTES_FIELD_NUMBER: _ClassVar[int]
    HITS_FIELD_NUMBER: _ClassVar[int]
    MISSES_FIELD_NUMBER: _ClassVar[int]
    EVALUATIONS_IN_FLIGHT_FIELD_NUMBER: _ClassVar[int]
    EVALUATIONS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_VALUED_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    UPTIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    WORKERS_BUSY_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    WORKER_MEMORY_FIELD_NUMBER: _ClassVar[int]
    SERVER_MEMORY_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    WORKERS_RECYCLED_FIELD_NUMBER: _ClassVar[int]
    UNVERIFIED_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    UPLOADS_CORRECTED_FIELD_NUMBER: _ClassVar[int]
    store_entries: int
    store_bytes: int
    hits: int
    misses: int
    evaluations_in_flight: int
    evaluations_total: int
    positions_valued: int
    shared: int
    uptime_seconds: float
    workers_busy: int
    queued: int
    worker_memory: int
    server_memory: int
    refused: int
    workers_recycled: int
    unverified_entries: int
    uploads_corrected: int
    def __init__(self, store_entries: _Optional[int] = ..., store_bytes: _Optional[int] = ..., hits: _Optional[int] = ..., misses: _Optional[int] = ..., evaluations_in_flight: _Optional[int] = ..., evaluations_total: _Optional[int] = ..., positions_valued: _Optional[int] = ..., shared: _Optional[int] = ..., uptime_seconds: _Optional[float] = ..., workers_busy: _Optional[int] = ..., queued: _Optional[int] = ..., worker_memory: _Optional[int] = ..., server_memory: _Optional[int] = ..., refused: _Optional[int] = ..., workers_recycled: _Optional[int] = ..., unverified_entries: _Optional[int] = ..., uploads_corrected: _Optional[int] = ...) -> None: ...
