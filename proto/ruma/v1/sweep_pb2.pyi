from ruma.v1 import ruma_pb2 as _ruma_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CensusGrouping(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CENSUS_GROUPING_UNSPECIFIED: _ClassVar[CensusGrouping]
    CENSUS_BY_VALUE: _ClassVar[CensusGrouping]
    CENSUS_BY_OUTCOME: _ClassVar[CensusGrouping]
    CENSUS_BY_ATOMIC_WEIGHT: _ClassVar[CensusGrouping]
    CENSUS_BY_TEMPERATURE: _ClassVar[CensusGrouping]
CENSUS_GROUPING_UNSPECIFIED: CensusGrouping
CENSUS_BY_VALUE: CensusGrouping
CENSUS_BY_OUTCOME: CensusGrouping
CENSUS_BY_ATOMIC_WEIGHT: CensusGrouping
CENSUS_BY_TEMPERATURE: CensusGrouping

class GameNode(_message.Message):
    __slots__ = ("left", "right")
    LEFT_FIELD_NUMBER: _ClassVar[int]
    RIGHT_FIELD_NUMBER: _ClassVar[int]
    left: _containers.RepeatedScalarFieldContainer[int]
    right: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, left: _Optional[_Iterable[int]] = ..., right: _Optional[_Iterable[int]] = ...) -> None: ...

class UploadRequest(_message.Message):
    __slots__ = ("ruleset", "keys", "values", "games")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    KEYS_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    keys: _containers.RepeatedScalarFieldContainer[bytes]
    values: _containers.RepeatedScalarFieldContainer[int]
    games: _containers.RepeatedCompositeFieldContainer[GameNode]
    def __init__(self, ruleset: _Optional[str] = ..., keys: _Optional[_Iterable[bytes]] = ..., values: _Optional[_Iterable[int]] = ..., games: _Optional[_Iterable[_Union[GameNode, _Mapping]]] = ...) -> None: ...

class UploadResponse(_message.Message):
    __slots__ = ("stored", "already_stored", "verified", "rejected")
    STORED_FIELD_NUMBER: _ClassVar[int]
    ALREADY_STORED_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    stored: int
    already_stored: int
    verified: int
    rejected: _containers.RepeatedCompositeFieldContainer[RejectedEntry]
    def __init__(self, stored: _Optional[int] = ..., already_stored: _Optional[int] = ..., verified: _Optional[int] = ..., rejected: _Optional[_Iterable[_Union[RejectedEntry, _Mapping]]] = ...) -> None: ...

class RejectedEntry(_message.Message):
    __slots__ = ("index", "status")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    index: int
    status: _ruma_pb2.Status
    def __init__(self, index: _Optional[int] = ..., status: _Optional[_Union[_ruma_pb2.Status, _Mapping]] = ...) -> None: ...

class ContainsRequest(_message.Message):
    __slots__ = ("ruleset", "keys")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    KEYS_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    keys: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, ruleset: _Optional[str] = ..., keys: _Optional[_Iterable[bytes]] = ...) -> None: ...

class ContainsResponse(_message.Message):
    __slots__ = ("found",)
    FOUND_FIELD_NUMBER: _ClassVar[int]
    found: _containers.RepeatedScalarFieldContainer[bool]
    def __init__(self, found: _Optional[_Iterable[bool]] = ...) -> None: ...

class CensusRequest(_message.Message):
    __slots__ = ("ruleset", "seeds_min", "seeds_max", "pots_min", "pots_max", "by", "simplest", "notations", "compute_missing", "values")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    SEEDS_MIN_FIELD_NUMBER: _ClassVar[int]
    SEEDS_MAX_FIELD_NUMBER: _ClassVar[int]
    POTS_MIN_FIELD_NUMBER: _ClassVar[int]
    POTS_MAX_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    SIMPLEST_FIELD_NUMBER: _ClassVar[int]
    NOTATIONS_FIELD_NUMBER: _ClassVar[int]
    COMPUTE_MISSING_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    seeds_min: int
    seeds_max: int
    pots_min: int
    pots_max: int
    by: CensusGrouping
    simplest: int
    notations: _containers.RepeatedScalarFieldContainer[_ruma_pb2.Notation]
    compute_missing: bool
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ruleset: _Optional[str] = ..., seeds_min: _Optional[int] = ..., seeds_max: _Optional[int] = ..., pots_min: _Optional[int] = ..., pots_max: _Optional[int] = ..., by: _Optional[_Union[CensusGrouping, str]] = ..., simplest: _Optional[int] = ..., notations: _Optional[_Iterable[_Union[_ruma_pb2.Notation, str]]] = ..., compute_missing: _Optional[bool] = ..., values: _Optional[_Iterable[str]] = ...) -> None: ...

