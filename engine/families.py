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

A *domain* is a comma- (or ``and``-) separated list of conditions: comparison chains over
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
from typing import Any, Iterator, Mapping, Sequence, Union

from ruma.engine.errors import NotationError, RumaInputError

__all__ = [
    "Family", "Domain", "parse_family", "parse_domain", "enumerate_instances",
    "substitute_claim", "position_text", "MAX_POTS",
]

MAX_POTS = 100_000
"""Largest instance a template may expand to (a guard against typos like ``1^1000000``)."""

# -- small integer expressions ---------------------------------------------------------------
Expr = Union[int, str, tuple[str, "Expr", "Expr"]]  # constant, parameter name, (op, left, right)

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(>=|<=|!=|==|≥|≤|≠|[-+*()<>=,{}|^.]))")


def _tokens(text: str, what: str) -> list[tuple[str, str, int]]:
    """Tokens ``(kind, text, column)`` with kinds int/name/op; quotes ``text`` on errors."""
    out: list[tuple[str, str, int]] = []
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        m = _TOKEN.match(text, i)
        if m is None or m.end() == i:
            raise NotationError(text, i, f"unexpected character {text[i]!r} in {what}")
        kind = "int" if m.group(1) else "name" if m.group(2) else "op"
        start = m.start(m.lastindex or 0)
        out.append((kind, m.group(m.lastindex or 0), start))
        i = m.end()
    return out


class _Parser:
    """A cursor over tokens with the shared expression grammar."""

    def __init__(self, text: str, what: str, tokens: list[tuple[str, str, int]] | None = None) -> None:
        self.text, self.what = text, what
        self.toks = tokens if tokens is not None else _tokens(text, what)
        self.i = 0

    def peek(self, ahead: int = 0) -> tuple[str, str, int] | None:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else None

    def at(self, *values: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] != "int" and tok[1] in values

    def fail(self, reason: str) -> NotationError:
        tok = self.peek()
        return NotationError(self.text, tok[2] if tok else len(self.text), f"{reason} in {self.what}")

    def expect(self, value: str) -> None:
        if not self.at(value):
            raise self.fail(f"expected {value!r}")
        self.i += 1

    def expr(self) -> Expr:
        left = self.term()
        while self.at("+", "-"):
            op = self.toks[self.i][1]
            self.i += 1
            left = (op, left, self.term())
        return left

    def term(self) -> Expr:
        left = self.factor()
        while self.at("*"):
            self.i += 1
            left = ("*", left, self.factor())
        return left

    def factor(self) -> Expr:
        tok = self.peek()
        if tok is None:
            raise self.fail("expected a number or parameter")
        kind, value, _ = tok
        if kind == "int":
            self.i += 1
            nxt = self.peek()
            if nxt is not None and nxt[0] == "name" and nxt[2] == tok[2] + len(value):
                self.i += 1  # implicit multiplication: 2n
                return ("*", int(value), nxt[1])
            return int(value)
        if kind == "name" and value not in ("not", "and", "except", "all", "for"):
            self.i += 1
            return value
        if value == "-":
            self.i += 1
            return ("-", 0, self.factor())
        if value == "(":
            self.i += 1
            inner = self.expr()
            self.expect(")")
            return inner
        raise self.fail(f"unexpected {value!r}")


def evaluate_expr(expr: Expr, values: Mapping[str, int], text: str = "") -> int:
    """The integer value of ``expr`` with parameters from ``values``."""
    if isinstance(expr, int):
        return expr
    if isinstance(expr, str):
        if expr not in values:
            raise RumaInputError(f"parameter {expr!r} has no value in {text!r} (given {dict(values)})")
        return values[expr]
    op, a, b = expr
    x, y = evaluate_expr(a, values, text), evaluate_expr(b, values, text)
    return x + y if op == "+" else x - y if op == "-" else x * y


def expr_names(expr: Expr) -> list[str]:
    """Parameter names in ``expr``, in order of first appearance."""
    if isinstance(expr, int):
        return []
    if isinstance(expr, str):
        return [expr]
    return _unique(expr_names(expr[1]) + expr_names(expr[2]))


