"""Load shedding: the explorer takes at most so many requests at once, and says so when it is full.

Every page and API call is one or two calls of the gRPC service, made on a thread of the ASGI
server while the request waits; a few hundred slow requests (positions the service must value)
would hold every thread and leave cheap pages waiting behind them. So requests are counted as they
arrive: at most ``max_slow`` *slow* ones (anything that may make the service compute) and
``max_requests`` in all are served at once, and a request beyond either is answered at once with
``503 Service Unavailable`` and ``Retry-After`` — never queued. Cheap pages (the home page, the
rulesets, theorems, statistics, tags, static files and the API's description) count only against
``max_requests``, so slow requests cannot crowd them out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: the defaults of ``ruma web --max-requests`` and ``--max-slow`` (the ASGI server has 40 threads)
MAX_REQUESTS, MAX_SLOW = 40, 16
#: seconds a shed request is told to wait before trying again
RETRY_AFTER = 2
#: paths that never make the service compute (with ``GET``)
CHEAP = frozenset({"/", "/go", "/tags", "/theorems", "/stats", "/docs", "/redoc", "/favicon.ico", "/api/v1/rulesets",
                   "/api/v1/stats", "/api/v1/theorems", "/api/v1/catalog/tags", "/api/v1/openapi.json"})
CHEAP_PREFIXES = ("/static/", "/theorems/", "/api/v1/theorems/")
#: listings that are cheap unless they search by value
LISTINGS = frozenset({"/catalog", "/api/v1/catalog/positions"})


def is_slow(method: str, path: str, query: str) -> bool:
    """Whether a request may make the service compute (or write)."""
    if method not in ("GET", "HEAD"):
        return True
    if path in LISTINGS:
        return "value=" in query
    return not (path in CHEAP or path.startswith(CHEAP_PREFIXES))


@dataclass
class Shedding:
    """Counts of the requests being served, and the limits (used on the ASGI server's event loop)."""

    max_requests: int = MAX_REQUESTS
    max_slow: int = MAX_SLOW
    requests: int = 0
    slow: int = 0
    shed: int = field(default=0)

    def admit(self, slow: bool) -> str | None:
        """Count a request in, or the reason it is refused."""
        if self.requests >= self.max_requests:
            self.shed += 1
            return f"the explorer is serving {self.requests} requests, its limit (--max-requests); try again shortly"
        if slow and self.slow >= self.max_slow:
            self.shed += 1
            return (f"the explorer is serving {self.slow} requests that may make the service compute, its limit "
                    f"(--max-slow); try again shortly")
        self.requests += 1
        self.slow += slow
        return None

    def done(self, slow: bool) -> None:
        """Count a request out."""
        self.requests -= 1
        self.slow -= slow
