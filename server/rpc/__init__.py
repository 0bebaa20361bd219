"""The gRPC service: what receives calls and answers them.

- ``app``: the assembled server; ``servicer``, ``catalog``, ``sweeps``: the three servicers;
  ``auth``: tokens; ``errors``: exceptions → status codes; ``inflight``: single-flight;
  ``cache``: hot values; ``stored_batch``: stored batches answered in bulk; ``request_log``: one
  line per call; ``commands``: ``ruma serve``.

May import: everything of ``ruma.server``; nothing imports it but ``ruma serve``.
"""
