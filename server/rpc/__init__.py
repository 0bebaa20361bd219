"""The gRPC service: what receives calls and answers them.

- ``app``: the assembled server (gRPC's asyncio server on its own event loop); ``servicer``,
  ``catalog``, ``sweeps``: the three servicers; ``admission``: every call admitted at its start
  (tokens, each client's share, room kept for cheap reads, its request read and decoded); ``auth``: tokens; ``errors``:
  exceptions → status codes; ``inflight``: single-flight; ``request_log``: one line per call;
  ``commands``: ``ruma serve``.

May import: the standard library, grpc, ``ruma.engine``, ``ruma.v1`` and the rest of the server
(``ruma.server.store``, ``ruma.server.catalog``, ``ruma.server.work``) — nothing imports it but
``ruma serve``.
"""
