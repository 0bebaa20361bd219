"""Alembic migrations of the ruma catalog, driven programmatically.

The scripts live next to this file (``env.py``, ``script.py.mako``, ``versions/``); ``config(url)``
builds an Alembic ``Config`` pointing at them, so no ``alembic.ini`` is needed at run time (one
is shipped for the ``alembic`` command: ``alembic -c migrations/alembic.ini -x url=... upgrade head``).
The catalog's tables are its caller's: a new migration is generated from the models' metadata
given to ``config(url, metadata=...)`` (docs/catalog.md).

May import: the standard library, Alembic and SQLAlchemy — nothing of ruma (the catalog,
``ruma.server.catalog``, imports this package to migrate on open).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy import MetaData
    from sqlalchemy.engine import Engine

SCRIPT_LOCATION = Path(__file__).resolve().parent


def config(url: str, engine: "Engine | None" = None, metadata: "MetaData | None" = None) -> "Config":
    """An Alembic configuration for the catalog at ``url`` (reusing ``engine`` if given; ``metadata``:
    the models' tables, which a migration is generated from — ``autogenerate``)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPT_LOCATION))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if engine is not None:
        cfg.attributes["engine"] = engine
    if metadata is not None:
        cfg.attributes["target_metadata"] = metadata
    return cfg


def upgrade(url: str, revision: str = "head", engine: "Engine | None" = None) -> None:
    """Upgrade the catalog at ``url`` to ``revision`` (default: the newest)."""
    from alembic import command

    command.upgrade(config(url, engine), revision)


def downgrade(url: str, revision: str = "base", engine: "Engine | None" = None) -> None:
    """Downgrade the catalog at ``url`` to ``revision`` (default: empty)."""
    from alembic import command

    command.downgrade(config(url, engine), revision)


def current(url: str, engine: "Engine | None" = None) -> str | None:
    """The revision the catalog at ``url`` is at, or ``None`` for an unmigrated database."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine

    own = engine is None
    eng: Any = engine if engine is not None else create_engine(url)
    try:
        with eng.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        if own:
            eng.dispose()


def head() -> str:
    """The newest revision shipped with this version of ruma."""
    from alembic.script import ScriptDirectory

    rev = ScriptDirectory.from_config(config("sqlite://")).get_current_head()
    assert rev is not None
    return rev
