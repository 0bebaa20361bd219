"""The catalog: named positions and theorems in SQL (SQLAlchemy; SQLite or PostgreSQL).

- ``models``: the schema and how to open it; ``ops``: its operations; ``seed``: Erickson's
  tables and theorems; ``properties``: named claims of theorems; ``valuing``: what the catalog
  computes (values, theorem checks, searches of the store by value); ``commands``: ``ruma
  catalog``, ``ruma theorem``, ``ruma db``.

May import: the standard library, SQLAlchemy, Alembic (``ruma.migrations``), ``ruma.engine`` and
``ruma.server.store`` — the workers that run its computations for the service
(``ruma.server.work``) stand on it.
"""
