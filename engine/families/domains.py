"""Parameter domains of families: which parameter assignments a theorem is about.

A domain is a comma- (or ``and``-) separated list of conditions: comparison chains over
expressions (``m>=0``, ``1 < x <= y-2``, ``m = n = 0``; operators ``= == != < <= > >=`` and
``≥ ≤ ≠``), ``not(...)``, a leading name list (``m, n >= 0``) and ``A except B`` (= A and not B);
the words ``all``/``for all`` at the start are ignored. ``m>=0,n>=0,not(m=0,n=0)`` and
``all m, n ≥ 0 except m = n = 0`` are the same domain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Union

from ruma.engine.errors import RumaInputError
from ruma.engine.families.expr import Expr, ExprParser, evaluate_expr, expr_names

__all__ = ["Domain", "parse_domain"]

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
    p = ExprParser(text, "domain")
    while p.peek() is not None and p.peek()[0] == "name" and p.peek()[1] in ("for", "all"):  # type: ignore[index]
        p.i += 1
    conds = _conjunction(p)
    if p.peek() is not None:
        raise p.fail("unexpected text")
    return Domain(text, tuple(conds))


def _conjunction(p: ExprParser) -> list[Cond]:
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


def _condition(p: ExprParser) -> Cond:
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
