"""The compiled walk of a family's classes (``Rules.classes``, ``engine/native/classes.c``) against
the reference loop of ``families.classes.enumerate_family``: the same classes, keys, raw counts in
both orientations and representatives, in the same order, for every unbounded row ruleset —
including Sowing families with full pots and the empty row — and the same cancellation."""

from __future__ import annotations

from typing import Any

import pytest

from ruma.engine.errors import CancelledError
from ruma.engine.families import classes as family_classes
from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.rulesets import get_ruleset, row_rulesets

#: the row rulesets whose classes are walked as stripped rows (the compiled walk's)
UNBOUNDED_ROWS = [name for name in row_rulesets() if get_ruleset(name).unbounded]
FAMILIES = [(0, 7, 1, 7), (2, 8, 3, 9), (0, 0, 1, 3), (5, 5, 2, 4), (1, 9, 4, 4), (0, 12, 1, 3), (3, 10, 2, 10)]


def _compiled(ruleset: str) -> bool:
    native = getattr(type(get_ruleset(ruleset)), "native", None)
    return native is not None and hasattr(native, "classes")


def _reference(family: Family, monkeypatch: pytest.MonkeyPatch) -> list[family_classes.FamilyClass]:
    with monkeypatch.context() as patch:
        patch.setattr(family_classes, "_native_classes", lambda family, should_cancel: None)
        return enumerate_family(family)


@pytest.mark.parametrize("ruleset", UNBOUNDED_ROWS)
@pytest.mark.parametrize("seeds_min, seeds_max, pots_min, pots_max", FAMILIES)
def test_compiled_classes_equal_the_reference(ruleset: str, seeds_min: int, seeds_max: int, pots_min: int,
                                              pots_max: int, monkeypatch: pytest.MonkeyPatch) -> None:
    if not _compiled(ruleset):
        pytest.skip("no compiled core (RUMA_ENGINE=python or not built): only the reference runs")
    family = Family.of(ruleset, (seeds_min, seeds_max), (pots_min, pots_max))
    compiled = family_classes._native_classes(family, None)
    assert compiled is not None
    reference = _reference(family, monkeypatch)
    assert len(compiled) == len(reference)
    for mine, theirs in zip(compiled, reference):
        assert mine == theirs  # state, key, raw, raw_mirrored and both representatives
    assert sum(c.raw_total for c in compiled) == family_classes.raw_count(family)


