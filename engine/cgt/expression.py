"""Value expressions are parsed into a small tree, bounded, and only then built.

Building a game builds every game it is made of: ``*k`` builds ``*0 … *(k-1)`` (and ``k²/2``
option ids), the integer ``n`` every integer below it, ``n·↑`` a chain of ``n`` games. So
``parse_game`` works in three steps, and nothing is built before the whole text passed the
first two:

1. **parse** (``ExpressionParser``) the text — at most ``max_length`` characters — into a tree of
   ``Nus`` literals (``x + n·↑ + ∗k`` as exact numbers), ``Neg``, ``Sum``, ``Opts`` (``{L | R}``),
   ``Pm`` (``±G``), ``Tiny`` and ``Call`` (an operation of ``ruma.engine.cgt.transforms``:
   ``cool(G, t)``, ``G.cool(t)``, ``G:H``...) nodes, refusing nesting deeper than ``max_depth``
   and numerals longer than ``max_digits`` (``NotationError``: the text is malformed for any
   server);
2. **bound** (``_bound``) every node: sums of literals are folded exactly (``*1000 + *1000`` is
   ``0``); every value that would be built must keep within ``max_nimber`` (nimber index),
   ``max_exponent`` (denominator ``2^j``) and ``max_birthday`` (an upper bound on the birthday:
   ``|n|`` for an integer, ``|n| + 1`` for ``n·↑``, ``k`` for ``∗k``, ``1 + max`` over options, and
   the sum of the terms' bounds for a sum, and for an operation the bound ``CALL_BOUNDS`` gives
   from its arguments' bounds); beyond them ``LimitExceededError`` names the limit;
3. **build** (``_build``) the game.

``ExpressionLimits`` holds the limits; ``DEFAULT_LIMITS`` is what every caller gets unless it
passes its own (the server, the CLI, the catalog and theorem claims all use the defaults).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Union

from ruma.engine.cgt.game import Game
from ruma.engine.errors import LimitExceededError, NotationError, RumaInputError

__all__ = ["DEFAULT_LIMITS", "ExpressionLimits", "parse_expression"]


@dataclass(frozen=True)
class ExpressionLimits:
    """How large a value expression may be (checked before anything is built)."""

    max_length: int = 10_000
    """characters of text"""
    max_depth: int = 100
    """nesting of braces, parentheses, prefix operators and slash levels"""
    max_digits: int = 30
    """digits of one numeral"""
    max_birthday: int = 10_000
    """upper bound on the birthday of the value and of every part of it that is built"""
    max_nimber: int = 1024
    """nimber index ``k`` of ``∗k`` (building ``∗k`` costs ``k²/2`` option ids)"""
    max_exponent: int = 64
    """``j`` of a denominator ``2^j``"""


DEFAULT_LIMITS = ExpressionLimits()

NUS = tuple[Fraction, int, int]


class Nus:
    """A literal ``x + n·↑ + ∗k`` and where it stands in the text."""

    __slots__ = ("value", "start", "end")

    def __init__(self, value: NUS, start: int, end: int) -> None:
        self.value, self.start, self.end = value, start, end


class Neg:
    """``-a``."""

    __slots__ = ("a",)

    def __init__(self, a: Node) -> None:
        self.a = a


class Sum:
    """``a + b + …`` (a subtracted term is a ``Neg``)."""

    __slots__ = ("terms",)

    def __init__(self, terms: list[Node]) -> None:
        self.terms = terms


class Opts:
    """``{lefts | rights}``."""

    __slots__ = ("lefts", "rights")

    def __init__(self, lefts: list[Node], rights: list[Node]) -> None:
        self.lefts, self.rights = lefts, rights


class Pm:
    """``±a`` = ``{a | -a}``."""

    __slots__ = ("a",)

    def __init__(self, a: Node) -> None:
        self.a = a


class Tiny:
    """``Tiny(x)`` = ``{0 || 0 | -x}`` or ``Miny(x)`` = ``{x | 0 || 0}``."""

    __slots__ = ("x", "tiny")

    def __init__(self, x: Node, tiny: bool) -> None:
        self.x, self.tiny = x, tiny


class Call:
    """An operation of ``ruma.engine.cgt.transforms`` (``name`` as in ``OPERATIONS``) on ``args``
    (the game first), and where it stands in the text."""

    __slots__ = ("name", "args", "start", "end")

    def __init__(self, name: str, args: list[Node], start: int, end: int) -> None:
        self.name, self.args, self.start, self.end = name, args, start, end


Node = Union[Nus, Neg, Sum, Opts, Pm, Tiny, Call]

#: an upper bound on the birthday of each operation's value from those of its arguments (each
#: game's options gain at most the birthday of the temperature and one level; a Norton product's
#: options gain ``U + I``, at most ``3·b(U)``; an integer ``n`` of an overheated or Norton-multiplied
#: game becomes ``n`` copies; a cooled game may freeze at its mean, of birthday at most ``2·b(G)``;
#: ``rcf`` heats by ``∗`` and projects)
CALL_BOUNDS: dict[str, Callable[[list[int]], int]] = {
    "cool": lambda b: b[0] * (b[1] + 3),
    "heat": lambda b: b[0] * (b[1] + 1),
    "overheat": lambda b: b[0] * (b[1] + b[2] + 1),
    "norton": lambda b: b[0] * (3 * b[1] + 1),
    "ordinal": lambda b: b[0] + b[1],
    "rcf": lambda b: 2 * b[0],
}


def nus_birthday(value: NUS) -> int:
    """An upper bound on the birthday of ``x + n·↑ + ∗k`` (exact for each part alone)."""
    x, n, k = value
    whole = abs(x.numerator) // x.denominator
    bx = whole if x.denominator == 1 else whole + x.denominator.bit_length()
    return bx + (abs(n) + 1 if n else 0) + k


class _Bounds:
    """Step 2: the exact value of every literal-only node, and the limits of everything built."""

    def __init__(self, text: str, limits: ExpressionLimits) -> None:
        self.text, self.limits = text, limits
        self.folded: dict[int, NUS] = {}  # id(node) -> exact value, for nodes made of literals only

    def refuse(self, what: str) -> LimitExceededError:
        quoted = self.text if len(self.text) <= 200 else self.text[:200] + "..."
        return LimitExceededError(f"value expression {quoted!r}: {what}")

    def check_birthday(self, bound: int, what: str) -> None:
        if bound > self.limits.max_birthday:
            raise self.refuse(f"{what} may have birthday up to {bound}; the limit is {self.limits.max_birthday}")

    def check_nus(self, value: NUS, what: str) -> None:
        """Refuse building ``value`` beyond the limits."""
        x, n, k = value
        limits = self.limits
        if k > limits.max_nimber:
            raise self.refuse(f"{what} has nimber index {k}; the limit is {limits.max_nimber}")
        exponent = x.denominator.bit_length() - 1
        if exponent > limits.max_exponent:
            raise self.refuse(f"{what} has denominator 2^{exponent}; the limit is 2^{limits.max_exponent}")
        self.check_birthday(nus_birthday(value), what)

    def bound(self, node: Node) -> int:
        """An upper bound on the birthday of ``node`` (raises beyond the limits)."""
        if isinstance(node, Nus):
            self.check_nus(node.value, self.text[node.start:node.end])
            self.folded[id(node)] = node.value
            return nus_birthday(node.value)
        if isinstance(node, Neg):
            b = self.bound(node.a)
            inner = self.folded.get(id(node.a))
            if inner is not None:
                self.folded[id(node)] = (-inner[0], -inner[1], inner[2])
            return b
        if isinstance(node, Sum):
            return self._sum(node)
        if isinstance(node, Opts):
            options = node.lefts + node.rights
            b = 1 + max((self.built(o, "an option") for o in options), default=-1)
            self.check_birthday(b, "a game {…|…}")
            return b
        if isinstance(node, Pm):
            b = 1 + self.built(node.a, "the argument of ±")
            self.check_birthday(b, "a game ±G")
            return b
        if isinstance(node, Call):
            return self._call(node)
        b = 2 + self.built(node.x, "the argument of Tiny/Miny")
        self.check_birthday(b, "Tiny/Miny")
        return b

    def built(self, node: Node, what: str) -> int:
        """Bound ``node``, which will be built as a game of its own."""
        b = self.bound(node)
        value = self.folded.get(id(node))
        if value is not None:
            self.check_nus(value, what)
        return b

    def _call(self, node: Call) -> int:
        bounds = [self.built(a, f"an argument of {node.name}") for a in node.args]
        if node.name == "ordinal":  # *j:*k is *(j + k): its index is a nimber limit
            base, sub = (self.folded.get(id(a)) for a in node.args)
            if base is not None and sub is not None and base[1] == 0 and sub[0] == 0 and sub[1] == 0:
                self.check_nus((base[0], 0, base[2] + sub[2]), self.text[node.start:node.end])
        b = CALL_BOUNDS[node.name](bounds)
        self.check_birthday(b, self.text[node.start:node.end])
        return b

    def _sum(self, node: Sum) -> int:
        x, n, k = Fraction(0), 0, 0
        rest = 0
        literal_only = True
        for term in node.terms:
            b = self.bound(term)
            value = self.folded.get(id(term))
            if value is None:
                literal_only = False
                rest += b
            else:
                x, n, k = x + value[0], n + value[1], k ^ value[2]
        if literal_only:
            self.folded[id(node)] = (x, n, k)
            return nus_birthday((x, n, k))
        if x or n or k:
            self.check_nus((x, n, k), "the sum of the number-up-star terms")
        total = rest + nus_birthday((x, n, k))
        self.check_birthday(total, "a sum")
        return total


def _build(node: Node, folded: dict[int, NUS]) -> Game:
    """Step 3: the game of a bounded node."""
    from ruma.engine.cgt import ZERO, nus_game

    value = folded.get(id(node))
    if value is not None:
        return nus_game(*value)
    if isinstance(node, Neg):
        return -_build(node.a, folded)
    if isinstance(node, Sum):
        x, n, k = Fraction(0), 0, 0
        games: list[Game] = []
        for term in node.terms:
            v = folded.get(id(term))
            if v is None:
                games.append(_build(term, folded))
            else:
                x, n, k = x + v[0], n + v[1], k ^ v[2]
        total = nus_game(x, n, k)
        for g in games:
            total = total + g
        return total
    if isinstance(node, Opts):
        return Game.from_options([_build(o, folded) for o in node.lefts], [_build(o, folded) for o in node.rights])
    if isinstance(node, Pm):
        a = _build(node.a, folded)
        return Game.from_options([a], [-a])
    if isinstance(node, Call):
        from ruma.engine.cgt.transforms import OPERATIONS

        function, _ = OPERATIONS[node.name]
        return function(*[_build(a, folded) for a in node.args])
    assert isinstance(node, Tiny)
    arg = _build(node.x, folded)
    if node.tiny:
        return Game.from_options([ZERO], [Game.from_options([ZERO], [-arg])])
    return Game.from_options([Game.from_options([arg], [ZERO])], [ZERO])


def parse_expression(text: str, limits: ExpressionLimits = DEFAULT_LIMITS) -> Game:
    """Parse, bound and build a value expression (see the module docstring).

    Raises ``NotationError`` for malformed text (quoting it, with the column) and
    ``LimitExceededError`` for a value beyond ``limits``.
    """
    from ruma.engine.cgt.parser import ExpressionParser

    if not isinstance(text, str):
        raise RumaInputError(f"expected a string, got {text!r}")
    if len(text) > limits.max_length:
        raise RumaInputError(
            f"value expression {text[:40]!r}... has {len(text)} characters: too long (at most {limits.max_length})")
    try:
        tree = ExpressionParser(text, limits).parse()
    except RecursionError as exc:  # pragma: no cover - the depth limit comes first
        raise NotationError(text, 0, "nested too deeply") from exc
    bounds = _Bounds(text, limits)
    bounds.built(tree, "the value")
    return _build(tree, bounds.folded)
