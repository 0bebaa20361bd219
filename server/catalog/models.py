"""The catalog's relational schema (SQLAlchemy 2 typed models) and how to open it.

Three tables, migrated by Alembic (``ruma.migrations``):

* ``named_positions`` — a position of a ruleset worth a name (a paper's table entry); its *value
  is never stored*: it is evaluated through the memo/store whenever asked. ``source_value`` keeps
  the value *printed in the source* verbatim, as provenance, so a reader can compare.
* ``theorems`` — a family of positions with integer parameters, a parameter domain and a claim
  (a value in the parameters, or a named property; see ``ruma.server.catalog.ops``).
* ``verification_runs`` — one row per ``theorem verify``: bounds, instances, result, the smallest
  counterexample and the versions that produced it.

``Catalog.open(url)`` upgrades the database to the newest migration before use. The embedded
default is SQLite at ``DATA/catalog.sqlite``; any SQLAlchemy URL works (PostgreSQL via
``postgresql+psycopg://``).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Optional

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    create_engine,
    event,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship, sessionmaker

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> dt.datetime:
    """The current time, timezone-aware UTC."""
    return dt.datetime.now(dt.UTC)


class Base(DeclarativeBase):
    """Declarative base with a fixed constraint naming convention (stable across databases)."""

    metadata = MetaData(naming_convention=NAMING)


class NamedPosition(Base):
    """A catalogued position: name, ruleset, position text, canonical key and provenance."""

    __tablename__ = "named_positions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    ruleset: Mapped[str] = mapped_column(String(64), index=True)
    position: Mapped[str] = mapped_column(Text)
    canonical_key: Mapped[bytes] = mapped_column(LargeBinary, index=True)
    source_paper: Mapped[Optional[str]] = mapped_column(String(200))
    source_table: Mapped[Optional[str]] = mapped_column(String(100))
    source_page: Mapped[Optional[int]] = mapped_column(Integer)
    source_value: Mapped[Optional[str]] = mapped_column(Text)
    notes: Mapped[Optional[str]] = mapped_column(Text)
    added_by: Mapped[Optional[str]] = mapped_column(String(100))
    added_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    tag_rows: Mapped[list["PositionTag"]] = relationship(
        back_populates="named_position", cascade="all, delete-orphan", order_by="PositionTag.tag",
        lazy="selectin")

    @property
    def tags(self) -> list[str]:
        """The position's tags, sorted."""
        return sorted(t.tag for t in self.tag_rows)


class PositionTag(Base):
    """One tag of a named position (a separate table so tag search is an index lookup)."""

    __tablename__ = "position_tags"

    position_id: Mapped[int] = mapped_column(
        ForeignKey("named_positions.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)

    named_position: Mapped[NamedPosition] = relationship(back_populates="tag_rows")


class Theorem(Base):
    """A claim about a parametrised family of positions."""

    __tablename__ = "theorems"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    ruleset: Mapped[str] = mapped_column(String(64), index=True)
    family: Mapped[str] = mapped_column(Text)
    parameters: Mapped[str] = mapped_column(String(200))
    domain: Mapped[str] = mapped_column(Text, default="")
    claim: Mapped[str] = mapped_column(Text)
    claim_kind: Mapped[str] = mapped_column(String(16), default="value")
    source_paper: Mapped[Optional[str]] = mapped_column(String(200))
    source_ref: Mapped[Optional[str]] = mapped_column(String(100))
    source_page: Mapped[Optional[int]] = mapped_column(Integer)
    notes: Mapped[Optional[str]] = mapped_column(Text)
    added_by: Mapped[Optional[str]] = mapped_column(String(100))
    added_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    runs: Mapped[list["VerificationRun"]] = relationship(
        back_populates="theorem", cascade="all, delete-orphan", order_by="VerificationRun.id")


class VerificationRun(Base):
    """One check of a theorem on every instance with parameters ≤ ``up_to``."""

    __tablename__ = "verification_runs"
    __table_args__ = (Index("ix_verification_runs_theorem_started", "theorem_id", "started_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    theorem_id: Mapped[int] = mapped_column(ForeignKey("theorems.id", ondelete="CASCADE"))
    up_to: Mapped[int] = mapped_column(Integer)
    bounds: Mapped[str] = mapped_column(Text)
    instances_checked: Mapped[int] = mapped_column(Integer)
    holds: Mapped[bool] = mapped_column(Boolean)
    counterexample: Mapped[Optional[str]] = mapped_column(Text)
    counterexample_position: Mapped[Optional[str]] = mapped_column(Text)
    counterexample_value: Mapped[Optional[str]] = mapped_column(Text)
    claimed_value: Mapped[Optional[str]] = mapped_column(Text)
    positions_valued: Mapped[int] = mapped_column(Integer, default=0)
    engine_version: Mapped[str] = mapped_column(String(64))
    ruleset_version: Mapped[int] = mapped_column(Integer)
    milliseconds: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    theorem: Mapped[Theorem] = relationship(back_populates="runs")


# -- opening ------------------------------------------------------------------------------------
def catalog_url(data: str | Path | None = None, url: str | None = None) -> str:
    """The catalog URL: ``url`` if given, else SQLite in ``data`` (default ``./ruma-data``)."""
    if url:
        return url
    directory = Path(data if data is not None else "ruma-data")
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{(directory / 'catalog.sqlite').resolve()}"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


class Catalog:
    """An open catalog: an engine and a session factory, migrated to head on open."""

    def __init__(self, url: str, *, migrate: bool = True) -> None:
        self.url = url
        self.engine = make_engine(url)
        if migrate:
            from ruma.migrations import upgrade

            upgrade(url, engine=self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @classmethod
    def open(cls, data: str | Path | None = None, url: str | None = None) -> "Catalog":
        """Open (and migrate) the catalog at ``url`` or in directory ``data``."""
        return cls(catalog_url(data, url))

    def session(self) -> Session:
        """A new ORM session (use as a context manager)."""
        return self.sessions()

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    def __enter__(self) -> "Catalog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
