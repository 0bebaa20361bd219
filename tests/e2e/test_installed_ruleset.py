"""The example ruleset package (``examples/capture-sowing``) installed with pip and used through the
command line and the service: ``ruma rulesets`` lists it with its distribution, ``ruma sweep``
stores its family, ``ruma serve`` says it serves it, and over gRPC the swept positions are found
in the store with the values ``ruma eval`` gives, which agree with the engine in this process and
with a plain recursion written from the rules (``tests.support.installed``); a client without the
package asks the server all the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ruma.engine.cgt import format_value
from ruma.engine.evaluator import evaluate
from ruma.engine.families.classes import Family, enumerate_family
from ruma.engine.rulesets import get_ruleset
from tests.support.installed import EXAMPLE, capture_value, on_path
from tests.support.serve_harness import serve_log, serving

#: positions of at most 5 seeds (swept), by hand 11 = ∗, 12 = 1, 111 = ∗ (tests/engine/test_installed_rulesets.py)
SWEPT = ["11", "12", "111", "2111", "1111", "20111", "302"]


def _ruma(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "ruma.client.cli", *args], capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example package installed by pip into a folder of its own (from a copy of its source:
    pip builds in the source folder)."""
    pytest.importorskip("setuptools", reason="the example's build backend comes with the test extra")
    work = tmp_path_factory.mktemp("installed")
    source = shutil.copytree(EXAMPLE, work / "source")
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                             "-q", "--target", str(work / "site"), str(source)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (work / "site" / "capture_sowing.py").is_file()
    return work / "site"


def test_the_installed_example_is_swept_served_and_queried(installed: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("RUMA_SERVER", "RUMA_TOKEN", "RUMA_DATA")}
    with_package = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(installed), env.get("PYTHONPATH")]))}
    listed = [json.loads(line) for line in _ruma(with_package, "rulesets", "--json").stdout.splitlines()]
    (record,) = [r for r in listed if r["name"] == "capture-sowing"]
    assert (record["origin"], record["impartial"], record["error"]) == ("ruma-capture-sowing 0.1.0", False, None)
    assert all(r["origin"] == "built-in" for r in listed if r["name"] != "capture-sowing")
    assert "capture-sowing" not in _ruma(env, "rulesets").stdout  # (installed in that folder only)

    with on_path(installed):  # the engine in this process, with the package pip installed
        rules = get_ruleset("capture-sowing")
        classes = enumerate_family(Family.of("capture-sowing", (0, 5), (1, 5)))
        expected = {text: format_value(evaluate(rules, text).value) for text in [*SWEPT, "222"]}
    assert expected == {text: format_value(capture_value(rules.parse(text))) for text in expected}

    data = tmp_path / "data"
    swept = json.loads(_ruma(with_package, "sweep", "capture-sowing", "--seeds", "5", "--data", str(data),
                             "--workers", "1", "--json", "--no-progress").stdout)
    assert (swept["classes"], swept["classes_valued"]) == (len(classes), len(classes))
    evaluated = [json.loads(line) for line in _ruma(with_package, "eval", "capture-sowing", *expected, "--json",
                                                    "--notation", "ascii").stdout.splitlines()]
    assert {r["position"]: r["value"] for r in evaluated} == expected

    from ruma.client import Client

    with serving(data, env=with_package, workers=1, readers=1) as (_, address):
        assert "serving installed ruleset capture-sowing version 1 (ruma-capture-sowing 0.1.0)" in \
            serve_log(data).read_text()
        with Client(address) as client:
            (info,) = [i for i in client.capabilities().rulesets if i.name == "capture-sowing"]
            assert (info.code, info.version, info.impartial) == (255, 1, False)
            found = client.lookup("capture-sowing", SWEPT)  # (the store only: what the sweep put there)
            assert all(item.found for item in found), [item.message for item in found]
            assert {item.position: item.evaluation.value.ascii for item in found if item.evaluation} == \
                {text: expected[text] for text in SWEPT}
            computed = client.evaluate("capture-sowing", "222")  # (6 seeds: valued by the server)
            assert computed.value.ascii == expected["222"] and not computed.from_store
        # a client without the package: the server knows the ruleset, the client sends its name only
        queried = [json.loads(line) for line in _ruma(env, "query", "capture-sowing", *SWEPT, "--server", address,
                                                      "--json", "--notation", "ascii").stdout.splitlines()]
        assert {r["position"]: r["value"] for r in queried} == {text: expected[text] for text in SWEPT}
