"""Catalog migrations on SQLite and PostgreSQL: empty → head → base, and models == migrated schema.

PostgreSQL: set ``RUMA_TEST_POSTGRES_URL`` (CI does); without it these cases skip, unless
``RUMA_REQUIRE_POSTGRES=1``, in which case they fail.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from ruma.client.cli import main
from ruma.migrations import current, downgrade, head, upgrade
from ruma.server.catalog.models import Base, Catalog, make_engine

TABLES = {"named_positions", "position_tags", "theorems", "verification_runs"}


def _reset(url: str) -> None:
    """Drop whatever a previous run left (tables and Alembic's version table)."""
    engine = make_engine(url)
    try:
        Base.metadata.drop_all(engine)
        with engine.begin() as connection:
            connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    finally:
        engine.dispose()


def postgres_url() -> str:
    """The test PostgreSQL URL, or skip (fail when RUMA_REQUIRE_POSTGRES=1)."""
    url = os.environ.get("RUMA_TEST_POSTGRES_URL")
    if not url:
        if os.environ.get("RUMA_REQUIRE_POSTGRES") == "1":
            pytest.fail("RUMA_REQUIRE_POSTGRES=1 but RUMA_TEST_POSTGRES_URL is not set")
        pytest.skip("RUMA_TEST_POSTGRES_URL not set")
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty catalog database of each kind."""
    url = f"sqlite:///{tmp_path / 'catalog.sqlite'}" if request.param == "sqlite" else postgres_url()
    _reset(url)
    yield url
    _reset(url)


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_empty_to_head_and_back_to_base(database_url: str) -> None:
    assert current(database_url) is None
    assert not (_tables(database_url) & TABLES)
    upgrade(database_url)
    assert current(database_url) == head()
    assert TABLES <= _tables(database_url)
    downgrade(database_url, "base")
    assert current(database_url) is None
    assert not (_tables(database_url) & TABLES)
    upgrade(database_url)  # and up again: downgrade left nothing behind
    assert current(database_url) == head()


def test_models_match_the_migrated_schema(database_url: str) -> None:
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            differences = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_opening_the_catalog_migrates_it(database_url: str) -> None:
    catalog = Catalog(database_url)
    try:
        assert current(database_url) == head()
    finally:
        catalog.close()


def test_seed_and_verify_on_each_database(database_url: str) -> None:
    from ruma.server.catalog.ops import CatalogOps

    catalog = Catalog(database_url)
    try:
        ops = CatalogOps(catalog)
        counts = ops.seed()
        before = (ops.list_positions(), ops.list_theorems())
        assert ops.seed() == counts and (ops.list_positions(), ops.list_theorems()) == before
        assert ops.verify("erickson-2.4", 3)["holds"]  # Theorem 2.4: 11(01)^n = {n+1|0}
        ops.add_theorem("wrong-2.3", "sowing", "(01)^m 2 (01)^n", "n", "m>=0,n>=0,not(m=0,n=0)")
        run = ops.verify("wrong-2.3", 2)
        assert run["counterexample"] == {"m": 0, "n": 1} and run["counterexample_value"] == "2"
        assert ops.show_theorem("wrong-2.3")["last_run"] == run
        from ruma.server.catalog.seed import TABLE3_FEWEST_POTS

        expected = sorted(f"erickson-t3-{p}" for p in TABLE3_FEWEST_POTS if "1113" in p)
        assert [p["name"] for p in ops.list_positions(tag="table3-fewest-pots", name="1113")] == expected
    finally:
        catalog.close()


def test_db_commands(database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "current", "--catalog", database_url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"revision": None, "head": head()}
    assert main(["db", "upgrade", "--catalog", database_url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"revision": head()}
    assert main(["db", "downgrade", "--catalog", database_url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"revision": None}
    assert current(database_url) is None


def test_db_upgrade_in_a_data_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    assert main(["db", "upgrade", "--data", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"revision": head()}
    assert current(f"sqlite:///{(data / 'catalog.sqlite').resolve()}") == head()
