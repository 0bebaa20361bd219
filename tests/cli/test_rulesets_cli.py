"""``ruma rulesets`` with rulesets installed from outside ruma: each listed with the distribution it
came from, one that cannot serve listed with the reason (its name a built-in ruleset's too, beside
the built-in one), the others as usual; every record valid against the ``ruleset`` schema; and a
local evaluation of a broken one failing with its reason (exit 1, one line)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ruma.client.cli.errors import Exit
from ruma.client.cli.main import main
from ruma.client.records import schema
from tests.support.installed import add_distribution, add_example, on_path


def test_rulesets_lists_origins_and_broken_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    add_example(tmp_path)
    (tmp_path / "raising_rules.py").write_text("raise RuntimeError('no board today')\n")
    add_distribution(tmp_path, "ruma-broken", "2.0", {"raising": "raising_rules:R",
                                                     "sowing": "capture_sowing:CAPTURE_SOWING"})
    with on_path(tmp_path):
        assert main(["rulesets", "--json"]) == 0
        records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        for record in records:
            jsonschema.validate(record, schema("ruleset"))
        by_origin = {(r["name"], r["origin"]): r for r in records}
        assert by_origin["capture-sowing", "ruma-capture-sowing 0.1.0"]["error"] is None
        assert by_origin["sowing", "built-in"]["error"] is None and by_origin["sowing", "built-in"]["examples"]
        assert "name of a built-in ruleset" in by_origin["sowing", "ruma-broken 2.0"]["error"]
        raising = by_origin["raising", "ruma-broken 2.0"]
        assert "entry point raising = raising_rules:R of ruma-broken 2.0" in raising["error"]
        assert "RuntimeError: no board today" in raising["error"] and raising["impartial"] is None
        assert sum(r["origin"] == "built-in" for r in records) >= 12

        assert main(["rulesets"]) == 0  # the table: the reason in the description
        table = capsys.readouterr().out
        assert "ruma-capture-sowing 0.1.0" in table and "cannot serve: installed ruleset 'raising'" in table

        assert main(["eval", "raising", "11"]) == Exit.FAILED
        err = capsys.readouterr().err
        assert "no board today" in err and "ruma-broken 2.0" in err
