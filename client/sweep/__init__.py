"""Sweeps: value every position of a family once, on this machine's cores or a Ray cluster.

- ``driver``: the sweep driver; ``shared``, ``shared_memory``: sweeps through a table of values in
  shared memory, and that memory; ``worker``, ``ray``: what a worker runs, locally or as a Ray actor;
  ``summary``: the ``--json`` record (the ``Sweeps`` service's client and remote sink:
  ``ruma.client.sweeps_client``);
  ``commands``: ``ruma sweep``, and the family options and store sink ``ruma.studies`` shares.

May import: the standard library, ``ruma.engine``, ``ruma.v1``, Ray (only for ``--ray``),
``ruma.client`` (the typed client, its ``Sweeps`` side) and ``ruma.client.cli`` (the CLI's shared
pieces) — never ``ruma.server``.
"""
