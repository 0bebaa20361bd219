"""ruma.server: the gRPC service, the LMDB store and the catalog.

From the bottom: ``store`` (the LMDB store), ``catalog`` (the SQL catalog), ``work`` (heavy work in
worker processes), ``rpc`` (the gRPC service); each package says what it may import.

May import: nothing (this package holds only its packages).
"""
