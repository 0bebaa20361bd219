"""Families of positions with integer parameters, their domains and claims (pure, stdlib only).

A *family template* writes a row of pots in the paper's notation, with integer parameters:

* a digit is one pot with that many seeds (``03`` is an empty pot then a pot of three);
* ``{expr}`` is one pot whose count is a small integer expression (``1,{y}``, ``{x},{x+1}``);
* ``(...)^e`` repeats a group, ``d^e`` or ``{expr}^e`` repeats one pot; the exponent ``e`` is an
  integer, a parameter name, or ``{expr}`` (``(10)^m 03 (01)^n``, ``(01300)^n``, ``1^{n+1}``);
* spaces and commas only separate (``1,12`` and ``1 {12}`` differ: see below).

An unbraced digit is always one pot, so a count of ten or more needs braces: ``{12}``.
Expressions use ``+ - *``, parentheses, integers, parameter names and implicit multiplication of
an integer by a name (``2n``).

A *domain* (``ruma.engine.families.domains``) is a comma- (or ``and``-) separated list of conditions: comparison chains over
expressions (``m>=0``, ``1 < x <= y-2``, ``m = n = 0``; operators ``= == != < <= > >=`` and
``≥ ≤ ≠``), ``not(...)``, a leading name list (``m, n >= 0``) and ``A except B`` (= A and not B);
the words ``all``/``for all`` at the start are ignored. So both ``m>=0,n>=0,not(m=0,n=0)`` and
``all m, n ≥ 0 except m = n = 0`` parse, to the same set.

**Instance order.** ``enumerate_instances`` lists every assignment with each parameter in
``0..K`` that lies in the domain, ordered first by the *sum* of the parameters, then
lexicographically by the tuple of values with parameters in order of first appearance in the
template. "The smallest counterexample" of a claim is the first refuted instance in this order.

A *claim* is a value written in game notation in which integer expressions over the parameters
appear (``0``, ``n+1``, ``{n+1|0}``, ``{n|-m}``, ``*n``, ``n.^`` for n·↑). ``substitute_claim``
replaces each such expression by its integer (``n.^`` by ``^`` repeated, or ``v`` for negatives)
and leaves the rest for ``ruma.engine.cgt.notation.parse_game``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence, Union

from ruma.engine.errors import NotationError, RumaInputError
from ruma.engine.families.domains import Domain, parse_domain
from ruma.engine.families.expr import Expr, ExprParser, evaluate_expr, expr_names, tokens, unique

if TYPE_CHECKING:
    from ruma.engine.cgt import Game

__all__ = [
    "Template", "Domain", "parse_template", "parse_domain", "enumerate_instances",
    "substitute_claim", "claim_value", "position_text", "evaluate_expr", "MAX_POTS",
]

MAX_POTS = 100_000
"""Largest instance a template may expand to (a guard against typos like ``1^1000000``)."""


# -- family templates ------------------------------------------------------------------------
@dataclass(frozen=True)
class _Pot:
    count: Expr


@dataclass(frozen=True)
class _Repeat:
    body: tuple["_Node", ...]
    times: Expr


_Node = Union[_Pot, _Repeat]


@dataclass(frozen=True)
class Template:
    """A parsed family template; ``parameters`` in order of first appearance."""

    text: str
    nodes: tuple[_Node, ...]
    parameters: tuple[str, ...]

    def instantiate(self, values: Mapping[str, int]) -> tuple[int, ...]:
        """The pot counts of the instance with parameters ``values``."""
        missing = [p for p in self.parameters if p not in values]
        if missing:
            raise RumaInputError(f"family {self.text!r} needs values for {', '.join(missing)}")
        pots: list[int] = []
        self._expand(self.nodes, values, pots)
        return tuple(pots)

    def position_text(self, values: Mapping[str, int]) -> str:
        """The instance as position text for a ruleset parser (see ``position_text``)."""
        return position_text(self.instantiate(values))

    def _expand(self, nodes: Sequence[_Node], values: Mapping[str, int], pots: list[int]) -> None:
        for node in nodes:
            if isinstance(node, _Pot):
                count = evaluate_expr(node.count, values, self.text)
                if count < 0:
                    raise RumaInputError(f"negative pot count {count} in {self.text!r} at {dict(values)}")
                pots.append(count)
            else:
                times = evaluate_expr(node.times, values, self.text)
                if times < 0:
                    raise RumaInputError(f"negative exponent {times} in {self.text!r} at {dict(values)}")
                for _ in range(times):
                    self._expand(node.body, values, pots)
                    if len(pots) > MAX_POTS:
                        raise RumaInputError(f"{self.text!r} at {dict(values)} exceeds {MAX_POTS} pots")


def position_text(pots: Sequence[int]) -> str:
    """Digits run together when every count is below ten, else counts separated by commas.

    The empty row is ``()`` (an empty group), as ``ruma.engine.rulesets.notation`` prints it.
    """
    if not pots:
        return "()"
    if all(0 <= c <= 9 for c in pots):
        return "".join(map(str, pots))
    return ",".join(map(str, pots))


def parse_template(text: str) -> Template:
    """Parse a family template (module docstring); raises ``NotationError`` quoting ``text``."""
    if not isinstance(text, str) or not text.strip():
        raise RumaInputError(f"empty family template {text!r}")
    parser = ExprParser(text, "family template", _template_tokens(text))
    nodes = _parse_seq(parser, top=True)
    if parser.peek() is not None:
        raise parser.fail("unbalanced ')'")
    if not nodes:
        raise RumaInputError(f"family template {text!r} has no pots")
    names: list[str] = []
    _collect(nodes, names)
    return Template(text, tuple(nodes), tuple(unique(names)))


def _template_tokens(text: str) -> list[tuple[str, str, int]]:
    """Template tokens: outside braces and exponents every digit is its own pot."""
    toks = tokens(text, "family template")
    out: list[tuple[str, str, int]] = []
    depth = 0
    for k, (kind, value, col) in enumerate(toks):
        prev = toks[k - 1][1] if k else ""
        if kind == "int" and depth == 0 and prev != "^":
            out.extend(("int", ch, col + j) for j, ch in enumerate(value))
            continue
        depth += value == "{" and kind == "op"
        depth -= value == "}" and kind == "op"
        out.append((kind, value, col))
    return out


def _parse_seq(p: ExprParser, top: bool) -> list[_Node]:
    nodes: list[_Node] = []
    while True:
        tok = p.peek()
        if tok is None or tok[1] == ")":
            return nodes
        kind, value, _ = tok
        if value == ",":
            p.i += 1
            continue
        node: _Node
        if kind == "int":
            p.i += 1
            node = _Pot(int(value))
        elif value == "{":
            p.i += 1
            node = _Pot(p.expr())
            p.expect("}")
        elif value == "(":
            p.i += 1
            body = _parse_seq(p, top=False)
            p.expect(")")
            if not p.at("^"):
                raise p.fail("a parenthesised group needs an exponent ^")
            node = _Repeat(tuple(body), 1)
        else:
            raise p.fail(f"unexpected {value!r}")
        if p.at("^"):
            p.i += 1
            times = _exponent(p)
            node = _Repeat(node.body, times) if isinstance(node, _Repeat) else _Repeat((node,), times)
        nodes.append(node)


def _exponent(p: ExprParser) -> Expr:
    tok = p.peek()
    if tok is None:
        raise p.fail("expected an exponent")
    if tok[0] in ("int", "name"):
        p.i += 1
        return int(tok[1]) if tok[0] == "int" else tok[1]
    if tok[1] in ("{", "("):
        close = "}" if tok[1] == "{" else ")"
        p.i += 1
        inner = p.expr()
        p.expect(close)
        return inner
    raise p.fail("expected an exponent (integer, name or {expression})")


def _collect(nodes: Sequence[_Node], names: list[str]) -> None:
    for node in nodes:
        if isinstance(node, _Pot):
            names.extend(expr_names(node.count))
        else:
            _collect(node.body, names)
            names.extend(expr_names(node.times))


def enumerate_instances(parameters: Sequence[str], domain: Domain | None, up_to: int) -> Iterator[dict[str, int]]:
    """Every assignment with parameters in ``0..up_to`` inside ``domain``, in instance order."""
    if up_to < 0:
        raise RumaInputError(f"bound must be ≥ 0, got {up_to!r}")
    params = list(parameters)
    extra = [n for n in (domain.names if domain else ()) if n not in params]
    if extra:
        raise RumaInputError(f"domain {domain.text if domain else ''!r} names unknown parameters {extra}")
    bounds = [up_to] * len(params)
    if domain is not None:
        for i, name in enumerate(params):
            bound = domain.upper_bound(name)
            if bound is not None:
                bounds[i] = max(-1, min(up_to, bound))
    if any(b < 0 for b in bounds):
        return
    for total in range(sum(bounds) + 1):
        for values in _with_sum(bounds, total):
            assignment = dict(zip(params, values))
            if domain is None or domain.contains(assignment):
                yield assignment


def _with_sum(bounds: Sequence[int], total: int) -> Iterator[tuple[int, ...]]:
    """Tuples with ``0 <= t[i] <= bounds[i]`` summing to ``total``, in lexicographic order."""
    if not bounds:
        if total == 0:
            yield ()
        return
    rest_max = sum(bounds[1:])
    for first in range(max(0, total - rest_max), min(bounds[0], total) + 1):
        for rest in _with_sum(bounds[1:], total - first):
            yield (first, *rest)


# -- claims -------------------------------------------------------------------------------------
_CLAIM_RUN = re.compile(
    r"(?P<sign>(?<![\w)^v*.])-)?(?P<run>(?:\d*[A-Za-z_]\w*|\d+)(?:\s*[-+]\s*(?:\d*[A-Za-z_]\w*|\d+))*)"
    r"(?P<up>\.\^)?")


_CLAIM_POWER = re.compile(r"2\^-(?:\{(?P<braced>[^{}]*)\}|\((?P<paren>[^()]*)\)|(?P<name>[A-Za-z_]\w*))")


def _power_of_half(m: re.Match[str], values: Mapping[str, int], claim: str) -> str:
    """``2^-e`` as the number it is (``1/8``, ``1``, ``4``)."""
    text = m.group("braced") or m.group("paren") or m.group("name")
    try:
        expr = ExprParser(text, "claim").expr()
    except NotationError:
        return m.group(0)
    if any(n not in values for n in expr_names(expr)):
        return m.group(0)
    e = evaluate_expr(expr, values, claim)
    return f"1/{2 ** e}" if e > 0 else str(2 ** -e)


def substitute_claim(claim: str, values: Mapping[str, int]) -> str:
    """Replace the integer expressions over parameters in ``claim`` by their values.

    A run such as ``n+1`` or ``-m`` that mentions a parameter becomes an integer; ``k.^`` becomes
    ``^`` repeated k times (``v`` repeated when negative, ``0`` when zero); ``2^-n``, ``2^-{n+1}``
    or ``2^-(n+1)`` becomes the number ``2`` to that power (``1/8``). Runs without parameters and
    game symbols are left alone for the notation parser.
    """
    if not isinstance(claim, str) or not claim.strip():
        raise RumaInputError(f"empty claim {claim!r}")
    claim = _CLAIM_POWER.sub(lambda m: _power_of_half(m, values, claim), claim)

    def replace(m: re.Match[str]) -> str:
        run = (m.group("sign") or "") + m.group("run")
        try:
            expr = ExprParser(run, "claim").expr()
        except NotationError:
            return m.group(0)
        names = expr_names(expr)
        if not names and not m.group("up"):
            return m.group(0)
        if any(n not in values for n in names):
            return m.group(0)  # a game symbol such as ``v`` or a typo: left to the notation parser
        value = evaluate_expr(expr, values, claim)
        if m.group("up"):
            return "0" if value == 0 else ("^" * value if value > 0 else "v" * -value)
        return str(value)

    return _CLAIM_RUN.sub(replace, claim)


def claim_value(claim: str, values: Mapping[str, int]) -> "Game":
    """The value a claim states at one instance (``claim_value("{n|-m}", {"m": 1, "n": 2})`` is
    ``{2|-1}``). A claim that does not parse is reported as typed, with the instance and what it
    read there: ``cannot parse claim '{n|' at m=0, n=1 ('{1|'): expected a game, ...``."""
    from ruma.engine.cgt.notation import parse_game

    text = substitute_claim(claim, values)
    try:
        return parse_game(text)
    except NotationError as error:
        instance = ", ".join(f"{name}={value}" for name, value in values.items())
        where = f" at {instance} ({text!r})" if text != claim else ""
        raise RumaInputError(f"cannot parse claim {claim!r}{where}: {error.reason}") from None
