"""Decoding stored position keys back to (ruleset, state), checked by re-encoding.

Used by ``ruma store verify`` (to re-evaluate stored positions) and by the catalog's search of
stored positions by value (to print them).
"""

from __future__ import annotations

from typing import Callable

from ruma.engine.rulesets import Ruleset, ruleset_by_code
from ruma.engine.rulesets.base import State
from ruma.server.store import codec


def _sowing_state(key: bytes) -> State:
    """Sowing's key (``SowingRuleset.key``): the base encoding with a full pot as 255 / ``F``."""
    from ruma.engine.rulesets.notation import FULL

    if key[2] == 0:
        return tuple(FULL if v == 255 else v for v in key[3:])
    if key[2] == 1:
        text = bytes(key[3:]).decode("ascii")
        return tuple(FULL if part == "F" else int(part) for part in text.split(",")) if text else ()
    raise codec.CodecError(f"sowing key {key!r} has an unknown tag {key[2]}")


#: decoders of rulesets that override ``Ruleset.key`` without offering ``state_from_key``
_KEY_DECODERS: dict[str, Callable[[bytes], State]] = {
    "sowing": _sowing_state,
    "impartial-sowing": _sowing_state,
}


def state_of_key(key: bytes) -> tuple[Ruleset, State]:
    """The ruleset and normalised state a stored key was made from; raises ``CodecError``.

    Uses the ruleset's ``state_from_key(key)`` if it has one, else the base key encoding
    (``Ruleset.key``) or a known override; every decoding is checked by re-encoding it.
    """
    ruleset = ruleset_by_code(key[0]) if len(key) >= 3 else None
    if ruleset is None:
        raise codec.CodecError(f"no installed ruleset has the code of key {key!r}")
    if ruleset.version != key[1]:
        raise codec.CodecError(f"key {key!r} is of {ruleset.name} version {key[1]}, installed is {ruleset.version}")
    decoder = getattr(ruleset, "state_from_key", None) or _KEY_DECODERS.get(ruleset.name)
    reference: Ruleset = getattr(ruleset, "reference", ruleset)  # compiled rulesets: their Python reference
    try:
        if decoder is not None:
            state = tuple(decoder(key))
        elif type(reference).key is Ruleset.key:
            state = codec.decode_state_key(key)[2]
        else:
            raise codec.CodecError(f"{ruleset.name} overrides key(); its keys cannot be decoded")
    except (ValueError, IndexError) as error:
        raise codec.CodecError(f"cannot decode key {key!r} of {ruleset.name}: {error}") from error
    if ruleset.key(state) != key:
        raise codec.CodecError(f"decoded state {state!r} does not re-encode to key {key!r} ({ruleset.name})")
    return ruleset, state
