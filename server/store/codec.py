"""Byte encodings of the LMDB store (``ruma.server.store.memo``), kept apart so they can be tested alone.

Everything is built from unsigned LEB128 *varints* (7 bits a byte, low groups first, high bit set
on every byte but the last), so small ids and nim values take one byte.

* **store game id** (key of ``games``): 8 bytes big-endian, so the last key is the largest id.
* **options** (value of ``games``, key of ``game_index``): ``varint(#left) varint(#right)`` then the
  store ids of the Left options, then of the Right options, each list *sorted*. A canonical game's
  option sets are unique, so equal games get equal bytes in every process. Option lists too long
  for an LMDB key are indexed by ``b"\\xff" + sha256(options)`` instead (``index_key``).
* **value** (in ``positions``): ``varint(n << 1)`` for the nim value ``n`` or
  ``varint(id << 1 | 1)`` for the game with store id ``id``; self-delimiting.
* **position entry** (value of ``positions``): ``value varint(explored)``.
* **complexity** of a key (what "simplest" means in searches by value): 4 bytes of total seeds
  then 2 bytes of key length (both big-endian), so byte order puts the simplest positions first.
* **records** (schema 2 on): every value of every table except ``meta``'s ``schema_version`` is
  *sealed*: ``payload crc32c(key payload)`` (4 bytes little-endian), so a flipped bit in a key or a
  value is found on read (``unseal`` raises ``CorruptRecordError``). CRC32C (Castagnoli) rather than a 64-bit hash:
  records are a few to a few hundred bytes, where a CRC of this polynomial *guarantees* to find
  every error of up to 5 flipped bits and every burst of up to 32 (a hash only makes a miss
  unlikely), 4 bytes cost half of 8, and ``google-crc32c`` computes it in hardware (SSE4.2/ARMv8).
"""

from __future__ import annotations

import hashlib
import importlib
from typing import Any, Sequence

import google_crc32c

from ruma.engine.errors import RumaError, RumaInputError
from ruma.engine.rulesets.base import PLUGIN_CODE, prefix_length

GAME_ID_BYTES = 8


class CodecError(ValueError):
    """Bytes that are not a valid encoding (a corrupted or foreign store)."""


class StoreError(RumaInputError):
    """A store directory that cannot be opened or used (missing, foreign schema, corrupted)."""


class StoreDamagedError(StoreError):
    """A store whose files fail the checks made on open (truncated, not LMDB, bad records)."""


class CorruptRecordError(RumaError):
    """A stored record whose checksum does not match: it is never served (gRPC ``DATA_LOSS``)."""

    def __init__(self, table: str, key: bytes, detail: str = "checksum mismatch") -> None:
        self.table, self.key, self.detail = table, bytes(key), detail
        super().__init__(f"damaged record in the store's {table} table (key {self.key.hex()[:80]}): {detail}; "
                         f"run 'ruma store verify --full' and 'ruma store repair'")


CRC_BYTES = 4


def _native() -> Any:
    """``ruma.server.store._native`` (store/native.c: the per-record byte work of bulk writes and
    game interning, tested byte for byte against this module) unless it is not built or
    ``RUMA_ENGINE=python``."""
    from ruma.engine.native import active_engine

    if active_engine() == "python":
        return None
    try:
        return importlib.import_module("ruma.server.store._native")
    except ImportError:
        return None


NATIVE = _native()


def checksum(key: bytes, payload: bytes) -> bytes:
    """The 4-byte seal of ``payload`` stored under ``key``: CRC32C of both, little-endian."""
    return google_crc32c.value(key + payload).to_bytes(CRC_BYTES, "little")  # type: ignore[no-any-return]


def seal(key: bytes, payload: bytes) -> bytes:
    """The record stored under ``key``: ``payload`` followed by its checksum."""
    return payload + google_crc32c.value(key + payload).to_bytes(CRC_BYTES, "little")  # type: ignore[no-any-return]


def unseal(table: str, key: bytes, record: bytes) -> bytes:
    """The payload of a sealed record; raises ``CorruptRecordError`` when the checksum fails."""
    payload = record[:-CRC_BYTES]
    if len(record) < CRC_BYTES or google_crc32c.value(key + payload).to_bytes(CRC_BYTES, "little") != record[-CRC_BYTES:]:
        raise CorruptRecordError(table, key)
    return payload


def encode_varint(n: int) -> bytes:
    """Unsigned LEB128 encoding of ``n`` (``n >= 0``)."""
    if n < 0x80:
        if n < 0:
            raise CodecError(f"cannot encode negative integer {n!r} as a varint")
        return bytes((n,))
    if n < 0x4000:  # two and three bytes spelled out: store ids of games are mostly this size
        return bytes((n & 0x7F | 0x80, n >> 7))
    if n < 0x200000:
        return bytes((n & 0x7F | 0x80, n >> 7 & 0x7F | 0x80, n >> 14))
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def decode_varint(data: bytes, pos: int = 0) -> tuple[int, int]:
    """Decode one varint of ``data`` at ``pos``; returns ``(value, next position)``."""
    result = 0
    shift = 0
    end = len(data)
    while True:
        if pos >= end:
            raise CodecError(f"truncated varint in {bytes(data)!r}")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def encode_game_id(store_id: int) -> bytes:
    """The ``games`` key of a store game id."""
    return store_id.to_bytes(GAME_ID_BYTES, "big")


