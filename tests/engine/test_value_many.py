"""``evaluator.value_many`` (one search for many states, as sweeps value shards) against a loop of
``evaluate`` calls, and the bulk paths of the sweep's ``RecordingMemo``."""

from __future__ import annotations

import random

import pytest

from ruma.engine.evaluator import evaluate, value_many
from ruma.engine.families.packets import RecordingMemo
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset, row_rulesets

RULESETS = row_rulesets()


def _rows(rng: random.Random, count: int) -> list[tuple[int, ...]]:
    """Short random rows, some with empty pots inside (several components in Atomic Wari)."""
    return [tuple(rng.choice((0, 0, 1, 1, 2, 3, 4)) for _ in range(rng.randint(1, 7))) for _ in range(count)]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_value_many_stores_what_a_loop_of_evaluate_stores(ruleset: str) -> None:
    rules = get_ruleset(ruleset)
    rows = _rows(random.Random(ruleset), 120)
    one_by_one, together = InMemoryMemo(), InMemoryMemo()
    computed = sum(evaluate(rules, row, one_by_one).stats.positions_valued for row in rows)
    assert value_many(rules, rows, together) == computed
    assert together.entries == one_by_one.entries
    for row in rows:  # and every state's own entry holds its value
        canonical, mirrored = rules.normalise(row)
        stored = together.entries[rules.key(canonical)]
        value = evaluate(rules, row, InMemoryMemo()).value
        assert (-stored if mirrored and not rules.impartial else stored) == value


def test_value_many_on_the_pure_python_engine_matches_the_compiled_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference search takes the same path (``ruma.engine.search.Search`` has no compiled fast path)."""
    from ruma.engine import evaluator
    from ruma.engine.search import Search

    rules = get_ruleset("sowing")
    rows = _rows(random.Random(7), 60)
    compiled = InMemoryMemo()
    value_many(rules, rows, compiled)
    reference = InMemoryMemo()
    monkeypatch.setattr(evaluator, "_new_search",
                        lambda r, memo, p, c, m: Search(getattr(r, "reference", r), memo, p, c, m))
    value_many(rules, rows, reference)
    assert reference.entries == compiled.entries


def test_recording_memo_bulk_paths_record_only_what_is_new_and_read_through() -> None:
    backing = {b"a": 1, b"b": 2}
    asked: list[list[bytes]] = []

    def many(keys: list[bytes]) -> list[int | None]:
        asked.append(list(keys))
        return [backing.get(k) for k in keys]

    memo = RecordingMemo(backing.get, many)
    memo.learn([(b"c", 3)])
    assert memo.lookup_many([b"a", b"c", b"z", b"b"]) == [1, 3, None, 2]
    assert asked == [[b"a", b"z", b"b"]]  # one call for every key not known here
    assert memo.lookup_many([b"a"]) == [1] and len(asked) == 1  # read-through hits are cached
    memo.insert_many([(b"c", 9), (b"d", 4), (b"e", 5)])  # c is known: not recorded, not changed
    assert memo.take() == [(b"d", 4), (b"e", 5)] and memo.lookup(b"c") == 3
    alone = RecordingMemo()
    assert alone.lookup_many([b"a"]) == [None]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_recording_memo_read_and_written_by_the_compiled_search_records_what_the_methods_would(
        ruleset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no fallback, the compiled search reads a ``RecordingMemo``'s dict and records its new
    entries itself (``RecordingMemo.direct_entries``): the memo must end as its Python methods would
    leave it — every value computed, the learned ones kept and not recorded, ``take`` handing over
    the new ones once (and ``new`` staying the list the search appends to)."""
    probe = RecordingMemo()
    assert probe.direct_entries() == (probe.entries, probe.new)
    assert RecordingMemo(probe.lookup).direct_entries() is None  # a fallback: called
    rules = get_ruleset(ruleset)
    rows = _rows(random.Random(ruleset + "record"), 80)
    learned = InMemoryMemo()
    value_many(rules, rows[:20], learned)  # values "from elsewhere", learned before the search
    results = []
    for direct in (True, False):
        memo = RecordingMemo()
        memo.learn(learned.entries.items())
        if not direct:  # the reference: the search calls the memo's methods
            monkeypatch.setattr(RecordingMemo, "direct_entries", lambda memo: None)
        new_list = memo.new
        value_many(rules, rows, memo)
        taken = memo.take()
        assert memo.new is new_list and memo.take() == []
        assert not set(dict(taken)) & set(learned.entries)  # learned entries are never recorded
        assert all(memo.entries[k] == v for k, v in learned.entries.items())
        results.append((dict(memo.entries), sorted(taken)))
        monkeypatch.undo()
    assert results[0] == results[1]
    reference = InMemoryMemo()
    value_many(rules, rows, reference)
    assert results[0][0] == reference.entries


