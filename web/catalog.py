"""The catalog as the explorer lists it: named positions with their values, and searches that say
how many more results there are.

``with_values`` fills in the value of each listed named position — from the service's store
(``Lookup``, one call per ruleset), else valued within the time a page waits — and whether it
agrees with the value printed in the paper, when the paper prints one; a position whose value is
still not known says so.
``counted`` asks for up to ``COUNT_UP_TO`` results and keeps the first ``limit``, so a page can
say how many more there are (exactly, up to that many).
"""

from __future__ import annotations

from typing import Any, Callable

from ruma.web.gateway import Gateway, GatewayError

#: results a search counts before it says "more than"
COUNT_UP_TO = 1000


def same_value(printed: str | None, ascii_value: str | None) -> bool | None:
    """Whether a value as printed in a paper denotes the stored one (``None``: unknown)."""
    if not printed or not ascii_value:
        return None
    from ruma.engine.cgt.notation import parse_game
    from ruma.engine.errors import RumaError

    try:
        return parse_game(printed) is parse_game(ascii_value)
    except RumaError:
        return None


def unicode(text: str | None) -> str | None:
    """A value in any notation, in Unicode (text that does not parse is left as it is)."""
    if not text:
        return text
    from ruma.engine.cgt.notation import format_game, parse_game
    from ruma.engine.errors import RumaError

    try:
        return format_game(parse_game(text), "unicode")
    except RumaError:
        return text


def cgsuite(text: str | None) -> str | None:
    """A value in any notation as CGSuite writes it (``format_cgsuite``); text that does not parse
    (or is beyond the expression limits) is given as it is."""
    if not text:
        return text
    from ruma.engine.cgt.notation import format_cgsuite, parse_game
    from ruma.engine.errors import RumaError

    try:
        return format_cgsuite(parse_game(text))
    except RumaError:
        return text


def with_values(gw: Gateway, entries: list[dict[str, Any]], token: str | None = None,
                seconds: float = 5.0) -> list[dict[str, Any]]:
    """``entries`` (named positions) with ``value`` (Unicode), ``value_ascii``, ``nim_value``,
    ``stored`` and ``source_agrees`` (see the module docstring). Positions the store lacks are
    valued within ``seconds`` in all (one batch; each position at most that long); the others
    stay ``stored: false`` with no value."""
    client = gw.client(token)
    by_ruleset: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        entry.update(value=None, value_ascii=None, nim_value=None, stored=False, source_agrees=None)
        by_ruleset.setdefault(entry["ruleset"], []).append(entry)
    for ruleset, group in by_ruleset.items():
        found = gw.call(lambda: client.lookup(ruleset, [e["position"] for e in group], notations=["ascii", "unicode"]))
        missing = []
        for entry, item in zip(group, found):
            if item.evaluation is not None:
                _fill(entry, item.evaluation)
            elif item.ok:
                missing.append(entry)
        if missing:
            try:
                valued = gw.call(lambda: client.evaluate_batch(
                    ruleset, [e["position"] for e in missing], notations=["ascii", "unicode"], brief=True,
                    max_positions=gw.max_positions, timeout=seconds))
            except GatewayError:
                continue  # (not within the time: they are listed as not stored yet)
            for entry, result in zip(missing, valued):
                if result.evaluation is not None:
                    _fill(entry, result.evaluation)
    return entries


def _fill(entry: dict[str, Any], evaluation: Any) -> None:
    entry.update(value=evaluation.value.unicode, value_ascii=evaluation.value.ascii, nim_value=evaluation.nim_value,
                 stored=True)
    entry["source_agrees"] = same_value((entry.get("source") or {}).get("value"), evaluation.value.ascii)


def counted(search: Callable[[int], list[Any]], limit: int) -> tuple[list[Any], int, bool]:
    """``(the first limit results, how many more, whether that count is exact)`` of
    ``search(n)``, a search that returns at most ``n`` results."""
    found = search(max(limit, COUNT_UP_TO))
    more = max(0, len(found) - limit)
    return found[:limit], more, len(found) < max(limit, COUNT_UP_TO)
