"""The seed catalog: the legible entries of Erickson's Tables 1–5 and his theorems, and the
positions ruma's value-directed search found beyond the exhaustive bound (``BEYOND``).

Source: Jeff Erickson, *Sowing Games*, Games of No Chance (MSRI Publications 29, 1996),
pp. 287–297, read from an OCR of the paper. Only entries whose
position *and* printed value are legible in the OCR are seeded; the printed value is kept as
``source_value`` (provenance only — the catalog always evaluates). Page numbers 288 and 290 are
printed in the OCR; the others are inferred from the running heads and marked ``page≈`` in notes.

Positions are written in the paper's notation, which the rulesets parse (``•`` full pots,
``1^8`` repetitions); Table 5's counts of ten use comma mode (``10,3``).

Values in ``source_value`` are ASCII game notation for ``parse_game``: Erickson's
``+_x`` (tiny-x) is ``{0||0|-x}``; Table 5's exotic games are written out by the options the
paper gives: ↑(1|0) = {↑,*|0,*}, ↑(±1) = {↑,*|↓,*}, ↑²* = {0,*|↓}, ↓(1|0) = {0,*|↓,*},
↓₂* = {↑|0,*}.
"""

from __future__ import annotations

from typing import Any

PAPER = "Erickson 1996, Sowing Games (Games of No Chance)"

SEARCH = "ruma find --beyond (a value-directed search from the store; docs/tables.md)"

# -- helpers -----------------------------------------------------------------------------------


def _entry(name: str, ruleset: str, paper: str, value: str, table: str, page: int | None,
           tags: list[str], note: str = "") -> dict[str, Any]:
    position = paper
    notes = []
    if page is not None and page not in (288, 290):
        notes.append(f"page≈{page} (inferred)")
    if note:
        notes.append(note)
    return {"name": name, "ruleset": ruleset, "position": position, "source_paper": PAPER,
            "source_table": table, "source_page": page, "source_value": value,
            "tags": ["erickson-1996", *tags], "notes": "; ".join(notes) or None}


# -- Table 1 (partizan Sowing, p. 290) and the worked example of p. 288 ---------------------------
TABLE1 = [
    ("2111", "1/2"), ("2202", "^"), ("31011", "^*"), ("11", "*"), ("31•13", "*2"),
    ("•2011", "{0||0|-1}"), ("•013", "{0||0|-2}"), ("•00114", "{0||0|-3}"), ("332011", "{0||0|-1/2}"),
]

#: the first entry is illegible in the OCR; the author's erratum (his page on the paper) gives it
TABLE1_NOTES = {"2111": "the first entry as the author's erratum gives it ('should read 2111 = 1/2'; "
                        "the OCR's is illegible); the erratum adds that 211 = *"}

# -- Table 2 (partizan Sowing starting positions) -----------------------------------------------
TABLE2 = [
    ("1^2", "*"), ("1^3", "0"), ("1^4", "{1/2|-1/2}"), ("1^5", "0"), ("1^6", "0"), ("1^7", "*2"),
    ("1^8", "*"), ("1^9", "0"),
    ("•1^1•", "*"), ("•1^2•", "0"), ("•1^3•", "0"), ("•1^4•", "{0,{1|0}|0,{0|-1}}"), ("•1^5•", "0"),
    ("•1^6•", "*"), ("•1^8•", "0"),
    ("2^3", "*"), ("2^4", "*"), ("2^5", "0"), ("2^7", "*"),
    ("•2^2•", "*"), ("•2^3•", "*2"), ("•2^5•", "*"), ("•2^6•", "0"),
    ("3^4", "*"), ("3^5", "*"), ("3^6", "*"), ("3^7", "*"), ("•3^3•", "*"), ("•3^6•", "*"),
]

# -- Table 3 (impartial Sowing: fewest seeds | fewest pots) --------------------------------------
TABLE3_FEWEST_SEEDS = ["102", "11", "111", "1112", "110111", "111121", "10111121", "11101112",
                       "11112111", "11111122"]