def _without_the_loop_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled search without ``value_states``: ``value_many`` runs its Python loop (the
    reference for ``search_batch.c``), each component still valued by the compiled search."""
    from ruma.engine.native import search as native_search

    monkeypatch.delattr(native_search.NativeSearch, "value_states")


#: states the compiled search does not take (counts past its range, not a tuple, not exact ints);
#: the reference values them (Atomic Wari's reference cannot list the options of 10**13 seeds)
ODD_STATES: dict[str, list[object]] = {
    "sowing": [(2, 10**13, 1, 0, 0, 3, 1), [3, 1, 2], (True, 2, 1), (2, 2**70)],
    "atomic-wari": [[3, 1, 2], (True, 2, 1), [2, 0, 0, 2], (1, False, 3)],
}
ODD_STATES["impartial-sowing"] = ODD_STATES["sowing"]
ODD_STATES["impartial-atomic-wari"] = ODD_STATES["atomic-wari-board"] = ODD_STATES["atomic-wari"]


def test_the_odd_states_cover_every_row_ruleset() -> None:
    assert set(RULESETS) <= set(ODD_STATES)


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("memo_kind", ["in-memory", "recording", "recording with fallback"])
def test_the_loop_in_c_stores_and_counts_what_the_python_loop_does(ruleset: str, memo_kind: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_batch.c`` against ``value_many``'s Python loop: the same entries (each state's own
    one included: a xor of nim values, or a sum of Games negated as the orientation asks), the
    same new entries recorded, the same count of positions valued — over rows with several
    components, rows that are not canonical, and, among them, states the compiled search does
    not take (the reference values those, and the loop in C goes on after them)."""
    from ruma.engine.native import search as native_search

    rules = get_ruleset(ruleset)
    if not hasattr(native_search.NativeSearch, "value_states") or getattr(type(rules), "native", None) is None:
        pytest.skip("no compiled core (RUMA_ENGINE=python): the Python loop is the only one")
    rng = random.Random(ruleset + memo_kind)
    # (partizan Atomic Wari's canonical forms of 20 seeds and more take seconds to build)
    small = [row for row in _rows(rng, 600) if rules.impartial or sum(row) <= 15]
    many = 300
    rows: list[object] = [*small[:many]]
    rows += [row[::-1] for row in small[many:many + many // 5]]  # mirror images: not canonical
    for at, odd in zip((17, many // 2, many // 2 + 1, many - 1), ODD_STATES[ruleset]):
        rows.insert(at, odd)
    backing = InMemoryMemo()
    value_many(rules, _rows(random.Random(5), 40), backing)  # what a fallback store holds

    def make() -> InMemoryMemo | RecordingMemo:
        if memo_kind == "in-memory":
            return InMemoryMemo()
        return RecordingMemo(backing.lookup) if memo_kind.endswith("fallback") else RecordingMemo()

    results = []
    for in_c in (True, False):
        if not in_c:
            _without_the_loop_in_c(monkeypatch)
        memo = make()
        computed = value_many(rules, rows, memo)
        new = sorted(memo.take()) if isinstance(memo, RecordingMemo) else None
        results.append((computed, dict(memo.entries), new))
        monkeypatch.undo()
    assert results[0] == results[1]
    assert results[0][0] > 0 and len(results[0][1]) > len(rows) // 2


def test_the_loop_in_c_raises_what_the_python_loop_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """A state Sowing's rules refuse (a negative count; Atomic Wari's take one) stops both loops
    with the same error, after the same values reached the memo."""
    rules = get_ruleset("impartial-sowing")
    rows: list[object] = [*_rows(random.Random(3), 20), (2, -1, 3), (1, 2)]
    outcomes = []
    for in_c in (True, False):
        if not in_c:
            _without_the_loop_in_c(monkeypatch)
        memo = InMemoryMemo()
        with pytest.raises(ValueError) as caught:
            value_many(rules, rows, memo)
        outcomes.append((str(caught.value), dict(memo.entries)))
        monkeypatch.undo()
    assert outcomes[0] == outcomes[1] and outcomes[0][1]


@pytest.mark.parametrize("ruleset", ["impartial-sowing", "impartial-atomic-wari", "sowing"])
def test_a_cancelled_loop_names_the_state_it_was_valuing(ruleset: str) -> None:
    """A cancelled ``value_many`` is a ``CancelledError`` naming the state it was valuing, after
    the values found before it reached the memo."""
    from ruma.engine.errors import CancelledError

    rules = get_ruleset(ruleset)
    big = (4,) * 9 + (3,) * 9  # enough positions for the search to poll should_cancel
    polls: list[int] = []
    memo = InMemoryMemo()
    with pytest.raises(CancelledError, match=r"4, ?4|444"):
        value_many(rules, [(1, 1), big], memo, should_cancel=lambda: bool(polls.append(1)) or len(polls) > 1)
    assert memo.entries  # (1, 1) and what the search found before it stopped
