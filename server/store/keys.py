"""Decoding stored position keys back to (ruleset, state), checked by re-encoding.

Used by ``ruma store verify`` (to re-evaluate stored positions) and by the catalog's search of
stored positions by value (to print them).
"""

from __future__ import annotations

from ruma.engine.rulesets import Ruleset, ruleset_by_code, ruleset_by_prefix
from ruma.engine.rulesets.base import PLUGIN_CODE, State, key_prefix_of, prefix_length
from ruma.server.store import codec


def state_of_key(key: bytes) -> tuple[Ruleset, State]:
    """The ruleset and normalised state a stored key was made from; raises ``CodecError``.

    The ruleset of the key's prefix decodes it (``Ruleset.state_from_key``): its code, or for an
    installed ruleset (``PLUGIN_CODE``) the hash of its name and version; every decoding is
    checked by encoding it again.
    """
    if len(key) > prefix_length(key) and key[0] == PLUGIN_CODE:
        ruleset = ruleset_by_prefix(key_prefix_of(key))
        if ruleset is None:
            raise codec.CodecError(f"key {key!r} is of an installed ruleset this server does not have "
                                   f"(or of another version of one)")
    else:
        ruleset = ruleset_by_code(key[0]) if len(key) >= 3 else None
    if ruleset is None:
        raise codec.CodecError(f"no installed ruleset has the code of key {key!r}")
    if ruleset.code != PLUGIN_CODE and ruleset.version != key[1]:
        raise codec.CodecError(f"key {key!r} is of {ruleset.name} version {key[1]}, installed is {ruleset.version}")
    try:
        state = tuple(ruleset.state_from_key(key))
    except (ValueError, IndexError) as error:
        raise codec.CodecError(f"cannot decode key {key!r} of {ruleset.name}: {error}") from error
    if ruleset.key(state) != key:
        raise codec.CodecError(f"decoded state {state!r} does not re-encode to key {key!r} ({ruleset.name})")
    return ruleset, state