TABLE3_FEWEST_POTS = ["102", "11", "111", "1112", "11131", "12113", "111312", "1111113",
                      "11112111", "11132112"]

_T3_GARBLED = ("the computed value differs from the printed one, and an independent brute force "
               "agrees with the engine: the OCR probably garbled this position")
TABLE3_NOTES = {"11111122": _T3_GARBLED, "111312": _T3_GARBLED, "11132112": _T3_GARBLED}

# -- Table 4 (impartial Sowing starting positions) -----------------------------------------------
TABLE4 = [
    ("1^2", "*"), ("1^3", "*2"), ("1^4", "0"), ("1^5", "0"), ("1^6", "*"), ("1^7", "*2"),
    ("1^8", "0"), ("1^9", "0"), ("1^10", "*"), ("1^11", "0"), ("1^12", "0"),
    ("•1^1•", "*"), ("•1^2•", "*2"), ("•1^3•", "0"), ("•1^4•", "0"), ("•1^5•", "*"), ("•1^6•", "0"),
    ("•1^7•", "*4"), ("•1^8•", "0"), ("•1^9•", "*2"), ("•1^10•", "0"),
    ("2^3", "*"), ("2^4", "*2"), ("2^5", "*3"), ("2^6", "0"), ("2^7", "0"), ("2^8", "*2"),
    ("•2^2•", "*"), ("•2^3•", "*"), ("•2^4•", "*"), ("•2^5•", "0"), ("•2^6•", "0"), ("•2^7•", "*2"),
    ("3^4", "*"), ("3^5", "*2"), ("3^6", "0"), ("3^7", "*3"), ("3^8", "*3"),
    ("•3^3•", "*"), ("•3^4•", "*"), ("•3^5•", "*3"), ("•3^6•", "0"), ("•3^7•", "*2"),
]

# -- Table 5 (Atomic Wari positions xy, x, y ≤ 10) -------------------------------------------------
_T5_SYMBOLS = {"0": "0", "*": "*", "*2": "*2", "U": "^", "D": "v", "U10": "{^,*|0,*}",
               "D10": "{0,*|v,*}", "Upm": "{^,*|v,*}", "U2": "{0,*|v}", "D2": "{^|0,*}"}
TABLE5 = [  # rows x = 1..10, columns y = 1..10, in the symbols above
    "0 * U U U U U U U U",
    "* *2 U10 U2 U2 U2 U2 U2 U2 U2",
    "D D10 *2 *2 D10 D10 D10 D10 D10 D10",
    "D D2 *2 *2 D10 U2 U2 U2 U2 U2",
    "D D2 U10 U10 Upm U10 U2 U2 U2 U2",
    "D D2 U10 D2 D10 *2 *2 U2 U2 U2",
    "D D2 U10 D2 D2 *2 *2 *2 U2 U2",
    "D D2 U10 D2 D2 D2 *2 *2 *2 U2",
    "D D2 U10 D2 D2 D2 D2 *2 *2 *2",
    "D D2 U10 D2 D2 D2 D2 D2 *2 *2",
]


def beyond_positions() -> list[dict[str, Any]]:
    """The positions found beyond the exhaustive bound (``BEYOND``: ``docs/data/beyond.jsonl``), as
    keyword arguments of ``CatalogOps.add_position``, each with its provenance: the search, its
    bound, its date."""
    out = []
    for name, ruleset, position, value, how, search, bound, date in BEYOND:
        out.append({"name": name, "ruleset": ruleset, "position": position, "source_paper": SEARCH,
                    "source_table": "docs/tables.md, Beyond the bound (docs/data/beyond.jsonl)", "source_page": None,
                    "source_value": value, "tags": ["beyond", "ruma-search"],
                    "notes": f"found by `{search}` on {date}, beyond the exhaustive bound of {bound}: {how}"})
    return out


