"""The LMDB store's byte encodings (``ruma.server.store.codec``): round trips and orderings."""

from __future__ import annotations

from typing import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ruma.engine.rulesets.base import Ruleset, State
from ruma.server.store import codec


class _Plain(Ruleset):
    """A ruleset that keeps the base key encoding (moves are irrelevant here)."""

    name = "plain-test"
    code = 250
    version = 3
    impartial = True

    def parse(self, text: str) -> State:
        return tuple(int(p) for p in text.split(","))

    def format(self, state: State) -> str:
        return ",".join(map(str, state))

    def left_options(self, state: State) -> Iterable[State]:
        return ()

    def right_options(self, state: State) -> Iterable[State]:
        return ()


@given(st.integers(min_value=0, max_value=2**70))
def test_varint_round_trip(n: int) -> None:
    data = b"\x07" + codec.encode_varint(n) + b"\x09"
    assert codec.decode_varint(data, 1) == (n, len(data) - 1)


def test_varint_sizes_and_errors() -> None:
    assert codec.encode_varint(0) == b"\x00"
    assert codec.encode_varint(127) == b"\x7f"
    assert codec.encode_varint(128) == b"\x80\x01"  # LEB128: low 7 bits first
    with pytest.raises(codec.CodecError):
        codec.encode_varint(-1)
    with pytest.raises(codec.CodecError):
        codec.decode_varint(b"\x80\x80")


@given(st.lists(st.integers(0, 10**6), max_size=20), st.lists(st.integers(0, 10**6), max_size=20),
       st.randoms())
def test_options_are_canonical_and_round_trip(left: list[int], right: list[int], rnd: object) -> None:
    shuffled_left, shuffled_right = list(left), list(right)
    rnd.shuffle(shuffled_left)  # type: ignore[attr-defined]
    rnd.shuffle(shuffled_right)  # type: ignore[attr-defined]
    encoded = codec.encode_options(left, right)
    assert codec.encode_options(shuffled_left, shuffled_right) == encoded
    assert codec.decode_options(encoded) == (sorted(left), sorted(right))
    # Left and Right are not interchangeable
    if sorted(left) != sorted(right):
        assert codec.encode_options(right, left) != encoded


def test_index_key_hashes_long_option_lists() -> None:
    short = codec.encode_options([1, 2], [3])
    assert codec.index_key(short, 511) == short
    long = codec.encode_options(list(range(100000, 100300)), [])
    hashed = codec.index_key(long, 511)
    assert len(hashed) == 33 and hashed[0] == 0xFF
    assert codec.index_key(codec.encode_options(list(range(100001, 100301)), []), 511) != hashed


@given(st.booleans(), st.integers(0, 2**40), st.integers(0, 2**40))
def test_entry_round_trip(is_game: bool, number: int, explored: int) -> None:
    assert codec.decode_entry(codec.encode_entry(is_game, number, explored)) == (is_game, number, explored)


def test_entry_rejects_trailing_bytes() -> None:
    with pytest.raises(codec.CodecError):
        codec.decode_entry(codec.encode_entry(True, 5, 1) + b"\x00")


@given(st.lists(st.integers(0, 400), max_size=30))
def test_state_key_decodes_base_ruleset_keys(state: list[int]) -> None:
    rules = _Plain()
    key = rules.key(tuple(state))
    assert codec.decode_state_key(key) == (250, 3, tuple(state))


def test_state_key_decodes_negative_entries() -> None:
    key = _Plain().key((3, -1, 0))
    assert key[2] == 1
    assert codec.decode_state_key(key) == (250, 3, (3, -1, 0))
    with pytest.raises(codec.CodecError):
        codec.decode_state_key(b"\x01\x01\x07abc")


def test_complexity_orders_simplest_first() -> None:
    rules = _Plain()
    states = [(5, 0, 0), (1, 1), (2,), (1, 0, 1), (0, 0, 0, 0, 1), (300, 1)]
    keys = sorted(rules.key(s) for s in states)
    decoded = [codec.decode_state_key(k)[2] for k in sorted(keys, key=lambda k: codec.complexity(k) + k)]
    # fewest seeds first; equal seeds: the shorter key first
    assert decoded == [(0, 0, 0, 0, 1), (2,), (1, 1), (1, 0, 1), (5, 0, 0), (300, 1)]
