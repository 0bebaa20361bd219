"""Type stub of the compiled core (``engine/native/module.c``, ``search.c``)."""

from typing import Any, Callable

FAMILY_SOWING: int
FAMILY_WARI: int
FAMILY_BOARD: int
FULL: int

class Interrupted(Exception):
    """A search stopped: ``args == (kind, state)``, kind ``"cancelled"``, ``"limit"`` or ``"loopy"``."""

class Rules:
    family: int
    impartial: bool
    code: int
    version: int
    reference: Any
    def __init__(self, family: int, impartial: bool, code: int, version: int, reference: Any) -> None: ...
    def parse(self, text: str, /) -> tuple[int, ...]: ...
    def left_options(self, state: tuple[int, ...], /) -> list[tuple[int, ...]]: ...
    def right_options(self, state: tuple[int, ...], /) -> list[tuple[int, ...]]: ...
    def options(self, state: tuple[int, ...], /) -> list[tuple[int, ...]]: ...
    def normalise(self, state: tuple[int, ...], /) -> tuple[tuple[int, ...], bool]: ...
    def components(self, state: tuple[int, ...], /) -> list[tuple[int, ...]]: ...
    def decompose(self, state: tuple[int, ...], /) -> list[tuple[tuple[int, ...], bool]]: ...
    def key(self, state: tuple[int, ...], /) -> bytes: ...
    def size(self, state: tuple[int, ...], /) -> tuple[int, int]: ...

class Search:
    def __init__(
        self,
        rules: Rules,
        lookup: Callable[[bytes], Any],
        insert_many: Callable[[list[tuple[bytes, Any]]], None],
        progress: Callable[[int], None] | None,
        should_cancel: Callable[[], bool] | None,
        max_positions: int,
        canon: Callable[[set[int], set[int]], int] | None,
        add: Callable[[int, int], int] | None,
        neg: Callable[[int], int] | None,
        games: list[Any] | None,
        octal: Callable[[int], int] | None,
        nimber_id: Callable[[int], int] | None,
    ) -> None: ...
    def value(self, component: tuple[int, ...], /) -> int: ...
    def stats(self) -> dict[str, int]: ...