def seed_positions() -> list[dict[str, Any]]:
    """Every seeded named position, as keyword arguments of ``CatalogOps.add_position``."""
    out = [_entry("erickson-312", "sowing", "312", "{0|-2}", "text (Sowing example)", 288, ["example"])]
    for paper, value in TABLE1:
        out.append(_entry(f"erickson-t1-{paper}", "sowing", paper, value, "Table 1", 290, ["table1"],
                          note=TABLE1_NOTES.get(paper, "")))
    for paper, value in TABLE2:
        out.append(_entry(f"erickson-t2-{paper}", "sowing", paper, value, "Table 2", 291,
                          ["table2", "starting-position"]))
    names: dict[str, dict[str, Any]] = {}
    for column, rows in (("fewest-seeds", TABLE3_FEWEST_SEEDS), ("fewest-pots", TABLE3_FEWEST_POTS)):
        for nim, paper in enumerate(rows):
            value = "0" if nim == 0 else ("*" if nim == 1 else f"*{nim}")
            entry = names.get(paper)
            if entry is None:
                entry = _entry(f"erickson-t3-{paper}", "impartial-sowing", paper, value, "Table 3", 292,
                               ["table3", f"nim-{nim}"], note=TABLE3_NOTES.get(paper, ""))
                names[paper] = entry
                out.append(entry)
            entry["tags"].append(f"table3-{column}")
    for paper, value in TABLE4:
        out.append(_entry(f"erickson-t4-{paper}", "impartial-sowing", paper, value, "Table 4", 293,
                          ["table4", "starting-position"]))
    for x, row in enumerate(TABLE5, start=1):
        for y, symbol in enumerate(row.split(), start=1):
            paper = f"{x}{y}" if x < 10 and y < 10 else f"{x},{y}"
            out.append(_entry(f"erickson-t5-{x}-{y}", "atomic-wari", paper, _T5_SYMBOLS[symbol],
                              "Table 5", 294, ["table5", "two-pot"], note=f"x={x}, y={y}"))
    return out


# -- positions found beyond the exhaustive bound -------------------------------------------------
#: (name, ruleset, position, value, how it was reached, the search, its bound, date): the lines of
#: docs/data/beyond.jsonl (``ruma tables beyond --records``; tests/studies/test_beyond.py checks
#: that they agree)
BEYOND: list[tuple[str, str, str, str, str, str, str, str]] = [
    ('impartial-atomic-wari-star10-beyond-1', 'impartial-atomic-wari', '23002030232', '*10',
     'a move to `113002030232` = *8 (found)',
     'ruma find impartial-atomic-wari *10 --beyond --seeds 14 --pots 14 --seconds 300', '14 seeds and 14 pots', '2026-12-05'),
    ('impartial-atomic-wari-star9-beyond-1', 'impartial-atomic-wari', '20122300024', '*9',
     'a move to `11122300024` = *8 (found)',
     'ruma find impartial-atomic-wari *10 --beyond --seeds 14 --pots 14 --seconds 300', '14 seeds and 14 pots', '2026-12-05'),
    ('impartial-atomic-wari-star9-beyond-2', 'impartial-atomic-wari', '20122300123', '*9',
     'a move to `11122300123` = *8 (found)',
     'ruma find impartial-atomic-wari *10 --beyond --seeds 14 --pots 14 --seconds 300', '14 seeds and 14 pots', '2026-12-05'),
    ('impartial-atomic-wari-star9-beyond-3', 'impartial-atomic-wari', '20200223023', '*9',
     'a move to `11200223023` = *8 (found)',
     'ruma find impartial-atomic-wari *10 --beyond --seeds 14 --pots 14 --seconds 300', '14 seeds and 14 pots', '2026-12-05'),
    ('impartial-atomic-wari-star9-beyond-4', 'impartial-atomic-wari', '20202020332', '*9',
     'a move to `11202020332` = *8 (found)',
     'ruma find impartial-atomic-wari *10 --beyond --seeds 14 --pots 14 --seconds 300', '14 seeds and 14 pots', '2026-12-05'),
    ('impartial-atomic-wari-star9-beyond-5', 'impartial-atomic-wari', '20202230023', '*9',
     'a move to `11202230023` = *8 (found)',
     'ruma find impartial-atomic-wari *10 --beyond --seeds 14 --pots 14 --seconds 300', '14 seeds and 14 pots', '2026-12-05'),
    ('sowing-8up-star-beyond-1', 'sowing', '100120111011103', '^8*',
     'a Right move to `100120111012003` = ^7 (found)',
     'ruma find sowing ^9 --beyond --seeds 14 --pots 14 --seconds 240', '14 seeds and 14 pots', '2026-12-05'),
]

