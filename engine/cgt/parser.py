"""The recursive-descent parser of value expressions: text → tree (``ruma.engine.cgt.expression``).

It reads CGSuite plain text, Unicode and cgt-py braces, with ``+``, ``-`` (binary and unary),
``±``/``+-``, parentheses and the operations of ``ruma.engine.cgt.transforms`` — as functions
(``cool(G, t)``), as methods (``G.cool(t)``, ``G.rcf``; CGSuite's names ``Cool``,
``NortonProduct``, ``ReducedCanonicalForm``... too, in any case) and CGSuite's ordinal sum
``G:H`` (binding tighter than ``+`` and looser than a prefix ``-``, left to right) — and builds
no game: literals become exact ``Nus`` triples, the rest tree nodes. Nesting deeper than
``limits.max_depth`` and numerals longer than ``limits.max_digits`` are ``NotationError``s
quoting the text at the offending column.
"""

from __future__ import annotations

from fractions import Fraction

from ruma.engine.cgt.expression import Call, ExpressionLimits, Neg, Node, Nus, Opts, Pm, Sum, Tiny
from ruma.engine.cgt.transforms import OPERATIONS as OPERATION_ARITY
from ruma.engine.errors import NotationError

#: the operations by the names they are called (lowercased; CGSuite's method names too)
OPERATIONS = {**{name: name for name in OPERATION_ARITY}, "nortonproduct": "norton", "ordinalsum": "ordinal",
              "reducedcanonicalform": "rcf"}

_ARROWS = {"^": 1, "↑": 1, "⇑": 2, "v": -1, "↓": -1, "⇓": -2}
_STARS = "*∗"
_MINUS = "-−"
_UNSUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


