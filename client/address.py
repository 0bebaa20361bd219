"""Server addresses: ``host``, ``host:port``, ``[v6]``, ``[v6]:port`` or a bare IPv6 address."""

from __future__ import annotations

from ruma.engine.errors import RumaInputError

DEFAULT_PORT = 50051
_FORMS = "give host, host:port or [v6]:port; the port defaults to 50051"


def parse_address(text: str) -> str:
    """``text`` as ``host:port`` (port 50051 when omitted); raises ``RumaInputError`` quoting a
    malformed address or a port outside 1..65535."""
    raw = text.strip()
    if "://" in raw:
        raise RumaInputError(f"server address {text!r} has a scheme; {_FORMS}")
    if raw.startswith("["):
        host, bracket, rest = raw.partition("]")
        host += bracket
        if not bracket or (rest and not rest.startswith(":")) or len(host) < 3:
            raise RumaInputError(f"malformed server address {text!r}; {_FORMS}")
        port_text = rest[1:] if rest else None
    elif raw.count(":") > 1:  # a bare IPv6 address
        host, port_text = f"[{raw}]", None
    elif ":" in raw:
        host, _, port_text = raw.partition(":")
    else:
        host, port_text = raw, None
    if not host or any(c.isspace() for c in host) or host.startswith("-"):
        raise RumaInputError(f"malformed server address {text!r}; {_FORMS}")
    if port_text is None:
        return f"{host}:{DEFAULT_PORT}"
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise RumaInputError(f"bad port in server address {text!r}: need 1..65535")
    return f"{host}:{int(port_text)}"


def host_of(address: str) -> str:
    """The host part of a ``host:port`` address, without IPv6 brackets."""
    return address.rsplit(":", 1)[0].strip("[]")


def is_loopback(address: str) -> bool:
    """Whether a ``host:port`` address names this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    import ipaddress

    host = host_of(address)
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
