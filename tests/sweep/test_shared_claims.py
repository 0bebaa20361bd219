"""Claims in a sweep's shared table (``engine/native/shared.c``, ``search_shared.c``): a search
claims each component it descends into, so that another worker searches something else meanwhile
instead of the same subtree.

Expected values come from the pure-Python reference engine (``rules.reference``): a claim changes
which process searches a position and when, never a value.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path
from typing import Any

import pytest

from ruma.engine.errors import CancelledError
from ruma.engine.evaluator import evaluate, value_many
from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.families.packets import RecordingMemo
from ruma.engine.memo import InMemoryMemo
from ruma.engine.rulesets import get_ruleset

pytest.importorskip("ruma.engine.native._core")
if os.environ.get("RUMA_ENGINE") == "python":
    pytest.skip("the shared table is read and written by the compiled search only", allow_module_level=True)

from ruma.client.sweep.driver import sweep_store  # noqa: E402
from ruma.client.sweep.shared_memory import table_layout  # noqa: E402
from ruma.engine.native import _core  # noqa: E402

CODE, VERSION = 9, 1  # a prefix of no ruleset, for the table's own tests


@pytest.fixture(params=["general", "packed"])
def part(request: pytest.FixtureRequest) -> str:
    """Which part of the table the test's keys go to (shared.c): general records, or packed slots."""
    return str(request.param)


def key(body: bytes, part: str = "general") -> bytes:
    """A key of ``body``; for the packed part 0x00 and then ``body`` (bytes below 15, the first
    nonzero: what table_pack packs)."""
    return bytes((CODE, VERSION)) + (b"\x00" + body if part == "packed" else body)


def views(code: int = CODE, version: int = VERSION, entries: int = 1000, part: str = "general") -> tuple[Any, Any]:
    """Two SharedValues objects on one fresh table, as two worker processes would hold."""
    layout = table_layout(entries, 40, 1.0 if part == "packed" else 0.0)
    buffer = mmap.mmap(-1, layout.size)
    return (_core.SharedValues(buffer, code, version, layout.slots, layout.packed),
            _core.SharedValues(buffer, code, version))


def test_a_claim_holds_its_key_and_the_drain_until_it_is_settled(part: str) -> None:
    mine, other = views(part=part)
    state, handle = mine.claim_key(key(b"\x03\x01", part))
    assert state == "mine"
    assert other.claim_key(key(b"\x03\x01", part)) == ("theirs", None) == mine.claim_key(key(b"\x03\x01", part))
    assert other.get(key(b"\x03\x01", part)) is None and not other.add(key(b"\x03\x01", part), 9)  # (the claimant's value wins)
    assert mine.add(key(b"\x01", part), 5)  # published after the claim, in the same chunk
    mine.seal()
    assert mine.drain(0)[0] == []  # (stops at the claim: its value is still to come)
    mine.settle(handle, 2)
    assert other.get(key(b"\x03\x01", part)) == 2 and other.claim_key(key(b"\x03\x01", part)) == ("known", 2)
    entries, at = other.drain(0)
    assert entries == [(key(b"\x01", part), 5), (key(b"\x03\x01", part), 2)] and other.drain(at) == ([], at)
    with pytest.raises(ValueError, match=f"{handle} is not the handle of a claim still open"):
        mine.settle(handle, 2)


def test_an_abandoned_claim_stands_for_no_key(part: str) -> None:
    mine, other = views(part=part)
    _, handle = mine.claim_key(key(b"\x04", part))
    mine.abandon(handle)
    assert other.get(key(b"\x04", part)) is None
    state, again = other.claim_key(key(b"\x04", part))  # (claimed afresh, in a record of its own)
    assert state == "mine" and again != handle
    other.settle(again, 1)
    assert mine.get(key(b"\x04", part)) == 1 and not mine.add(key(b"\x04", part), 7)
    mine.seal()
    other.seal()
    assert mine.drain(0)[0] == [(key(b"\x04", part), 1)]  # once, the abandoned record skipped
    assert len(mine) == 2  # (the abandoned record keeps its slot)


