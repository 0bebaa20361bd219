"""The default size limits of one evaluation, the same for the service and the command line.

``ruma serve``'s ``Limits`` (``ruma.server.work.limits``) and a local command's ``LocalLimits``
(``ruma.client.cli.options``, ``--max-pots``/``--max-seeds``/``--max-positions``) both start from
these: a position beyond the first two is refused before any work, a search that values more than
the third gives up. Time limits are each place's own (a service request's budget is not a local
evaluation's), so they live there.
"""

from __future__ import annotations

#: pots (or heaps) of a position
MAX_POTS = 64
#: seeds (or tokens) of a position
MAX_SEEDS = 512
#: positions one evaluation may value
MAX_POSITIONS = 5_000_000