class ExpressionParser:
    """Recursive descent over ``text``; ``pos`` is the index of the next character."""

    def __init__(self, text: str, limits: ExpressionLimits) -> None:
        self.text = text
        self.pos = 0
        self.limits = limits
        self.depth = 0

    def fail(self, reason: str, index: int | None = None) -> NotationError:
        return NotationError(self.text, self.pos if index is None else index, reason)

    def enter(self) -> None:
        """One level deeper (a group, braces, a prefix operator, a slash level)."""
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise self.fail(f"nested more than {self.limits.max_depth} levels deep")

    def peek(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "the end of the text"
            raise self.fail(f"expected {char!r}, found {found}")
        self.pos += 1

    def parse(self) -> Node:
        if not self.peek():
            raise self.fail("empty expression")
        node = self.expression()
        if self.peek():
            raise self.fail(f"unexpected {self.peek()!r}")
        return node

    def expression(self) -> Node:
        terms = [self.ordinal()]
        while True:
            c = self.peek()
            if c == "+":
                self.pos += 1
                terms.append(self.ordinal())
            elif c and c in _MINUS:
                self.pos += 1
                terms.append(Neg(self.ordinal()))
            else:
                return terms[0] if len(terms) == 1 else Sum(terms)

    def ordinal(self) -> Node:
        """``G:H:K`` is ``(G:H):K`` (each ``:`` one level deeper)."""
        start, depth = self.pos, self.depth
        node = self.unary()
        while self.peek() == ":":
            self.pos += 1
            self.enter()
            node = Call("ordinal", [node, self.unary()], start, self.pos)
        self.depth = depth
        return node

    def unary(self) -> Node:
        c = self.peek()
        self.enter()
        try:
            if c == "±" or self.text.startswith("+-", self.pos) or self.text.startswith("+−", self.pos):
                self.pos += 1 if c == "±" else 2
                return Pm(self.unary())
            if c == "+":
                self.pos += 1
                return self.unary()
            if c and c in _MINUS:
                self.pos += 1
                if self.text[self.pos : self.pos + 1].isdigit():  # "-1^" is (-1) + ^, as CGSuite reads it
                    return self.methods(self.literal(negative=True), self.pos - 1)
                return Neg(self.unary())
            start = self.pos
            return self.methods(self.primary(), start)
        finally:
            self.depth -= 1

    def word(self) -> str:
        """The run of ASCII letters at ``pos`` (not consumed)."""
        end = self.pos
        while end < len(self.text) and self.text[end].isascii() and self.text[end].isalpha():
            end += 1
        return self.text[self.pos : end]

    def methods(self, node: Node, start: int) -> Node:
        """``node`` followed by method calls ``.name(args)`` (``.name`` alone without arguments; each
        call one level deeper)."""
        depth = self.depth
        while self.peek() == "." and self.text[self.pos + 1 : self.pos + 2].isalpha():
            self.pos += 1
            self.enter()
            node = self.call(self.word(), [node], start)
        self.depth = depth
        return node

    def call(self, name: str, args: list[Node], start: int) -> Node:
        """An operation at ``pos`` (its name, then its arguments in parentheses) after ``args``."""
        at = self.pos
        operation = OPERATIONS.get(name.lower())
        if operation is None:
            raise self.fail(f"unknown operation {name!r} (known: {', '.join(sorted(OPERATION_ARITY))})")
        count = OPERATION_ARITY[operation][1]
        self.pos += len(name)
        if self.peek() == "(":
            self.pos += 1
            self.enter()
            if self.peek() != ")":
                args.append(self.expression())
                while self.peek() == ",":
                    self.pos += 1
                    args.append(self.expression())
            self.expect(")")
            self.depth -= 1
        if len(args) != count:
            raise self.fail(f"{name} takes {count} argument{'s' if count > 1 else ''} "
                            f"(the game first), got {len(args)}", at)
        return Call(operation, args, start, self.pos)

    def primary(self) -> Node:
        c = self.peek()
        start = self.pos
        if not c:
            raise self.fail("expected a game, found the end of the text")
        if c == "(":
            self.pos += 1
            node = self.expression()
            self.expect(")")
            return node
        if c == "{":
            self.pos += 1
            return self.braces(start)
        if c in "⧾⧿":
            self.pos += 1
            return self.tiny(c == "⧾", subscript=True)
        for name in ("tiny", "miny"):
            if self.text[self.pos : self.pos + 4].lower() == name:
                after = self.pos + 4
                while after < len(self.text) and self.text[after].isspace():
                    after += 1
                if self.text[after : after + 1] == "(":
                    self.pos = after
                    return self.tiny(name == "tiny", subscript=False)
        if c.isdigit() or c in _ARROWS or c in _STARS:
            return self.literal()
        word = self.word()
        if word and word.lower() in OPERATIONS:
            return self.call(word, [], start)
        raise self.fail(f"expected a game, found {c!r}")

    def tiny(self, is_tiny: bool, subscript: bool) -> Node:
        start = self.pos
        digits = ""
        while subscript and self.pos < len(self.text) and self.text[self.pos] in "₀₁₂₃₄₅₆₇₈₉":
            digits += self.text[self.pos].translate(_UNSUB)
            self.pos += 1
        if digits:
            self.check_digits(digits, start)
            return Tiny(Nus((Fraction(int(digits)), 0, 0), start, self.pos), is_tiny)
        self.expect("(")
        x = self.expression()
        self.expect(")")
        return Tiny(x, is_tiny)

    def check_digits(self, digits: str, start: int) -> None:
        if len(digits) > self.limits.max_digits:
            raise self.fail(f"a numeral of {len(digits)} digits (at most {self.limits.max_digits})", start)

    def integer_token(self) -> int | None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isdigit():
            self.pos += 1
        if self.pos == start:
            return None
        digits = self.text[start : self.pos]
        self.check_digits(digits, start)
        try:
            return int(digits)
        except ValueError:  # other Unicode digits ('²' is a digit but not a decimal)
            raise self.fail(f"{digits!r} is not a decimal number", start) from None

    def literal(self, negative: bool = False) -> Node:
        """``[number][ups][star]`` with no spaces inside, e.g. ``73/16v9*8``, ``2·↑∗``.

        With ``negative`` (a ``-`` right before the digits) only the number part is negated.
        """
        start = self.pos
        x = Fraction(0)
        n = k = 0
        whole = self.integer_token()
        multiplier: int | None = None
        if whole is not None:
            if self.text.startswith("·", self.pos):
                multiplier = whole
                self.pos += 1
                if self.pos >= len(self.text) or self.text[self.pos] not in "↑↓^v":
                    raise self.fail("expected ↑ or ↓ after the multiplier '·'")
            elif self.text.startswith("/", self.pos):
                self.pos += 1
                slash = self.pos
                den = self.integer_token()
                if den is None:
                    raise self.fail("expected a denominator after '/'")
                if den & (den - 1) or den == 0:
                    raise self.fail(f"denominator {den} is not a power of two", slash)
                x = Fraction(whole, den)
            else:
                x = Fraction(whole)
        if self.pos < len(self.text) and self.text[self.pos] in _ARROWS:
            first = self.text[self.pos]
            unit = _ARROWS[first]
            count = 0
            while self.pos < len(self.text) and self.text[self.pos] == first:
                count += abs(unit)
                self.pos += 1
            digits = self.integer_token() if multiplier is None else None
            if digits is not None:
                if count != 1:
                    raise self.fail("an arrow count follows a single arrow (write ^3, not ^^3)", start)
                count = digits
            n = (multiplier if multiplier is not None else 1) * count * (1 if unit > 0 else -1)
        if self.pos < len(self.text) and self.text[self.pos] in _STARS:
            self.pos += 1
            digits = self.integer_token()
            k = 1 if digits is None else digits
        if self.pos < len(self.text) and (self.text[self.pos].isdigit() or self.text[self.pos] in _ARROWS):
            raise self.fail("unexpected character in a number-up-star literal")
        if negative:
            if multiplier is not None:
                n = -n
            x = -x
        return Nus((x, n, k), start - (1 if negative else 0), self.pos)

    def braces(self, start: int) -> Node:
        """After ``{``: options separated by commas and one top-level run of slashes."""
        self.enter()
        items: list[tuple[Node | None, int]] = []  # (option or None when empty, its index)
        seps: list[tuple[int, int]] = []  # (0 for a comma or the number of slashes, index)
        while True:
            c = self.peek()
            at = self.pos
            if c in (",", "|", "}"):
                items.append((None, at))
            else:
                items.append((self.expression(), at))
            c = self.peek()
            at = self.pos
            if c == "}":
                self.pos += 1
                break
            if c == ",":
                self.pos += 1
                seps.append((0, at))
            elif c == "|":
                bars = 0
                while self.pos < len(self.text) and self.text[self.pos] == "|":
                    bars += 1
                    self.pos += 1
                seps.append((bars, at))
            elif not c:
                raise self.fail(f"unclosed '{{' opened at column {start + 1}")
            else:
                raise self.fail(f"expected ',', '|' or '}}', found {c!r}")
        node = self.split(items, seps, start)
        self.depth -= 1
        return node

    def split(self, items: list[tuple[Node | None, int]], seps: list[tuple[int, int]], start: int) -> Node:
        most = max((b for b, _ in seps), default=0)
        if most == 0:
            raise self.fail("a game needs '|' between its Left and Right options", start)
        tops = [i for i, (b, _) in enumerate(seps) if b == most]
        if len(tops) > 1:
            raise self.fail(f"two separators of {most} slashes at the same level", seps[tops[1]][1])
        i = tops[0]
        sides: list[list[Node]] = []
        for part, part_seps in ((items[: i + 1], seps[:i]), (items[i + 1 :], seps[i + 1 :])):
            if any(b for b, _ in part_seps):
                self.enter()
                sides.append([self.split(part, part_seps, part[0][1])])
                self.depth -= 1
                continue
            options = [g for g, _ in part if g is not None]
            if len(options) != len(part) and len(part) > 1:
                missing = next(at for g, at in part if g is None)
                raise self.fail("empty option between separators", missing)
            sides.append(options)
        return Opts(sides[0], sides[1])
