"""Heavy work and stored reads, and how they are bounded: everything that touches values runs here.

- ``pool``: the worker processes (evaluation and reader lanes) and their admission, on the
  server's event loop; ``worker``: a worker process's side; ``inline``: tasks on threads when
  there are no workers; ``tasks``, ``sweep_tasks``, ``reads`` (stored lookups), ``stored_batch``:
  the functions a worker runs; ``cache``: a reader's hot values; ``budget``: a call's deadline and
  limits; ``limits``: the service's limits; ``disk``: a full disk; ``worker_errors``: errors carried from a
  worker; ``convert``: engine objects → protobuf replies; ``heap``: the C heap kept while large
  messages arrive.

May import: the standard library, ``ruma.engine``, ``ruma.v1``, ``ruma.server.store`` and (for the
tasks it runs) ``ruma.server.catalog``.
"""
