"""The ``ruma`` command line.

- ``main``: the dispatcher over subcommands registered as entry points; ``options``, ``errors``,
  ``output``: what every subcommand shares; ``records`` and ``schemas/``: the ``--json``
  records; ``local_eval``: local evaluation within limits;
- the client's subcommands: ``value``, ``eval``, ``octal``, ``tchoukaillon``, ``impartial``,
  ``remote`` (``query``, ``load``), ``info``.

May import: the standard library, rich, ``ruma.engine``, ``ruma.v1`` and the rest of
``ruma.client`` — never ``ruma.server`` (server commands arrive through entry points).
"""

from ruma.client.cli.main import main

__all__ = ["main"]