def decode_game_id(data: bytes) -> int:
    """Inverse of ``encode_game_id``."""
    if len(data) != GAME_ID_BYTES:
        raise CodecError(f"a game id has {GAME_ID_BYTES} bytes, got {bytes(data)!r}")
    return int.from_bytes(data, "big")


def encode_options(left: Sequence[int], right: Sequence[int]) -> bytes:
    """Canonical bytes of a game's option sets given as store ids (order does not matter)."""
    parts = [encode_varint(len(left)), encode_varint(len(right))]
    parts.extend(encode_varint(i) for i in sorted(left))
    parts.extend(encode_varint(i) for i in sorted(right))
    return b"".join(parts)


def decode_options(data: bytes) -> tuple[list[int], list[int]]:
    """Inverse of ``encode_options``: ``(left store ids, right store ids)``."""
    n_left, pos = decode_varint(data, 0)
    n_right, pos = decode_varint(data, pos)
    ids = []
    for _ in range(n_left + n_right):
        i, pos = decode_varint(data, pos)
        ids.append(i)
    if pos != len(data):
        raise CodecError(f"trailing bytes after game options {bytes(data)!r}")
    return ids[:n_left], ids[n_left:]


def index_key(options: bytes, max_key_size: int) -> bytes:
    """The ``game_index`` key of encoded options: the options themselves, or a hash if too long."""
    if len(options) < max_key_size and not options.startswith(b"\xff"):
        return options
    return b"\xff" + hashlib.sha256(options).digest()


def encode_value(is_game: bool, number: int) -> bytes:
    """Encode a nim value (``is_game=False``) or a store game id (``is_game=True``)."""
    return encode_varint((number << 1) | int(is_game))


def decode_value(data: bytes, pos: int = 0) -> tuple[bool, int, int]:
    """Decode a value at ``pos``: ``(is_game, nim value or store id, next position)``."""
    raw, pos = decode_varint(data, pos)
    return bool(raw & 1), raw >> 1, pos


def encode_entry(is_game: bool, number: int, explored: int) -> bytes:
    """The ``positions`` value: the value then the explored count."""
    return encode_value(is_game, number) + encode_varint(max(0, explored))


def decode_entry(data: bytes) -> tuple[bool, int, int]:
    """Inverse of ``encode_entry``: ``(is_game, nim value or store id, explored)``."""
    is_game, number, pos = decode_value(data)
    explored, pos = decode_varint(data, pos)
    if pos != len(data):
        raise CodecError(f"trailing bytes after a position entry {bytes(data)!r}")
    return is_game, number, explored


def decode_state_key(key: bytes) -> tuple[int, int, tuple[int, ...]]:
    """``(code, version, state)`` from a key made by ``ruma.engine.rulesets.base.Ruleset.key``.

    The body is ``b"\\x00" + bytes(state)`` or ``b"\\x01"`` + the state as comma-separated text.
    A key of an installed ruleset (``PLUGIN_CODE``, whose version is hashed) is refused:
    ``store.keys.state_of_key`` reads it.
    """
    if len(key) < 3:
        raise CodecError(f"position key too short: {bytes(key)!r}")
    if key[0] == PLUGIN_CODE:
        raise CodecError(f"key {bytes(key)!r} is of an installed ruleset: its version is not in the key")
    code, version, tag = key[0], key[1], key[2]
    body = bytes(key[3:])
    if tag == 0:
        return code, version, tuple(body)
    if tag == 1:
        try:
            text = body.decode("ascii")
            state = tuple(int(part) for part in text.split(",")) if text else ()
        except ValueError as error:
            raise CodecError(f"bad comma-separated key body in {bytes(key)!r}") from error
        return code, version, state
    raise CodecError(f"position key {bytes(key)!r} has no base encoding (tag {tag})")


def complexity(key: bytes) -> bytes:
    """Sort prefix making simpler positions come first: total seeds, then key length."""
    seeds = 0
    at = prefix_length(key) if key else 0  # (the tag follows the ruleset's prefix)
    if len(key) > at and key[at] == 0:
        seeds = sum(key[at + 1:])
    elif len(key) > at and key[at] == 1:
        try:
            seeds = sum(abs(int(p)) for p in bytes(key[at + 1:]).decode("ascii").split(",") if p)
        except ValueError:
            seeds = 0xFFFFFFFF
    else:
        seeds = 0xFFFFFFFF
    return min(seeds, 0xFFFFFFFF).to_bytes(4, "big") + min(len(key), 0xFFFF).to_bytes(2, "big")
