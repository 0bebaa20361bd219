"""Text forms of games: CGSuite plain text, Unicode and cgt-py braces, printed and parsed.

Styles of ``format_game(g, style)`` (see ``docs/notation.md``):

* ``"ascii"`` — CGSuite plain text: ``5``, ``-1/2``, ``*3``, ``^``, ``^^``, ``^3``, ``vv*``,
  ``73/16v9*8``, ``+-1``, ``Tiny(2)``, ``Miny(2)``, slashes for nested games (``{2||1|0}``, up to
  four slashes, then braces), options separated by ``,``.
* ``"unicode"`` — the same with ``↑ ⇑ n·↑ ↓ ⇓ n·↓ ∗ ±`` and ``⧾₂`` / ``⧿₂`` for tiny/miny of a
  positive integer (``⧾(x)`` otherwise); options separated by ``, ``.
* ``"braces"`` — exactly what cgt-py prints: braces only, ``", "`` between options, ``^2``,
  ``v3``, ``^3*2``, no slashes and no ``±``.

``parse_game`` reads all three (and mixtures), with ``+``, ``-`` (binary and unary) and
parentheses. Options in every style are listed in cgt-py's order: numbers-ups-stars first (by
number, then ups, then nim value), then other games compared option list by option list.
"""

from __future__ import annotations

from fractions import Fraction
from ruma.engine.cgt.game import Game
from ruma.engine.errors import NotationError, RumaInputError

__all__ = ["STYLES", "format_game", "parse_game", "sort_key"]

STYLES = ("ascii", "unicode", "braces")
_MAX_SLASHES = 4
_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_UNSUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")

# -- printing ---------------------------------------------------------------------------------
_KEYS: dict[int, tuple[object, ...]] = {}
_TEXT: dict[tuple[int, str], str] = {}


def sort_key(g: Game) -> tuple[object, ...]:
    """cgt-py's order of options: NUS values by (number, ups, nim), then other games."""
    key = _KEYS.get(g.id)
    if key is None:
        nus = g.nus
        if nus is not None:
            key = (0, nus[0], nus[1], nus[2])
        else:
            lefts = sorted([sort_key(h) for h in g.left_options])
            rights = sorted([sort_key(h) for h in g.right_options])
            key = (1, lefts, rights)
        _KEYS[g.id] = key
    return key


def _sorted(options: tuple[Game, ...]) -> list[Game]:
    return sorted(options, key=sort_key)


def _number(x: Fraction) -> str:
    return str(x)


def _nus_text(x: Fraction, n: int, k: int, style: str) -> str:
    parts = [_number(x)] if x or (n == 0 and k == 0) else []
    if n:
        if style == "unicode":
            arrow = "↑" if n > 0 else "↓"
            if abs(n) <= 2:
                parts.append({1: "↑", 2: "⇑", -1: "↓", -2: "⇓"}[n])
            else:
                parts.append(("+" if parts else "") + f"{abs(n)}·{arrow}")
        else:
            arrow = "^" if n > 0 else "v"
            if abs(n) == 1 or (abs(n) == 2 and style == "ascii"):
                parts.append(arrow * abs(n))
            else:
                parts.append(f"{arrow}{abs(n)}")
    if k:
        star = "∗" if style == "unicode" else "*"
        parts.append(star if k == 1 else f"{star}{k}")
    return "".join(parts)


def format_game(g: Game, style: str = "ascii") -> str:
    """``g`` as text in ``style`` (``"ascii"``, ``"unicode"`` or ``"braces"``); parses back to ``g``."""
    if style not in STYLES:
        raise RumaInputError(f"unknown notation style {style!r} (expected one of {', '.join(STYLES)})")
    key = (g.id, style)
    text = _TEXT.get(key)
    if text is None:
        text = _format(g, style)
        _TEXT[key] = text
    return text


def _format(g: Game, style: str) -> str:
    nus = g.nus
    if nus is not None:
        return _nus_text(nus[0], nus[1], nus[2], style)
    if style == "braces":
        sides = [", ".join(format_game(h, style) for h in _sorted(o)) for o in (g.left_options, g.right_options)]
        return "{" + sides[0] + "|" + sides[1] + "}"
    special = _special(g, style)
    if special is not None:
        return special
    return "{" + _body(g, style)[0] + "}"


def _atom(g: Game, style: str) -> str:
    """``g``'s text, parenthesised when it would not bind as one operand of a prefix operator."""
    text = format_game(g, style)
    return f"({text})" if "+" in text.lstrip("+-±") and not text.startswith("{") else text


def _special(g: Game, style: str) -> str | None:
    """``±A``, ``Tiny(x)`` or ``Miny(x)`` when ``g`` has that exact canonical shape."""
    lo, ro = g.left_options, g.right_options
    if len(lo) != 1 or len(ro) != 1:
        return None
    a, b = lo[0], ro[0]
    if b is -a:
        return ("±" if style == "unicode" else "+-") + _atom(a, style)
    zero = _zero()
    for inner, outer, name, sign in ((b, a, "Tiny", -1), (a, b, "Miny", 1)):
        if outer is zero and len(inner.left_options) == 1 and len(inner.right_options) == 1:
            near, far = (inner.left_options[0], inner.right_options[0])
            if sign < 0 and near is zero:
                x = -far
            elif sign > 0 and far is zero:
                x = near
            else:
                continue
            if x > zero:
                return _tiny_text(name, x, style)
    return None


def _tiny_text(name: str, x: Game, style: str) -> str:
    if style != "unicode":
        return f"{name}({format_game(x, style)})"
    sign = "⧾" if name == "Tiny" else "⧿"
    if x.is_integer:
        return sign + str(x.number_value).translate(_SUB)
    return f"{sign}({format_game(x, style)})"


