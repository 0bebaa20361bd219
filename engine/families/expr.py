"""Small integer expressions over named parameters, shared by family templates and domains.

Grammar: ``expr := term (('+'|'-') term)*``, ``term := factor ('*' factor)*``,
``factor := INT | NAME | INT NAME (implicit product, 2n) | '-' factor | '(' expr ')'``.
Errors are ``NotationError`` quoting the text and pointing at the column.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence, Union

from ruma.engine.errors import NotationError, RumaInputError

__all__ = ["Expr", "ExprParser", "tokens", "evaluate_expr", "expr_names", "unique"]

Expr = Union[int, str, tuple[str, "Expr", "Expr"]]  # constant, parameter name, (op, left, right)

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9]*)|(>=|<=|!=|==|≥|≤|≠|[-+*()<>=,{}|^.]))")


def tokens(text: str, what: str) -> list[tuple[str, str, int]]:
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


class ExprParser:
    """A cursor over tokens with the shared expression grammar (``expr`` parses one expression)."""

    def __init__(self, text: str, what: str, toks: list[tuple[str, str, int]] | None = None) -> None:
        self.text, self.what = text, what
        self.toks = toks if toks is not None else tokens(text, what)
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
    return unique(expr_names(expr[1]) + expr_names(expr[2]))


def unique(names: Sequence[str]) -> list[str]:
    """``names`` without repeats, in order of first appearance."""
    return list(dict.fromkeys(names))