@pytest.mark.parametrize("handle", [-1, 10**30, 3, "0"])
def test_a_handle_of_no_open_claim_is_refused_quoting_it(handle: Any, part: str) -> None:
    mine, _ = views(part=part)
    mine.add(key(b"\x05", part), 1)
    with pytest.raises(ValueError, match="is not the handle of a claim still open"):
        mine.settle(handle, 1)
    with pytest.raises(ValueError, match="is not the handle of a claim still open"):
        mine.abandon(handle)
    _, open_claim = mine.claim_key(key(b"\x06", part))
    with pytest.raises(ValueError, match="a nim value in 0.."):
        mine.settle(open_claim, -1)


def _reference(ruleset: str, keys: list[bytes], states: dict[bytes, Any]) -> dict[bytes, int]:
    rules = get_ruleset(ruleset)
    memo = InMemoryMemo()
    return {k: evaluate(rules.reference, states[k], memo).value for k in keys}


def test_a_search_meeting_another_process_s_claim_values_right_and_leaves_the_claim_alone(part: str) -> None:
    rules = get_ruleset("impartial-sowing")
    native = type(rules).native
    root = (3, 2, 2, 1, 2)
    first, _ = views(native.code, native.version, 20_000, part)
    memo = RecordingMemo()
    memo.shared = first
    value_many(rules, [root], memo)
    valued = dict(memo.entries)
    root_key = rules.key(rules.normalise(root)[0])
    claimed = max((k for k in valued if k != root_key), key=len)  # a component with a subtree of its own
    search_view, claimant = views(native.code, native.version, 20_000, part)
    state, handle = claimant.claim_key(claimed)
    assert state == "mine"
    memo = RecordingMemo()
    memo.shared = search_view
    value_many(rules, [root], memo)  # (the others first, then the claimed component itself)
    assert memo.entries[root_key] == valued[root_key] and memo.entries[claimed] == valued[claimed]
    states = {root_key: root, claimed: tuple(claimed[3:])}  # (a key of small counts: tag 0, a byte a pot)
    assert claimed[2] == 0 and _reference("impartial-sowing", [root_key, claimed], states) == {
        root_key: valued[root_key], claimed: valued[claimed]}
    search_view.seal()
    claimant.seal()
    assert claimed not in dict(search_view.drain(0)[0])  # the claimant's to publish
    claimant.settle(handle, valued[claimed])
    drained = dict(search_view.drain(0)[0])
    assert drained == valued  # every key once, the claimed one with the claimant's value


def test_an_interrupted_search_gives_its_claims_up(part: str) -> None:
    rules = get_ruleset("impartial-sowing")
    native = type(rules).native
    classes = enumerate_family(Family.of("impartial-sowing", (0, 11), (1, 11)))
    table, other = views(native.code, native.version, 400_000, part)
    memo = RecordingMemo()
    memo.shared = table
    polls: list[int] = []
    with pytest.raises(CancelledError):  # (polled every few thousand expansions: mid-search)
        value_many(rules, [c.state for c in classes], memo, should_cancel=lambda: bool(polls.append(1)) or len(polls) > 3)
    table.seal()
    entries, at = other.drain(0)
    assert at == other.stats()["words_used"] > 0  # no claim left open to hold the drain back
    by_key = {c.key: c.state for c in classes}
    published = dict(entries)
    checked = [k for k in published if k in by_key][:200]
    assert checked and {k: published[k] for k in checked} == _reference("impartial-sowing", checked, by_key)
    assert all(other.claim_key(k)[0] == "known" for k in published)  # every key drained is published, none claimed


def test_two_workers_value_each_position_about_once(tmp_path: Path) -> None:
    family = Family.of("impartial-sowing", (0, 11))
    one = sweep_store(family, str(tmp_path / "one"), workers=1)
    two = sweep_store(family, str(tmp_path / "two"), workers=2)
    assert two.backend == "processes" and two.positions_valued >= one.positions_valued > 150_000
    # Without claims two workers valued 11-24 % more positions than one here (both searched the
    # subtrees at their common frontier); with them, a worker searches a component another has
    # claimed only when every component its frame still needs is claimed: 1.2-2.0 % more here
    # (twelve runs each with packed and with general keys; 0.5 % at 12 seeds), 2.03 % seen once.
    assert two.positions_valued <= 1.03 * one.positions_valued