def _body(g: Game, style: str) -> tuple[str, int]:
    """The inside of ``g``'s braces and the number of slashes separating its sides."""
    sep = ", " if style == "unicode" else ","
    sides: list[list[tuple[str, int]]] = []
    for options in (g.left_options, g.right_options):
        if len(options) == 1 and options[0].nus is None and _special(options[0], style) is None:
            text, bars = _body(options[0], style)
            sides.append([(text, bars) if bars < _MAX_SLASHES else ("{" + text + "}", 0)])
        else:
            sides.append([(format_game(h, style), 0) for h in _sorted(options)])
    bars = 1 + max([b for side in sides for _, b in side], default=0)
    left, right = (sep.join(t for t, _ in side) for side in sides)
    return left + "|" * bars + right, bars


def _zero() -> Game:
    from ruma.engine.cgt import ZERO

    return ZERO


# -- parsing ----------------------------------------------------------------------------------
_ARROWS = {"^": 1, "↑": 1, "⇑": 2, "v": -1, "↓": -1, "⇓": -2}
_STARS = "*∗"
_MINUS = "-−"


class _Parser:
    """Recursive descent over ``text``; ``pos`` is the index of the next character."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, reason: str, index: int | None = None) -> NotationError:
        return NotationError(self.text, self.pos if index is None else index, reason)

    def peek(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "the end of the text"
            raise self.fail(f"expected {char!r}, found {found}")
        self.pos += 1

    def parse(self) -> Game:
        if not self.peek():
            raise self.fail("empty expression")
        g = self.expression()
        if self.peek():
            raise self.fail(f"unexpected {self.peek()!r}")
        return g

    def expression(self) -> Game:
        g = self.unary()
        while True:
            c = self.peek()
            if c == "+":
                self.pos += 1
                g = g + self.unary()
            elif c and c in _MINUS:
                self.pos += 1
                g = g - self.unary()
            else:
                return g

    def unary(self) -> Game:
        c = self.peek()
        if c == "±" or self.text.startswith("+-", self.pos) or self.text.startswith("+−", self.pos):
            self.pos += 1 if c == "±" else 2
            a = self.unary()
            return Game.from_options([a], [-a])
        if c == "+":
            self.pos += 1
            return self.unary()
        if c and c in _MINUS:
            self.pos += 1
            if self.text[self.pos : self.pos + 1].isdigit():  # "-1^" is (-1) + ^, as CGSuite reads it
                return self.literal(negative=True)
            return -self.unary()
        return self.primary()

    def primary(self) -> Game:
        c = self.peek()
        start = self.pos
        if not c:
            raise self.fail("expected a game, found the end of the text")
        if c == "(":
            self.pos += 1
            g = self.expression()
            self.expect(")")
            return g
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
        raise self.fail(f"expected a game, found {c!r}")

    def tiny(self, is_tiny: bool, subscript: bool) -> Game:
        from ruma.engine.cgt import ZERO, integer

        digits = ""
        while subscript and self.pos < len(self.text) and self.text[self.pos] in "₀₁₂₃₄₅₆₇₈₉":
            digits += self.text[self.pos].translate(_UNSUB)
            self.pos += 1
        if digits:
            x = integer(int(digits))
        else:
            self.expect("(")
            x = self.expression()
            self.expect(")")
        if is_tiny:
            return Game.from_options([ZERO], [Game.from_options([ZERO], [-x])])
        return Game.from_options([Game.from_options([x], [ZERO])], [ZERO])

    def integer_token(self) -> int | None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isdigit():
            self.pos += 1
        return int(self.text[start : self.pos]) if self.pos > start else None

    def literal(self, negative: bool = False) -> Game:
        """``[number][ups][star]`` with no spaces inside, e.g. ``73/16v9*8``, ``2·↑∗``.

        With ``negative`` (a ``-`` right before the digits) only the number part is negated.
        """
        from ruma.engine.cgt import nus_game

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
        return nus_game(x, n, k)

    def braces(self, start: int) -> Game:
        """After ``{``: options separated by commas and one top-level run of slashes."""
        items: list[tuple[Game | None, int]] = []  # (option or None when empty, its index)
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
        return self.split(items, seps, start)

    def split(self, items: list[tuple[Game | None, int]], seps: list[tuple[int, int]], start: int) -> Game:
        most = max((b for b, _ in seps), default=0)
        if most == 0:
            raise self.fail("a game needs '|' between its Left and Right options", start)
        tops = [i for i, (b, _) in enumerate(seps) if b == most]
        if len(tops) > 1:
            raise self.fail(f"two separators of {most} slashes at the same level", seps[tops[1]][1])
        i = tops[0]
        sides: list[list[Game]] = []
        for part, part_seps in ((items[: i + 1], seps[:i]), (items[i + 1 :], seps[i + 1 :])):
            if any(b for b, _ in part_seps):
                sides.append([self.split(part, part_seps, part[0][1])])
                continue
            options = [g for g, _ in part if g is not None]
            if len(options) != len(part) and len(part) > 1:
                missing = next(at for g, at in part if g is None)
                raise self.fail("empty option between separators", missing)
            sides.append(options)
        return Game.from_options(sides[0], sides[1])


def parse_game(text: str) -> Game:
    """Parse CGSuite plain text, Unicode or cgt-py braces (with ``+ - ( )``) into a ``Game``.

    Raises ``NotationError`` quoting ``text`` and pointing at the offending column.
    """
    if not isinstance(text, str):
        raise RumaInputError(f"expected a string, got {text!r}")
    try:
        return _Parser(text).parse()
    except RecursionError as exc:
        raise NotationError(text, 0, "nested too deeply") from exc