def test_sowing_full_pots_are_classes_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A family whose rows hold full pots (counts normalised to FULL) still matches, and has them."""
    if not _compiled("sowing"):
        pytest.skip("no compiled core")
    from ruma.engine.rulesets.notation import FULL

    family = Family.of("sowing", (0, 12), (1, 3))
    compiled = enumerate_family(family)
    assert any(FULL in c.state for c in compiled)
    assert compiled == _reference(family, monkeypatch)


@pytest.mark.parametrize("walk", [enumerate_family, family_classes.enumerate_states])
def test_the_compiled_walk_can_be_cancelled(walk: Any) -> None:
    if not _compiled("impartial-sowing"):
        pytest.skip("no compiled core")
    polls: list[int] = []

    def cancel() -> bool:
        polls.append(1)
        return len(polls) >= 2

    with pytest.raises(CancelledError, match="cancelled"):
        walk(Family.of("impartial-sowing", (0, 11), (1, 11)), cancel)
    assert len(polls) == 2


@pytest.mark.parametrize("ruleset", row_rulesets())
def test_compiled_cells_equal_the_python_grouping(ruleset: str) -> None:
    """``Rules.cells`` (C) against ``Ruleset.sweep_cell_of`` (Python): the same cells with
    the same states in the same order, cells in order of first appearance; a state the C code
    does not take sends the whole grouping back to Python (``None``)."""
    from ruma.engine.families import order as sweep_order

    if not _compiled(ruleset):
        pytest.skip("no compiled core")
    native = type(get_ruleset(ruleset)).native
    rules = get_ruleset(ruleset)
    states = [c.state for c in enumerate_family(Family.of(ruleset, (0, 10), (1, 10)))]
    states += [(), (0,), (7,), (3, 4), (2, 0, 0, 5), (1, 0, 0, 0, 1), (0, 0, 3, 0), (10**12, 1)]
    grouped = native.cells(states)
    cell_of = rules.sweep_cell_of()
    expected: dict[object, list[tuple[int, ...]]] = {}
    for state in states:
        expected.setdefault(cell_of(state), []).append(state)
    assert grouped == expected and list(grouped) == list(expected)
    assert all(sweep_order.cell(rules, s) == c for c, members in grouped.items() for s in members[:2])
    assert native.cells([(1, 2), (1, -1)]) is None
    assert native.cells([(True, 2)]) is None


@pytest.mark.parametrize("ruleset", UNBOUNDED_ROWS)
@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("seeds_min, seeds_max, pots_min, pots_max", FAMILIES[:3] + FAMILIES[-1:])
def test_the_parts_of_a_walk_cover_the_family_once(ruleset: str, parts: int, seeds_min: int, seeds_max: int,
                                                   pots_min: int, pots_max: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    if not _compiled(ruleset):
        pytest.skip("no compiled core (RUMA_ENGINE=python or not built): parts are the compiled walk's")
    family = Family.of(ruleset, (seeds_min, seeds_max), (pots_min, pots_max))
    reference = _reference(family, monkeypatch)
    position = {c.key: i for i, c in enumerate(reference)}
    found = [family_classes.enumerate_states(family, None, part, parts) for part in range(parts)]
    assert sum(raw for _, _, raw in found) == family_classes.raw_count(family)  # every raw row in one part
    assert set().union(*(keys for _, keys, _ in found)) == set(position)  # every class in some part
    state_of = {c.key: c.state for c in reference}
    for states, keys, _ in found:  # each part in the family's order, with the classes' states
        assert [position[k] for k in keys] == sorted(position[k] for k in keys)
        assert states == [state_of[k] for k in keys]
    whole = family_classes.enumerate_states(family)
    assert whole == ([c.state for c in reference], [c.key for c in reference], family_classes.raw_count(family))


@pytest.mark.parametrize("ruleset", UNBOUNDED_ROWS)
@pytest.mark.parametrize("seeds_min, seeds_max, pots_min, pots_max", FAMILIES[:3] + FAMILIES[-1:] + [(250, 300, 1, 2)])
def test_packed_class_rows_give_the_walks_states_and_keys(ruleset: str, seeds_min: int, seeds_max: int,
                                                          pots_min: int, pots_max: int) -> None:
    """``enumerate_rows`` (a part packed in two bytes objects, pots of 255 or more in nine bytes)
    gives, a block at a time and after ``keep``, exactly ``enumerate_states``' states and keys."""
    if not _compiled(ruleset):
        pytest.skip("no compiled core")
    family = Family.of(ruleset, (seeds_min, seeds_max), (pots_min, pots_max))
    for part in range(2):
        states, keys, raw = family_classes.enumerate_states(family, None, part, 2)
        rows = family_classes.enumerate_rows(family, None, part, 2)
        assert rows is not None and len(rows) == len(states) and rows.raw == raw
        blocks = [rows.block(first, 97) for first in range(0, len(rows), 97)]
        assert [s for b in blocks for s in b[0]] == states and [k for b in blocks for k in b[1]] == keys
        assert [k for first in range(0, len(rows), 97) for k in rows.keys(first, 97)] == keys
        mask = [i % 3 != 1 for i in range(len(states))]
        rows.keep(mask)
        kept = rows.block(0, len(rows))
        assert kept == ([s for s, m in zip(states, mask) if m], [k for k, m in zip(keys, mask) if m])
    if seeds_max >= 255:
        assert any(max(s, default=0) >= 255 for s in states)  # (the nine-byte pots were met)
    with pytest.raises(IndexError, match="class_block: class"):
        rows.native.class_block(rows.rows, rows.ends, [len(rows.ends) // 8])


@pytest.mark.parametrize("method", ["classes", "class_states"])
def test_a_part_or_a_family_out_of_range_is_refused(method: str) -> None:
    if not _compiled("impartial-sowing"):
        pytest.skip("no compiled core")
    walk = getattr(type(get_ruleset("impartial-sowing")).native, method)
    with pytest.raises(ValueError, match="part 2 of 2 parts"):
        walk(0, 3, 1, 3, None, 2, 2)
    with pytest.raises(ValueError, match="bad family ranges seeds 3..2"):
        walk(3, 2, 1, 3, None)


def test_the_compiled_states_are_left_to_no_garbage_collection() -> None:
    # tuples of ints are never in a cycle: the compiled core untracks the states it makes, so that
    # the cyclic collector does not walk a whole family's of them (pots_to_tuple in module.c)
    import gc

    if not _compiled("impartial-sowing"):
        pytest.skip("no compiled core")
    native = type(get_ruleset("impartial-sowing")).native
    found = native.class_states(0, 6, 1, 6, None)
    assert found is not None and found[0]
    assert not any(map(gc.is_tracked, found[0]))
    assert not any(gc.is_tracked(state) for state, _ in native.decompose((2, 0, 0, 3, 1)))
    assert not gc.is_tracked(native.left_options((2, 1, 3))[0])
