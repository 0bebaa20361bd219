from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CatalogSource(_message.Message):
    __slots__ = ("paper", "table", "ref", "page", "value")
    PAPER_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    paper: str
    table: str
    ref: str
    page: int
    value: str
    def __init__(self, paper: _Optional[str] = ..., table: _Optional[str] = ..., ref: _Optional[str] = ..., page: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...

class NamedPosition(_message.Message):
    __slots__ = ("name", "ruleset", "position", "canonical_key", "tags", "source", "notes", "added_by", "added_at", "has_value", "value", "nim_value", "outcome", "source_agrees", "unverified")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_KEY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    ADDED_BY_FIELD_NUMBER: _ClassVar[int]
    ADDED_AT_FIELD_NUMBER: _ClassVar[int]
    HAS_VALUE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    NIM_VALUE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_AGREES_FIELD_NUMBER: _ClassVar[int]
    UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
    name: str
    ruleset: str
    position: str
    canonical_key: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    source: CatalogSource
    notes: str
    added_by: str
    added_at: str
    has_value: bool
    value: str
    nim_value: int
    outcome: str
    source_agrees: bool
    unverified: bool
    def __init__(self, name: _Optional[str] = ..., ruleset: _Optional[str] = ..., position: _Optional[str] = ..., canonical_key: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[_Union[CatalogSource, _Mapping]] = ..., notes: _Optional[str] = ..., added_by: _Optional[str] = ..., added_at: _Optional[str] = ..., has_value: _Optional[bool] = ..., value: _Optional[str] = ..., nim_value: _Optional[int] = ..., outcome: _Optional[str] = ..., source_agrees: _Optional[bool] = ..., unverified: _Optional[bool] = ...) -> None: ...

class NamedPositions(_message.Message):
    __slots__ = ("positions",)
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    positions: _containers.RepeatedCompositeFieldContainer[NamedPosition]
    def __init__(self, positions: _Optional[_Iterable[_Union[NamedPosition, _Mapping]]] = ...) -> None: ...

class AddPositionRequest(_message.Message):
    __slots__ = ("name", "ruleset", "position", "tags", "notes", "source", "replace")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    name: str
    ruleset: str
    position: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    notes: str
    source: CatalogSource
    replace: bool
    def __init__(self, name: _Optional[str] = ..., ruleset: _Optional[str] = ..., position: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., notes: _Optional[str] = ..., source: _Optional[_Union[CatalogSource, _Mapping]] = ..., replace: _Optional[bool] = ...) -> None: ...

class RemovePositionRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RemovePositionResponse(_message.Message):
    __slots__ = ("removed",)
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: bool
    def __init__(self, removed: _Optional[bool] = ...) -> None: ...

class ListPositionsRequest(_message.Message):
    __slots__ = ("name", "tag", "ruleset", "limit")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    name: str
    tag: str
    ruleset: str
    limit: int
    def __init__(self, name: _Optional[str] = ..., tag: _Optional[str] = ..., ruleset: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ShowPositionRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SearchPositionsRequest(_message.Message):
    __slots__ = ("name", "tag", "ruleset", "value", "limit")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    name: str
    tag: str
    ruleset: str
    value: str
    limit: int
    def __init__(self, name: _Optional[str] = ..., tag: _Optional[str] = ..., ruleset: _Optional[str] = ..., value: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class SearchStoredRequest(_message.Message):
    __slots__ = ("ruleset", "value", "limit")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    value: str
    limit: int
    def __init__(self, ruleset: _Optional[str] = ..., value: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class StoredPosition(_message.Message):
    __slots__ = ("ruleset", "position", "key", "value", "unverified")
    RULESET_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    position: str
    key: str
    value: str
    unverified: bool
    def __init__(self, ruleset: _Optional[str] = ..., position: _Optional[str] = ..., key: _Optional[str] = ..., value: _Optional[str] = ..., unverified: _Optional[bool] = ...) -> None: ...

class StoredPositions(_message.Message):
    __slots__ = ("positions",)
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    positions: _containers.RepeatedCompositeFieldContainer[StoredPosition]
    def __init__(self, positions: _Optional[_Iterable[_Union[StoredPosition, _Mapping]]] = ...) -> None: ...

class VerificationRun(_message.Message):
    __slots__ = ("theorem", "up_to", "bounds_json", "instances_checked", "holds", "counterexample_json", "counterexample_position", "counterexample_value", "claimed_value", "positions_valued", "engine_version", "ruleset_version", "milliseconds", "started_at")
    THEOREM_FIELD_NUMBER: _ClassVar[int]
    UP_TO_FIELD_NUMBER: _ClassVar[int]
    BOUNDS_JSON_FIELD_NUMBER: _ClassVar[int]
    INSTANCES_CHECKED_FIELD_NUMBER: _ClassVar[int]
    HOLDS_FIELD_NUMBER: _ClassVar[int]
    COUNTEREXAMPLE_JSON_FIELD_NUMBER: _ClassVar[int]
    COUNTEREXAMPLE_POSITION_FIELD_NUMBER: _ClassVar[int]
    COUNTEREXAMPLE_VALUE_FIELD_NUMBER: _ClassVar[int]
    CLAIMED_VALUE_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_VALUED_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULESET_VERSION_FIELD_NUMBER: _ClassVar[int]
    MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    theorem: str
    up_to: int
    bounds_json: str
    instances_checked: int
    holds: bool
    counterexample_json: str
    counterexample_position: str
    counterexample_value: str
    claimed_value: str
    positions_valued: int
    engine_version: str
    ruleset_version: int
    milliseconds: int
    started_at: str
    def __init__(self, theorem: _Optional[str] = ..., up_to: _Optional[int] = ..., bounds_json: _Optional[str] = ..., instances_checked: _Optional[int] = ..., holds: _Optional[bool] = ..., counterexample_json: _Optional[str] = ..., counterexample_position: _Optional[str] = ..., counterexample_value: _Optional[str] = ..., claimed_value: _Optional[str] = ..., positions_valued: _Optional[int] = ..., engine_version: _Optional[str] = ..., ruleset_version: _Optional[int] = ..., milliseconds: _Optional[int] = ..., started_at: _Optional[str] = ...) -> None: ...

class VerificationRuns(_message.Message):
    __slots__ = ("runs",)
    RUNS_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[VerificationRun]
    def __init__(self, runs: _Optional[_Iterable[_Union[VerificationRun, _Mapping]]] = ...) -> None: ...

class Theorem(_message.Message):
    __slots__ = ("name", "ruleset", "family", "parameters", "domain", "claim", "claim_kind", "source", "notes", "added_by", "added_at", "last_run")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    CLAIM_KIND_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    ADDED_BY_FIELD_NUMBER: _ClassVar[int]
    ADDED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_FIELD_NUMBER: _ClassVar[int]
    name: str
    ruleset: str
    family: str
    parameters: _containers.RepeatedScalarFieldContainer[str]
    domain: str
    claim: str
    claim_kind: str
    source: CatalogSource
    notes: str
    added_by: str
    added_at: str
    last_run: VerificationRun
    def __init__(self, name: _Optional[str] = ..., ruleset: _Optional[str] = ..., family: _Optional[str] = ..., parameters: _Optional[_Iterable[str]] = ..., domain: _Optional[str] = ..., claim: _Optional[str] = ..., claim_kind: _Optional[str] = ..., source: _Optional[_Union[CatalogSource, _Mapping]] = ..., notes: _Optional[str] = ..., added_by: _Optional[str] = ..., added_at: _Optional[str] = ..., last_run: _Optional[_Union[VerificationRun, _Mapping]] = ...) -> None: ...

class Theorems(_message.Message):
    __slots__ = ("theorems",)
    THEOREMS_FIELD_NUMBER: _ClassVar[int]
    theorems: _containers.RepeatedCompositeFieldContainer[Theorem]
    def __init__(self, theorems: _Optional[_Iterable[_Union[Theorem, _Mapping]]] = ...) -> None: ...

class AddTheoremRequest(_message.Message):
    __slots__ = ("name", "ruleset", "family", "claim", "domain", "source", "notes", "replace")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    REPLACE_FIELD_NUMBER: _ClassVar[int]
    name: str
    ruleset: str
    family: str
    claim: str
    domain: str
    source: CatalogSource
    notes: str
    replace: bool
    def __init__(self, name: _Optional[str] = ..., ruleset: _Optional[str] = ..., family: _Optional[str] = ..., claim: _Optional[str] = ..., domain: _Optional[str] = ..., source: _Optional[_Union[CatalogSource, _Mapping]] = ..., notes: _Optional[str] = ..., replace: _Optional[bool] = ...) -> None: ...

class ListTheoremsRequest(_message.Message):
    __slots__ = ("ruleset",)
    RULESET_FIELD_NUMBER: _ClassVar[int]
    ruleset: str
    def __init__(self, ruleset: _Optional[str] = ...) -> None: ...

class ShowTheoremRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class VerifyTheoremRequest(_message.Message):
    __slots__ = ("name", "up_to")
    NAME_FIELD_NUMBER: _ClassVar[int]
    UP_TO_FIELD_NUMBER: _ClassVar[int]
    name: str
    up_to: int
    def __init__(self, name: _Optional[str] = ..., up_to: _Optional[int] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class SeedRequest(_message.Message):
    __slots__ = ("beyond",)
    BEYOND_FIELD_NUMBER: _ClassVar[int]
    beyond: bool
    def __init__(self, beyond: _Optional[bool] = ...) -> None: ...

class SeedResponse(_message.Message):
    __slots__ = ("positions", "theorems")
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    THEOREMS_FIELD_NUMBER: _ClassVar[int]
    positions: int
    theorems: int
    def __init__(self, positions: _Optional[int] = ..., theorems: _Optional[int] = ...) -> None: ...
