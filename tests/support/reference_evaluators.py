"""Reference evaluators for the row-of-pots rulesets, built on third-party CGT libraries.

Each has its *own* move generator (written independently of ``ruma.engine.rulesets``, on dicts
of pot index → seeds), no normalisation beyond dropping empty end pots of an unbounded row, and
values positions by plain recursion:

* ``CgtPyEvaluator(ruleset)``: builds cgt-py brace strings ``{a, b|c}`` from the option values
  and parses them with ``cgt_py.CanonicalForm`` (impartial rulesets: ``{opts|opts}``, a nimber).
* ``PycgtEvaluator(ruleset)``: ``pycgt.game(lefts, rights)``.

States are tuples of seed counts as ``ruma`` parses them (a Sowing full pot is a huge count,
which this generator treats literally: it is never sown). ``to_cgt_py``/``to_pycgt`` convert a
ruma ``Game`` (recursively, from its canonical options) for comparison. Used by
``tests/engine/test_rulesets_differential.py`` and by benchmarks.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterator

State = tuple[int, ...]
RULESETS = ("sowing", "impartial-sowing", "atomic-wari", "impartial-atomic-wari", "atomic-wari-board")

sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


def _row(board: dict[int, int], lo: int, hi: int, strip: bool) -> State:
    row = [board.get(k, 0) for k in range(lo, hi + 1)]
    if strip:
        while row and row[0] == 0:
            row.pop(0)
        while row and row[-1] == 0:
            row.pop()
    return tuple(row)


def sowing_moves(state: State, direction: int) -> Iterator[State]:
    """Sowing: take all seeds of a pot, one per pot in ``direction``; the last pot must be nonempty."""
    n = len(state)
    for start, seeds in enumerate(state):
        if seeds <= 0:
            continue
        target = start + direction * seeds
        if target < 0 or target >= n or state[target] == 0:
            continue
        board = dict(enumerate(state))
        board[start] = 0
        for step in range(1, seeds + 1):
            board[start + direction * step] += 1
        yield _row(board, 0, n - 1, strip=True)


def wari_moves(state: State, direction: int, bounded: bool) -> Iterator[State]:
    """Atomic Wari: sow >= 2 seeds starting with the pot itself, capture 2s/3s backwards."""
    n = len(state)
    for start, seeds in enumerate(state):
        if seeds < 2:
            continue
        last = start + direction * (seeds - 1)
        if bounded and (last < 0 or last >= n):
            continue
        board = dict(enumerate(state))
        board[start] = 0
        for step in range(seeds):
            k = start + direction * step
            board[k] = board.get(k, 0) + 1
        k = last
        while board.get(k, 0) in (2, 3):
            board[k] = 0
            k -= direction
        if bounded:
            yield _row(board, 0, n - 1, strip=False)
        else:
            yield _row(board, min(board), max(board), strip=True)


def moves(ruleset: str, state: State) -> tuple[list[State], list[State]]:
    """``(left options, right options)``; for impartial rulesets both are every option."""
    if ruleset in ("sowing", "impartial-sowing"):
        lefts, rights = list(sowing_moves(state, +1)), list(sowing_moves(state, -1))
    elif ruleset in ("atomic-wari", "impartial-atomic-wari"):
        lefts, rights = list(wari_moves(state, +1, False)), list(wari_moves(state, -1, False))
    elif ruleset == "atomic-wari-board":
        lefts, rights = list(wari_moves(state, +1, True)), list(wari_moves(state, -1, True))
    else:
        raise ValueError(f"no reference move generator for {ruleset!r}")
    if ruleset.startswith("impartial-"):
        both = lefts + rights
        return both, both
    return lefts, rights


class _Recursive:
    def __init__(self, ruleset: str) -> None:
        if ruleset not in RULESETS:
            raise ValueError(f"no reference evaluator for {ruleset!r}")
        self.ruleset = ruleset
        self.cache: dict[State, Any] = {}

    def build(self, lefts: list[Any], rights: list[Any]) -> Any:
        raise NotImplementedError

    def value(self, state: State) -> Any:
        """The value of ``state`` (a position of this evaluator's ruleset)."""
        start = tuple(state)
        if self.ruleset != "atomic-wari-board":
            start = _row(dict(enumerate(start)), 0, len(start) - 1, strip=True)
        return self._value(start)

    def _value(self, state: State) -> Any:
        known = self.cache.get(state)
        if known is not None:
            return known
        lefts, rights = moves(self.ruleset, state)
        result = self.build([self._value(s) for s in lefts], [self._value(s) for s in rights])
        self.cache[state] = result
        return result


def _cgt_text(game: Any) -> str:
    text = repr(game)
    prefix = "CanonicalForm('"
    return text[len(prefix) : -2] if text.startswith(prefix) else str(game)


class CgtPyEvaluator(_Recursive):
    """Values positions as ``cgt_py.CanonicalForm`` built from brace strings."""

    def __init__(self, ruleset: str) -> None:
        super().__init__(ruleset)
        import cgt_py

        self.form: Callable[[str], Any] = cgt_py.CanonicalForm

    def build(self, lefts: list[Any], rights: list[Any]) -> Any:
        text = "{" + ", ".join(map(_cgt_text, lefts)) + "|" + ", ".join(map(_cgt_text, rights)) + "}"
        return self.form(text)


class PycgtEvaluator(_Recursive):
    """Values positions as ``pycgt`` games (``pycgt.game(lefts, rights)``)."""

    def __init__(self, ruleset: str) -> None:
        super().__init__(ruleset)
        import pycgt

        self.game: Callable[[list[Any], list[Any]], Any] = pycgt.game

    def build(self, lefts: list[Any], rights: list[Any]) -> Any:
        return self.game(lefts, rights)


def to_cgt_py(game: Any, _cache: dict[int, Any] | None = None) -> Any:
    """A ruma ``Game`` (or nim value) as a ``cgt_py.CanonicalForm``."""
    import cgt_py

    if isinstance(game, int):
        return cgt_py.CanonicalForm(f"*{game}" if game else "0")
    cache = {} if _cache is None else _cache
    got = cache.get(game.id)
    if got is None:
        lefts = [_cgt_text(to_cgt_py(g, cache)) for g in game.left_options]
        rights = [_cgt_text(to_cgt_py(g, cache)) for g in game.right_options]
        got = cgt_py.CanonicalForm("{" + ", ".join(lefts) + "|" + ", ".join(rights) + "}")
        cache[game.id] = got
    return got


def to_pycgt(game: Any, _cache: dict[int, Any] | None = None) -> Any:
    """A ruma ``Game`` (or nim value) as a ``pycgt`` game."""
    import pycgt

    if isinstance(game, int):
        return pycgt.nimber(game)
    cache = {} if _cache is None else _cache
    got = cache.get(game.id)
    if got is None:
        got = pycgt.game([to_pycgt(g, cache) for g in game.left_options], [to_pycgt(g, cache) for g in game.right_options])
        cache[game.id] = got
    return got
