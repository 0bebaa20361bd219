"""The explorer's own font (``ruma.web.glyphs``): it draws every character beyond ASCII the explorer
prints, the stylesheet declares it for exactly those characters, and the wheel ships it with its
licence. (That Chromium draws tiny and miny with it is checked in tests/web/test_web_browser.py.)"""

from __future__ import annotations

import json
import re
import tomllib
from fnmatch import fnmatch

import pytest

from ruma.web.glyphs import FAMILY, FONT, GLYPHS, SOURCES, unicode_range
from tests.support import ROOT

WEB = ROOT / "web"
STATIC = WEB / "static"

#: values whose Unicode notation uses every symbol of the notation: ups and downs (n·↑), stars,
#: ±, tiny and miny of integers (⧾₂) and of other games (⧾(…)), fractions, slashes
EXPRESSIONS = ["^", "v", "^^", "vv", "^3", "v3*", "^*", "*", "*7", "+-1", "+-{1|0}", "Tiny(2)", "Miny(2)",
               "Tiny(11)", "Miny(10)", "Tiny(1/2)", "Miny({1|*})", "{2||1|0}", "-3/4", "{0|Tiny(2)}", "^^^*3",
               "{^,*|0,*}", "{0,*|v}", "{1|*} + 1/2", "{3||2|0|||-1}"]


def _beyond_ascii(text: str) -> set[str]:
    return {c for c in text if ord(c) > 127}


def test_the_font_draws_every_glyph_and_is_named_for_the_stylesheet() -> None:
    ttlib = pytest.importorskip("fontTools.ttLib")  # (matplotlib's dependency; fontTools reads WOFF2 with brotli)
    pytest.importorskip("brotli")
    font = ttlib.TTFont(str(STATIC / FONT))
    cmap = font.getBestCmap()
    assert [c for c in GLYPHS if ord(c) not in cmap] == []
    assert font["name"].getDebugName(1) == FAMILY and font.flavor == "woff2"
    assert "SIL Open Font License" in font["name"].getDebugName(13)
    assert (STATIC / FONT).stat().st_size < 20_000  # a subset: a few kB
    assert len(GLYPHS) == len(set(GLYPHS)) == len(cmap) - sum(1 for c in cmap if c < 0x80)


def test_the_font_covers_what_the_explorer_prints() -> None:
    from ruma.engine.cgt.notation import format_game, parse_game
    from ruma.engine.rulesets import ruleset_description, ruleset_names
    from ruma.server.catalog.seed import seed_positions, seed_theorems
    from ruma.studies.markdown import KIND_TITLES, TITLES

    printed = set()
    for expression in EXPRESSIONS:
        printed |= _beyond_ascii(format_game(parse_game(expression), "unicode"))
    assert {"↑", "↓", "⇑", "⇓", "∗", "±", "⧾", "⧿", "·", "₂"} <= printed  # the corpus reaches every symbol
    for template in (WEB / "templates").glob("*.html"):
        printed |= _beyond_ascii(template.read_text(encoding="utf-8"))
    printed |= _beyond_ascii(json.dumps([seed_positions(), seed_theorems()], ensure_ascii=False))
    printed |= _beyond_ascii(" ".join([*TITLES.values(), *KIND_TITLES.values()]))
    printed |= _beyond_ascii(" ".join(ruleset_description(name) for name in ruleset_names()))
    assert sorted(printed - set(GLYPHS)) == []


def test_the_stylesheet_declares_the_font_first_for_its_characters_only() -> None:
    css = (STATIC / "ruma.css").read_text(encoding="utf-8")
    face = re.search(r"@font-face\s*\{(.*?)\}", css, re.S)
    assert face is not None
    declared = dict(part.strip().split(":", 1) for part in face.group(1).split(";") if part.strip())
    assert declared["font-family"].strip() == f'"{FAMILY}"'
    assert declared["src"].strip() == f'url("{FONT}") format("woff2")'
    assert " ".join(declared["unicode-range"].split()) == unicode_range()
    stacks = re.findall(r"font(?:-family)?:\s*([^;]*)", css.replace(face.group(0), ""))
    assert stacks and all(f'"{FAMILY}"' in stack.split(",")[0] for stack in stacks if "," in stack), stacks


def test_the_wheel_ships_the_font_and_its_licence() -> None:
    licence = (STATIC / "ruma-symbols-OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE" in licence and "Version 1.1" in licence
    for name in SOURCES:  # each source named: NotoSansSymbols2-Regular.ttf is "Noto Sans Symbols 2"
        assert re.sub(r"(?<=[a-z])(?=[A-Z0-9])", " ", name.split("-")[0]) in licence, name
    pyproject = tomllib.loads((WEB.parent / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["ruma.web"]
    for name in (FONT, "ruma-symbols-OFL.txt", "ruma.css"):
        assert any(fnmatch(f"static/{name}", pattern) for pattern in patterns), (name, patterns)
