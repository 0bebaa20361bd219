"""Heavy work, and how it is bounded: everything that may compute runs here.

- ``pool``: the evaluation worker processes and their admission; ``tasks``, ``sweep_tasks``: the
  functions a worker runs; ``budget``: a call's deadline and limits; ``limits``: the service's
  limits; ``wire``: errors carried from a worker; ``convert``: engine objects → protobuf replies.

May import: the standard library, ``ruma.engine``, ``ruma.v1``, ``ruma.server.store`` and (for the
tasks it runs) ``ruma.server.catalog``.
"""
