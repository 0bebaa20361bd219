"""Canonical forms as bytes (``ruma.engine.cgt.game_bytes``; compiled: engine/native/game_bytes.c).

The compiled packer and unpacker against the Python reference (byte for byte, on the same
kernel's ids), across the two kernels (packed by one, read by the other: the same canonical
forms), and the checks on arrival: every damaged or forged packet is refused with a clear
``ValueError``, including a node that is not in canonical form.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

import pytest

from ruma.engine.cgt import Game
from ruma.engine.cgt import kernel as reference
from ruma.engine.cgt.game_bytes import pack_games, pack_reference, unpack_games, unpack_reference
from ruma.engine.cgt.notation import format_game
from ruma.engine.evaluator import evaluate
from ruma.engine.families.packets import pack_wire, unpack_wire
from ruma.engine.native import core

pytestmark = pytest.mark.both_engines


_core = core()
if _core is None:
    pytest.fail("the compiled engine is not built: reinstall with a C compiler present", pytrace=False)
COMPILED: Any = _core.kernel
if reference.count() == 0:  # the compiled engine is active: the reference's tables are unused so far
    reference.set_factory(lambda i: i)
    reference.nus_id(0, 0, 0)


def compiled_options(i: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return COMPILED.left_ids(i), COMPILED.right_ids(i)


def reference_options(i: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return reference.left_ids(i), reference.right_ids(i)


def shape(options: Any, i: int, memo: dict[int, Any]) -> Any:
    """A game's canonical tree as nested sorted tuples (equal shapes, equal canonical forms)."""
    if i not in memo:
        lefts, rights = options(i)
        memo[i] = (tuple(sorted(shape(options, o, memo) for o in lefts)),
                   tuple(sorted(shape(options, o, memo) for o in rights)))
    return memo[i]


def random_ids(kernel: Any, seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    pool = [kernel.nus_id(0, 0, 0), kernel.nus_id(1, 0, 0), kernel.nus_id(-1, 0, 0), kernel.nus_id(0, 0, 1),
            kernel.nus_id(0, 1, 0)]
    for _ in range(count):
        pool.append(kernel.canon(rng.sample(pool, rng.randint(0, 3)), rng.sample(pool, rng.randint(0, 3))))
        if rng.random() < 0.2:
            pool.append(kernel.add(rng.choice(pool), rng.choice(pool)))
    return pool


def test_the_compiled_packer_writes_the_reference_bytes_and_reads_them_back() -> None:
    ids = random_ids(COMPILED, 5, 600)
    for picked in (ids, ids[::-7], ids[-40:], [ids[3]] * 3, []):
        data, at = COMPILED.pack_nodes(picked)
        assert (data, at) == pack_reference(picked, compiled_options)
        nodes = COMPILED.unpack_nodes(data)
        assert [nodes[a] for a in at] == picked  # the same canonical forms: the same ids
        assert unpack_reference(data, COMPILED.canon, compiled_options) == nodes


def test_games_cross_from_one_kernel_to_the_other() -> None:
    ids = random_ids(reference, 11, 400)
    data, at = pack_reference(ids, reference_options)
    nodes = COMPILED.unpack_nodes(data)
    ours, theirs = {}, {}
    assert [shape(compiled_options, nodes[a], ours) for a in at] == [shape(reference_options, i, theirs) for i in ids]
    back, at_back = COMPILED.pack_nodes([nodes[a] for a in at])
    assert [unpack_reference(back, reference.canon, reference_options)[a] for a in at_back] == ids


def refused(data: bytes, why: str) -> None:
    for unpack in (COMPILED.unpack_nodes, lambda d: unpack_reference(d, COMPILED.canon, compiled_options)):
        with pytest.raises(ValueError, match=f"a packet of games is refused: {why}"):
            unpack(data)


def sealed(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "little")


def test_damaged_and_forged_packets_are_refused() -> None:
    value = evaluate("sowing", "1^11").value
    data, _ = pack_games([value.id])  # (the ids of the kernel Game runs on)
    refused(b"RGN2" + data[4:], "not a packet of games")
    refused(data[:20], "its checksum does not match")
    for at in (4, 9, len(data) // 2, len(data) - 5):  # a flipped bit anywhere
        refused(data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:], "its checksum does not match")
    refused(sealed(data[:-4] + b"\x00"), "bytes after the last node")
    # nodes 0 = {|}, 1 = {0|} = 1, then forged ones
    base = b"RGN1\x03\x00\x00\x01\x00\x01"
    refused(sealed(base + b"\x02\x00\x01\x02"), "a node not in canonical form")  # {1, 0 |}: 0 is dominated
    refused(sealed(base + b"\x02\x00\x01\x01"), "an option listed twice")  # {1, 1 |}
    refused(sealed(base + b"\x01\x00\x03"), "an option that is not an earlier node")
    refused(sealed(base + b"\x01\x00\x00"), "an option that is not an earlier node")  # itself
    refused(sealed(b"RGN1\x05\x00\x00"), "a bad option count")  # (five nodes announced, one there)
    refused(sealed(b"RGN1\x01\x7f\x00"), "a bad option count")
    assert [COMPILED.left_ids(i) for i in COMPILED.unpack_nodes(sealed(base + b"\x01\x00\x01"))] == [
        (), (0,), (COMPILED.nus_id(1, 0, 0),)]  # {1|} = 2, accepted


def test_a_packet_of_values_round_trips() -> None:
    values = [evaluate("sowing", p).value for p in ("1^11", "2^6", "31202")] + [Game("^*"), Game("{2|-1}")]
    entries = [(bytes([1, 1, i]), v) for i, v in enumerate(values)] + [(b"\x01\x01\x09", values[0])]
    packet = pack_wire(entries)
    assert isinstance(packet[2], bytes) and len(packet[2]) < 2000
    assert unpack_wire(packet, False) == entries
    assert unpack_wire(pack_wire([(b"\x02\x01\x01", 3)]), True) == [(b"\x02\x01\x01", 3)]
    with pytest.raises(ValueError, match="not a game node"):
        unpack_wire((packet[0], [999] * len(packet[1]), packet[2]), False)
    assert [format_game(v) for _, v in unpack_wire(packet, False)] == [format_game(v) for _, v in entries]
    data, at = pack_games([v.id for v in values])
    assert [unpack_games(data)[a] for a in at] == [v.id for v in values]
