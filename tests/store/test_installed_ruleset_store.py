"""A store holds an installed ruleset's values under its own key prefix (``PLUGIN_CODE`` and a hash
of its name and version): a sweep of the example package's ruleset is stored, counted, named,
searched by value and verified like a built-in ruleset's, every value agreeing with a plain
recursion; a new version of the ruleset reads none of the old version's values; and a batch large
enough for the writer process is written and counted all the same."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from ruma.client.sweep.driver import sweep_store
from ruma.engine.cgt import STAR, ZERO
from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.rulesets import get_ruleset
from ruma.engine.rulesets.base import PLUGIN_CODE
from ruma.server.store.codec import CodecError
from ruma.server.store.commands import _ruleset_label
from ruma.server.store.keys import state_of_key
from ruma.server.store.memo import LmdbStore
from tests.support.installed import EXAMPLE_MODULE, add_distribution, add_example, capture_value, on_path


def family() -> Family:
    """Capture Sowing's rows of up to 6 seeds and 6 pots (of the version installed at the call)."""
    return Family.of("capture-sowing", (0, 6), (1, 6))


@pytest.fixture()
def example(tmp_path: Path) -> Iterator[Path]:
    """The example package installed (a folder on ``sys.path``)."""
    site = tmp_path / "site"
    site.mkdir()
    add_example(site)
    with on_path(site):
        yield site


def _row(store: LmdbStore, prefix: bytes) -> dict[str, object]:
    (row,) = [r for r in store.admin.stats()["rulesets"] if r["prefix"] == prefix.hex()]
    return row


def test_a_swept_installed_ruleset_is_stored_under_its_prefix(example: Path, tmp_path: Path) -> None:
    rules = get_ruleset("capture-sowing")
    classes = enumerate_family(family())
    summary = sweep_store(family(), str(tmp_path / "data"), workers=1)
    assert summary.classes == len(classes) > 100
    with LmdbStore(tmp_path / "data", create=False) as store:
        assert _row(store, rules.key_prefix) == {"code": PLUGIN_CODE, "version": 1, "prefix": rules.key_prefix.hex(),
                                                 "name": "capture-sowing", "entries": len(classes)}
        for c in classes:
            assert c.key.startswith(rules.key_prefix)
            assert store.lookup(c.key) == capture_value(c.state), rules.format(c.state)
            assert state_of_key(c.key) == (rules, c.state)
        stars = {c.key for c in classes if capture_value(c.state) == STAR}
        found = store.positions_with_value(PLUGIN_CODE, STAR, limit=len(classes), prefix=rules.key_prefix)
        assert set(found) == stars and len(stars) >= 10
        seeds = [sum(rules.state_from_key(key)) for key in found]
        assert seeds == sorted(seeds) and seeds[0] < seeds[-1]  # simplest first: the fewest seeds
        assert store.positions_with_value(PLUGIN_CODE, STAR) == []  # (the code alone names no installed ruleset)
        report = store.admin.verify(full=True)
        assert report.ok and report.checked > 0, report.to_dict()


def test_a_new_version_reads_no_value_of_the_old(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    for site, version in ((old, 1), (new, 2)):
        site.mkdir()
        text = EXAMPLE_MODULE.read_text()
        assert "version: ClassVar[int] = 1\n" in text
        (site / EXAMPLE_MODULE.name).write_text(text.replace("version: ClassVar[int] = 1\n",
                                                             f"version: ClassVar[int] = {version}\n"))
        add_distribution(site, "ruma-capture-sowing", f"0.{version}", {"capture-sowing": "capture_sowing:CAPTURE_SOWING"})
    with on_path(old):
        first = get_ruleset("capture-sowing")
        sweep_store(family(), str(tmp_path / "data"), workers=1)
        keys = [c.key for c in enumerate_family(family())]
    with on_path(new):
        second = get_ruleset("capture-sowing")
        assert second.version == 2 and second.key_prefix != first.key_prefix
        with LmdbStore(tmp_path / "data", create=False) as store:
            assert store.lookup_many(keys) == [capture_value(first.state_from_key(k)) for k in keys]  # (still there)
            assert all(v is None for v in store.lookup_many([second.key(first.state_from_key(k)) for k in keys]))
            with pytest.raises(CodecError, match="another version"):
                state_of_key(keys[0])
            row = _row(store, first.key_prefix)
            assert row["version"] is None and "a version not installed here" in _ruleset_label(row)
            summary = sweep_store(family(), str(tmp_path / "data"), workers=1)
            assert summary.already_stored == 0  # (valued afresh under the new prefix)
            assert _row(store, second.key_prefix)["entries"] == len(keys)


def test_a_large_batch_of_installed_keys_is_written_and_counted(example: Path, tmp_path: Path) -> None:
    rules = get_ruleset("capture-sowing")
    states = [rules.normalise((a, b, c, d))[0] for a in range(12) for b in range(12) for c in range(12) for d in (1, 2)]
    keys = sorted({rules.key(s) for s in states if s})
    assert len(keys) > 2048  # (past the size the writer process takes)
    values = [STAR if i % 3 else ZERO for i in range(len(keys))]
    with LmdbStore(tmp_path / "data", writer_process=True) as store:
        store.insert_many(list(zip(keys, values)))
        store.flush()
        assert _row(store, rules.key_prefix)["entries"] == len(keys)
        assert store.lookup_many(keys) == values