# .37 P-positions found by Erickson's search (p. 295): x−2 or x−1 in this set is excluded below
_P37 = (0, 3, 11, 19, 29, 45)


def seed_theorems() -> list[dict[str, Any]]:
    """Every seeded theorem, as keyword arguments of ``CatalogOps.add_theorem``."""
    adjacent_excluded = sorted({p + 2 for p in _P37} | {p + 1 for p in _P37})
    return [
        {"name": "erickson-2.2", "ruleset": "sowing", "family": "(10)^m 03 (01)^n", "claim": "0",
         "domain": "m>=0,n>=0", "source_paper": PAPER, "source_ref": "Theorem 2.2", "source_page": 289,
         "notes": "for all m and n"},
        {"name": "erickson-2.3", "ruleset": "sowing", "family": "(01)^m 2 (01)^n", "claim": "n+1",
         "domain": "m>=0,n>=0,not(m=0,n=0)", "source_paper": PAPER, "source_ref": "Theorem 2.3",
         "source_page": 289, "notes": "for all m and n except m = n = 0"},
        {"name": "erickson-2.4", "ruleset": "sowing", "family": "11(01)^n", "claim": "{n+1|0}",
         "domain": "n>=1", "source_paper": PAPER, "source_ref": "Theorem 2.4", "source_page": 289,
         "notes": "for all positive n"},
        {"name": "erickson-2.5", "ruleset": "sowing", "family": "(10)^m 2 (01)^n", "claim": "{n|-m}",
         "domain": "m>=1,n>=1", "source_paper": PAPER, "source_ref": "Theorem 2.5", "source_page": 289,
         "notes": "for all positive m and n"},
        {"name": "erickson-3.1", "ruleset": "atomic-wari", "family": "{a}{b}{c}{d}{e}{f}",
         "claim": "property:sparse-atomic-wari", "domain": "a<=2,b<=2,c<=2,d<=2,e<=2,f<=2",
         "source_paper": PAPER, "source_ref": "Theorem 3.1", "source_page": 295,
         "notes": "every sparse position of six pots (pots ≤ 2): atomic wari = impartial = sum of ·37 heaps"},
        {"name": "erickson-3.1-deuce-runs", "ruleset": "atomic-wari", "family": "2^a {b} 2^c 0 2^d",
         "claim": "property:sparse-atomic-wari", "domain": "b<=1", "source_paper": PAPER,
         "source_ref": "Theorem 3.1", "source_page": 295,
         "notes": "long runs of deuces separated by a single seed or an empty pot"},
        {"name": "erickson-atomic-up-multiples", "ruleset": "atomic-wari", "family": "(01300)^n",
         "claim": "n.^", "domain": "n>=1", "source_paper": PAPER, "source_ref": "p. 295 text",
         "source_page": 295, "notes": "(01300)^n has value n·↑ and atomic weight n"},
        {"name": "erickson-t5-first-row", "ruleset": "atomic-wari", "family": "1,{y}", "claim": "^",
         "domain": "y>=3", "source_paper": PAPER, "source_ref": "Table 5 classification (x = 1)",
         "source_page": 295, "notes": "1y = ↑ for y ≥ 3 (0 if y = 1, * if y = 2)"},
        {"name": "erickson-t5-adjacent", "ruleset": "atomic-wari", "family": "{x},{x+1}", "claim": "*2",
         "domain": "x>=2," + ",".join(f"x!={e}" for e in adjacent_excluded), "source_paper": PAPER,
         "source_ref": "Table 5 classification (1 < x = y−1)", "source_page": 295,
         "notes": "*2 unless 2^(x−2) = 0 or 2^(y−2) = 0, i.e. x−2 or x−1 a ·37 P-position "
                  "(exclusions listed up to the P-position 45)"},
    ]
