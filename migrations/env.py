"""Alembic environment of the ruma catalog (online and offline modes); the models' metadata, which
``autogenerate`` compares with a database, is the caller's (``ruma.migrations.config``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

config = context.config
target_metadata = config.attributes.get("target_metadata")


def _url() -> str:
    x_url = context.get_x_argument(as_dictionary=True).get("url")
    return x_url or config.get_main_option("sqlalchemy.url") or ""


def run_offline() -> None:
    """Emit SQL to stdout instead of running it."""
    url = _url()
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=url.startswith("sqlite"))
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Run the migrations on a live connection (the caller's engine when it passed one)."""
    engine = config.attributes.get("engine")
    if engine is None:
        engine = engine_from_config({"sqlalchemy.url": _url()}, prefix="sqlalchemy.",
                                    poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
