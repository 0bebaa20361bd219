"""The explorer's own font: every character it prints beyond ASCII, so that no page shows an empty
box where the visitor's system lacks a glyph (tiny ``⧾`` and miny ``⧿`` are in few system fonts).

``static/ruma-symbols.woff2`` (family ``Ruma Symbols``, declared by ``@font-face`` in
``static/ruma.css``: first in every font stack, and through its ``unicode-range`` used for these
characters only, so values look alike everywhere) is a subset of three Noto fonts (SIL Open Font
License 1.1, ``static/ruma-symbols-OFL.txt``): ``SOURCES`` says which characters come from which.
It is built at development time, never at run time, with fontTools (subset, merge) and brotli
(WOFF2), from Debian's ``fonts-noto-core``::

    apt-get download fonts-noto-core && dpkg-deb -x fonts-noto-core_*.deb noto
    pip install fonttools brotli
    python -m ruma.web.glyphs noto/usr/share/fonts/truetype/noto web/static/ruma-symbols.woff2

``tests/web/test_web_glyphs.py`` checks that the font covers ``GLYPHS`` and that ``GLYPHS`` covers
what the explorer prints (the Unicode notation of values, the templates, the catalog's texts).
"""

from __future__ import annotations

import sys
from pathlib import Path

#: the family name the stylesheet uses
FAMILY = "Ruma Symbols"
#: the font file, in ``web/static/``
FONT = "ruma-symbols.woff2"
#: source font file -> the characters taken from it
SOURCES: dict[str, str] = {
    # values (ups, downs, star, tiny and miny), arrows, relations, the integral, brace pieces
    "NotoSansMath-Regular.ttf": "↑↓⇑⇓∗⧾⧿←→↔⇐⇒−≤≥≠≈∞∫⊕∑⎧⎨⎩⎪⎫⎬⎭",
    # sub- and superscript digits, fractions, signs, dashes and punctuation
    "NotoSans-Regular.ttf": "±·×÷₀₁₂₃₄₅₆₇₈₉₊₋⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻½¼¾‖–—…•§’‘“”′″Θθℓ",
    # a full pot's dot, the check mark
    "NotoSansSymbols2-Regular.ttf": "●✓",
}
#: the copyright notices of the sources (their licence: ``static/ruma-symbols-OFL.txt``)
COPYRIGHT = ("Copyright 2015 Google LLC (Noto Sans); Copyright 2017 Google Inc. (Noto Sans Symbols 2); "
             "Copyright 2018 Google LLC (Noto Sans Math). All Rights Reserved.")
#: every character the font draws
GLYPHS = "".join(SOURCES.values())


def unicode_range() -> str:
    """The CSS ``unicode-range`` of ``GLYPHS`` (``U+A7, U+B1-B3, ...``), as ``@font-face`` declares it."""
    points = sorted({ord(c) for c in GLYPHS})
    spans: list[list[int]] = []
    for point in points:
        if spans and point == spans[-1][1] + 1:
            spans[-1][1] = point
        else:
            spans.append([point, point])
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in spans)


def build(source_dir: Path, target: Path) -> Path:
    """Subset each source font in ``source_dir`` to its characters, merge them, name the result
    ``FAMILY`` and write it as WOFF2 to ``target`` (needs fontTools and brotli)."""
    from fontTools import subset
    from fontTools.merge import Merger

    parts = []
    for name, characters in SOURCES.items():
        options = subset.Options()
        options.layout_features = []  # single glyphs: no ligatures or shaping needed
        options.drop_tables += ["MATH"]
        options.notdef_outline = True
        options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # with the licence and its address
        font = subset.load_font(str(source_dir / name), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=characters)
        subsetter.subset(font)
        part = target.with_name(f".{name}.subset.ttf")
        subset.save_font(font, str(part), options)
        parts.append(part)
    try:
        merged = Merger().merge([str(p) for p in parts])
    finally:
        for part in parts:
            part.unlink()
    names = merged["name"]
    names.removeNames(nameID=16)
    names.removeNames(nameID=17)
    unique = f"{FAMILY} (a subset of Noto Sans, Noto Sans Math, Noto Sans Symbols 2)"
    for name_id, text in ((0, COPYRIGHT), (1, FAMILY), (2, "Regular"), (3, unique), (4, FAMILY),
                          (6, "RumaSymbols-Regular")):
        names.setName(text, name_id, 3, 1, 0x409)
        names.setName(text, name_id, 1, 0, 0)
    merged.flavor = "woff2"
    merged.save(str(target))
    return target


def main(argv: list[str]) -> int:
    """``python -m ruma.web.glyphs NOTO_DIR [TARGET]`` (see the module doc)."""
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    target = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent / "static" / FONT
    print(build(Path(argv[0]), target))
    print(f"unicode-range: {unicode_range()};  (the @font-face of static/ruma.css)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
