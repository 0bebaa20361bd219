"""The explorer's batch of positions (``POST /api/v1/batch/{ruleset}``): every position has its own
outcome, and the request never waits much longer than a page does.

Positions beyond the service's size limits are refused one by one (``413``/``422``, the limit
named); the others go to the service in one ``EvaluateBatch`` whose positions each have the
request's time (``max_seconds``: the service stops a heavy one alone and values the next), and
whose deadline is twice that. A position valued gets ``200`` with its value; one that took longer
``202`` with the command that values it (a background job can too: ``POST /api/v1/jobs``), as
does one the service's limit a request kept from its time (not started, or cut short: "send it
again"/"send it alone"); one the service refuses the status of its gRPC code (``400`` malformed, ``422`` beyond the service's
limits, ``429`` the service busy). If the whole call runs out of its deadline, the positions
without an answer get ``202`` (what was valued meanwhile is stored).
"""

from __future__ import annotations

from typing import Any, Sequence

import grpc

from ruma.web import heavy
from ruma.web.gateway import Gateway, GatewayError, http_status, value_texts


def _item(position: str, status: int, code: str, message: str = "", **fields: Any) -> dict[str, Any]:
    return {"position": position, "status": status, "code": code, "message": message, "value": None,
            "from_store": None, "unverified": None, "command": None, **fields}


def _refused(gw: Gateway, ruleset: str, position: str, code: grpc.StatusCode, message: str,
             token: str | None) -> dict[str, Any]:
    """The item of a position the service did not value."""
    error = GatewayError(http_status(code, message), code.name, message)
    kept = ("each position may take", "send it again", "send it alone")  # (its time, or its call's, ran out)
    reason = "time" if any(words in message for words in kept) else heavy.stopped_by(error)
    if reason == "time":
        return _item(position, 202, "NOT_STORED", message, command=heavy.query_command(gw, ruleset, position, token))
    if reason is not None:
        return _item(position, 422, code.name, message, command=heavy.local_command(ruleset, position))
    return _item(position, error.status, code.name, message)


def value_batch(gw: Gateway, ruleset: str, positions: Sequence[str], token: str | None,
                seconds: float) -> list[dict[str, Any]]:
    """Each position's outcome (see the module docstring)."""
    out: list[dict[str, Any] | None] = [None] * len(positions)
    todo: list[int] = []
    for index, position in enumerate(positions):
        try:
            heavy.check_size(gw, ruleset, position, token)
            todo.append(index)
        except GatewayError as error:
            out[index] = _item(position, error.status, error.code, error.message)
    client = gw.client(token)
    try:
        items = gw.call(lambda: client.evaluate_batch(
            ruleset, [positions[i] for i in todo], notations=["ascii", "unicode", "braces"], brief=True,
            max_positions=gw.max_positions, max_seconds=seconds, timeout=max(2 * seconds, seconds + 1.0)))
    except GatewayError as error:
        if error.code != "DEADLINE_EXCEEDED":
            raise
        items = []
    for index, item in zip(todo, items):
        position = positions[index]
        if item.evaluation is not None:
            value = item.evaluation.value
            out[index] = _item(position, 200, "OK", value=value_texts(value.unicode, value.ascii, value.braces),
                               from_store=item.evaluation.from_store, unverified=item.evaluation.unverified)
        else:
            out[index] = _refused(gw, ruleset, position, item.code, item.message, token)
    for index in todo[len(items):]:
        out[index] = _item(positions[index], 202, "NOT_STORED", f"not valued within this request's {seconds:g} s",
                           command=heavy.query_command(gw, ruleset, positions[index], token))
    return [item for item in out if item is not None]
