"""Named documents in the LMDB store (``ruma.server.store.documents``): kept, replaced, listed,
checked by ``ruma store verify``, carried over by ``ruma store repair``, refused when damaged.

Real LMDB files in a temporary directory; the damage is a flipped bit in ``data.mdb``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import lmdb
import pytest

from ruma.client.cli import main
from ruma.engine.errors import RumaInputError
from ruma.engine.evaluator import evaluate
from ruma.server.store import documents
from ruma.server.store.codec import CorruptRecordError
from ruma.server.store.memo import LmdbStore
from ruma.server.store.repair import repair_store
from ruma.server.store.verify import verify_store
from tests.support import DATA

PAYLOAD = json.dumps({"section": "sowing-values", "rows": [{"position": "2111", "label": "2^-1"}]}).encode()


def test_a_document_is_kept_replaced_listed_and_read_back_after_reopening(tmp_path: Path) -> None:
    with LmdbStore(tmp_path) as store:
        assert store.documents.get("tables/sowing-values") is None and store.documents.names() == []
        store.documents.put("tables/sowing-values", PAYLOAD)
        store.documents.put("tables/wari-nim", b"first")
        store.documents.put("tables/wari-nim", b"second")  # replaced
        store.documents.put("other", b"x")
    with LmdbStore(tmp_path, create=False) as store:
        assert store.documents.get("tables/sowing-values") == PAYLOAD
        assert store.documents.get("tables/wari-nim") == b"second"
        assert store.documents.names("tables/") == ["tables/sowing-values", "tables/wari-nim"]
        assert store.documents.names() == ["other", "tables/sowing-values", "tables/wari-nim"]


@pytest.mark.parametrize("name", ["", " padded", "tab\there", "x" * 201, 7])
def test_a_bad_document_name_is_refused_with_the_name_quoted(tmp_path: Path, name: object) -> None:
    with LmdbStore(tmp_path) as store:
        with pytest.raises(RumaInputError, match="document name"):
            store.documents.put(name, b"x")  # type: ignore[arg-type]
        assert store.documents.names() == []


def test_a_document_over_the_limit_is_refused_and_nothing_is_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "MAX_DOCUMENT", 10)
    with LmdbStore(tmp_path) as store:
        with pytest.raises(RumaInputError, match="'big' of 11 bytes; the limit is 10"):
            store.documents.put("big", b"x" * 11)
        assert store.documents.get("big") is None


def test_verify_checks_documents_and_repair_keeps_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with LmdbStore(tmp_path) as store:
        evaluate("sowing", "2111", store)
        store.documents.put("tables/sowing-values", PAYLOAD)
        assert verify_store(store, sample=10, full=True).ok
    assert main(["store", "verify", "--data", str(tmp_path), "--full", "--json"]) == 0
    capsys.readouterr()
    repair_store(tmp_path)
    with LmdbStore(tmp_path, create=False) as store:
        assert store.documents.get("tables/sowing-values") == PAYLOAD
        assert verify_store(store, sample=10, full=True).ok


def test_a_damaged_document_is_never_served_and_verify_finds_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with LmdbStore(tmp_path) as store:
        store.documents.put("tables/sowing-values", PAYLOAD)
    data = bytearray((tmp_path / "data.mdb").read_bytes())
    at = data.find(PAYLOAD)
    assert at >= 0 and data.find(PAYLOAD, at + 1) < 0
    data[at + 20] ^= 1
    (tmp_path / "data.mdb").write_bytes(bytes(data))
    with LmdbStore(tmp_path, create=False) as store:
        with pytest.raises(CorruptRecordError, match="meta"):
            store.documents.get("tables/sowing-values")
    assert main(["store", "verify", "--data", str(tmp_path), "--full", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(p["table"] == "meta" and p["problem"] == "checksum mismatch" for p in problems), problems
    report = repair_store(tmp_path)  # the damaged document is dropped, and reported: recomputing it is its writer's job
    assert [p["key"] for p in report.problems if p["table"] == "meta"] == [(documents.DOC + b"tables/sowing-values").hex()]
    with LmdbStore(tmp_path, create=False) as store:
        assert store.documents.get("tables/sowing-values") is None
        assert verify_store(store, sample=10, full=True).ok


def test_documents_live_in_meta_under_doc_and_are_sealed(tmp_path: Path) -> None:
    with LmdbStore(tmp_path) as store:
        store.documents.put("tables/x", b"payload")
    env = lmdb.open(str(tmp_path), readonly=True, lock=False, max_dbs=8)
    with env.begin() as txn:
        raw = txn.get(b"doc/tables/x", db=env.open_db(b"meta", txn=txn, create=False))
    env.close()
    assert raw is not None and raw.startswith(b"payload") and len(raw) == len(b"payload") + 4


def test_documents_of_a_schema_2_store_survive_its_conversion_to_schema_3(tmp_path: Path) -> None:
    # a schema-2 store (tests/data/store-v2) holding documents, as a schema-2 ruma kept them
    from ruma.server.store import codec
    from ruma.server.store.migrate import schema_of

    path = tmp_path / "store"
    shutil.copytree(DATA / "store-v2", path)
    assert schema_of(path) == b"2"
    env = lmdb.open(str(path), max_dbs=16)
    with env.begin(write=True) as txn:
        meta = env.open_db(b"meta", txn=txn, create=False)
        for name, payload in (("tables/sowing-values", PAYLOAD), ("tables/wari-nim", b"second")):
            key = documents.DOC + name.encode()
            txn.put(key, codec.seal(key, payload), db=meta)
    env.close()
    with LmdbStore(path, create=False) as store:  # converted as it opens
        assert store.admin.stats()["schema_version"] == 3
        assert store.documents.names("tables/") == ["tables/sowing-values", "tables/wari-nim"]
        assert store.documents.get("tables/sowing-values") == PAYLOAD and store.documents.get("tables/wari-nim") == b"second"
        assert verify_store(store, sample=10, full=True).ok
    repair_store(path)
    with LmdbStore(path, create=False) as store:
        assert store.documents.get("tables/sowing-values") == PAYLOAD