class CensusPosition(_message.Message):
    __slots__ = ("position", "canonical", "seeds", "pots", "mirrored", "unverified")
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    POTS_FIELD_NUMBER: _ClassVar[int]
    MIRRORED_FIELD_NUMBER: _ClassVar[int]
    UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
    position: str
    canonical: str
    seeds: int
    pots: int
    mirrored: bool
    unverified: bool
    def __init__(self, position: _Optional[str] = ..., canonical: _Optional[str] = ..., seeds: _Optional[int] = ..., pots: _Optional[int] = ..., mirrored: _Optional[bool] = ..., unverified: _Optional[bool] = ...) -> None: ...

class CensusRow(_message.Message):
    __slots__ = ("by", "group", "classes", "raw_positions", "simplest", "nim_value", "unverified")
    BY_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    CLASSES_FIELD_NUMBER: _ClassVar[int]
    RAW_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    SIMPLEST_FIELD_NUMBER: _ClassVar[int]
    NIM_VALUE_FIELD_NUMBER: _ClassVar[int]
    UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
    by: str
    group: _ruma_pb2.Value
    classes: int
    raw_positions: int
    simplest: _containers.RepeatedCompositeFieldContainer[CensusPosition]
    nim_value: int
    unverified: int
    def __init__(self, by: _Optional[str] = ..., group: _Optional[_Union[_ruma_pb2.Value, _Mapping]] = ..., classes: _Optional[int] = ..., raw_positions: _Optional[int] = ..., simplest: _Optional[_Iterable[_Union[CensusPosition, _Mapping]]] = ..., nim_value: _Optional[int] = ..., unverified: _Optional[int] = ...) -> None: ...

class CensusSummary(_message.Message):
    __slots__ = ("ruleset", "seeds_min", "seeds_max", "pots_min", "pots_max", "classes", "raw_positions", "rows", "computed", "seconds", "missing", "unverified")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    SEEDS_MIN_FIELD_NUMBER: _ClassVar[int]
    SEEDS_MAX_FIELD_NUMBER: _ClassVar[int]
    POTS_MIN_FIELD_NUMBER: _ClassVar[int]
    POTS_MAX_FIELD_NUMBER: _ClassVar[int]
    CLASSES_FIELD_NUMBER: _ClassVar[int]
    RAW_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    COMPUTED_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    seeds_min: int
    seeds_max: int
    pots_min: int
    pots_max: int
    classes: int
    raw_positions: int
    rows: int
    computed: int
    seconds: float
    missing: int
    unverified: int
    def __init__(self, ruleset: _Optional[str] = ..., seeds_min: _Optional[int] = ..., seeds_max: _Optional[int] = ..., pots_min: _Optional[int] = ..., pots_max: _Optional[int] = ..., classes: _Optional[int] = ..., raw_positions: _Optional[int] = ..., rows: _Optional[int] = ..., computed: _Optional[int] = ..., seconds: _Optional[float] = ..., missing: _Optional[int] = ..., unverified: _Optional[int] = ...) -> None: ...

class CensusReply(_message.Message):
    __slots__ = ("row", "summary")
    ROW_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    row: CensusRow
    summary: CensusSummary
    def __init__(self, row: _Optional[_Union[CensusRow, _Mapping]] = ..., summary: _Optional[_Union[CensusSummary, _Mapping]] = ...) -> None: ...

class DocumentsRequest(_message.Message):
    __slots__ = ("prefix",)
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    prefix: str
    def __init__(self, prefix: _Optional[str] = ...) -> None: ...

class Document(_message.Message):
    __slots__ = ("name", "content")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    content: bytes
    def __init__(self, name: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...

class DocumentsReply(_message.Message):
    __slots__ = ("documents",)
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    documents: _containers.RepeatedCompositeFieldContainer[Document]
    def __init__(self, documents: _Optional[_Iterable[_Union[Document, _Mapping]]] = ...) -> None: ...
