"""The ``ruma`` command line.

- ``main``: the dispatcher over subcommands registered as entry points; ``options``, ``errors``,
  ``output``: what every subcommand shares; ``records`` and ``schemas/``: the ``--json``
  records; ``local_eval``: local evaluation within limits;
- the client's subcommands: ``value``, ``eval``, ``octal``, ``tchoukaillon``, ``impartial``,
  ``remote`` (``query``, ``load``), ``info``.

May import: the standard library, rich, ``ruma.engine``, ``ruma.v1`` and ``ruma.client`` (the typed
client, the progress display) — never ``ruma.client.sweep`` or ``ruma.server`` (their commands
arrive through entry points).
"""

from ruma.client.cli.main import main

__all__ = ["main"]