def _unique(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


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
class Family:
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


def parse_family(text: str) -> Family:
    """Parse a family template (module docstring); raises ``NotationError`` quoting ``text``."""
    if not isinstance(text, str) or not text.strip():
        raise RumaInputError(f"empty family template {text!r}")
    parser = _Parser(text, "family template", _family_tokens(text))
    nodes = _parse_seq(parser, top=True)
    if parser.peek() is not None:
        raise parser.fail("unbalanced ')'")
    if not nodes:
        raise RumaInputError(f"family template {text!r} has no pots")
    names: list[str] = []
    _collect(nodes, names)
    return Family(text, tuple(nodes), tuple(_unique(names)))


def _family_tokens(text: str) -> list[tuple[str, str, int]]:
    """Template tokens: outside braces and exponents every digit is its own pot."""
    toks = _tokens(text, "family template")
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


def _parse_seq(p: _Parser, top: bool) -> list[_Node]:
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


def _exponent(p: _Parser) -> Expr:
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


# -- domains ----------------------------------------------------------------------------------
_OPS = {"=": "==", "==": "==", "!=": "!=", "≠": "!=", "<": "<", "<=": "<=", "≤": "<=",
        ">": ">", ">=": ">=", "≥": ">="}
Cond = Union[tuple[str, tuple["Cond", ...]], tuple[str, tuple[Expr, ...], tuple[str, ...]]]


def _compare(op: str, a: int, b: int) -> bool:
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


@dataclass(frozen=True)
class Domain:
    """A parsed parameter domain: ``contains(values)`` decides membership."""

    text: str
    conditions: tuple[Cond, ...]

    def contains(self, values: Mapping[str, int]) -> bool:
        """Whether ``values`` satisfies every condition."""
        return all(self._holds(c, values) for c in self.conditions)

    def _holds(self, cond: Cond, values: Mapping[str, int]) -> bool:
        if cond[0] == "not":
            return not all(self._holds(c, values) for c in cond[1])  # type: ignore[arg-type]
        if cond[0] == "and":
            return all(self._holds(c, values) for c in cond[1])  # type: ignore[arg-type]
        _, operands, ops = cond  # type: ignore[misc]
        nums = [evaluate_expr(e, values, self.text) for e in operands]
        return all(_compare(op, nums[k], nums[k + 1]) for k, op in enumerate(ops))

    def upper_bound(self, name: str) -> int | None:
        """A bound ``name <= b`` implied by a top-level comparison with a constant, if any."""
        best: int | None = None
        for cond in self.conditions:
            conds: tuple[Any, ...] = cond[1] if cond[0] == "and" else (cond,)
            for c in conds:
                if c[0] != "cmp":
                    continue
                operands: tuple[Expr, ...] = c[1]
                ops: tuple[str, ...] = c[2]
                for k, op in enumerate(ops):
                    a, b = operands[k], operands[k + 1]
                    bound: int | None = None
                    if a == name and isinstance(b, int) and op in ("<=", "<", "=="):
                        bound = b - (op == "<")
                    elif b == name and isinstance(a, int) and op in (">=", ">", "=="):
                        bound = a - (op == ">")
                    if bound is not None:
                        best = bound if best is None else min(best, bound)
        return best

    @property
    def names(self) -> tuple[str, ...]:
        """Parameter names the domain mentions."""
        out: list[str] = []
        stack: list[Cond] = list(self.conditions)
        while stack:
            cond = stack.pop()
            if cond[0] in ("not", "and"):
                stack.extend(cond[1])  # type: ignore[arg-type]
            else:
                for e in cond[1]:
                    out.extend(expr_names(e))  # type: ignore[arg-type]
        return tuple(sorted(set(out)))


def parse_domain(text: str) -> Domain:
    """Parse a domain (module docstring); an empty text is the whole quadrant (all ≥ 0)."""
    if not isinstance(text, str):
        raise RumaInputError(f"domain must be text, not {text!r}")
    p = _Parser(text, "domain")
    while p.peek() is not None and p.peek()[0] == "name" and p.peek()[1] in ("for", "all"):  # type: ignore[index]
        p.i += 1
    conds = _conjunction(p)
    if p.peek() is not None:
        raise p.fail("unexpected text")
    return Domain(text, tuple(conds))


def _conjunction(p: _Parser) -> list[Cond]:
    conds: list[Cond] = []
    while p.peek() is not None and not p.at(")"):
        if p.at(","):
            p.i += 1
            continue
        tok = p.peek()
        if tok is not None and tok[0] == "name" and tok[1] == "and":
            p.i += 1
            continue
        if tok is not None and tok[0] == "name" and tok[1] == "except":
            p.i += 1
            conds.append(("not", tuple(_conjunction(p))))
            return conds
        conds.append(_condition(p))
    return conds


def _condition(p: _Parser) -> Cond:
    tok = p.peek()
    if tok is not None and tok[0] == "name" and tok[1] == "not":
        p.i += 1
        p.expect("(")
        inner = _conjunction(p)
        p.expect(")")
        return ("not", tuple(inner))
    names: list[str] = []  # "m, n >= 0": a list of names sharing one comparison
    while tok is not None and tok[0] == "name":
        nxt = p.peek(1)
        if nxt is None or nxt[1] != ",":
            break
        after = p.peek(2)
        if after is None or after[0] != "name" or after[1] in ("not", "except", "and"):
            break
        names.append(tok[1])
        p.i += 2
        tok = p.peek()
    operands: list[Expr] = [p.expr()]
    ops: list[str] = []
    while p.at(*_OPS):
        ops.append(_OPS[p.toks[p.i][1]])
        p.i += 1
        operands.append(p.expr())
    if not ops:
        raise p.fail("expected a comparison such as m>=0")
    if names:
        group: list[Cond] = [("cmp", (name, *operands[1:]), tuple(ops)) for name in names]
        group.append(("cmp", tuple(operands), tuple(ops)))
        return ("and", tuple(group))
    return ("cmp", tuple(operands), tuple(ops))


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


def substitute_claim(claim: str, values: Mapping[str, int]) -> str:
    """Replace the integer expressions over parameters in ``claim`` by their values.

    A run such as ``n+1`` or ``-m`` that mentions a parameter becomes an integer; ``k.^`` becomes
    ``^`` repeated k times (``v`` repeated when negative, ``0`` when zero). Runs without parameters
    and game symbols are left alone for the notation parser.
    """
    if not isinstance(claim, str) or not claim.strip():
        raise RumaInputError(f"empty claim {claim!r}")

    def replace(m: re.Match[str]) -> str:
        run = (m.group("sign") or "") + m.group("run")
        try:
            expr = _Parser(run, "claim").expr()
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
