"""The JSON report is a contract CI scripts parse: its keys and their types do not drift."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sseconform.recording.format import Response, write_recording
from sseconform.rules.catalog import GRAMMAR_INVARIANTS, INVARIANTS, RULES
from tests.cli.helpers import run_cli
from tests.conftest import CASES, ROOT

TOP_KEYS = {"files", "summary"}
FILE_KEYS = {"path", "ok", "findings"}  # at least these
DIAGNOSTIC_KEYS = [
    "code",
    "name",
    "severity",
    "invariant",
    "message",
    "frame",
    "line",
    "offset",
    "pointer",
    "key",
    "source",
    "excerpt",
    "field",
    "known",
    "turn",
    "docs",
]
THE_FIVE = {
    "stable-index",
    "tool-call-head",
    "final-empty-delta",
    "no-native-leak",
    "error-then-done",
}
SUMMARY_COUNTS = ("files", "failed", "errors", "warnings")


def _report(*args: str | Path, cwd: Path = ROOT) -> tuple[int, dict[str, Any]]:
    run = run_cli("check", "--format", "json", *args, cwd=cwd)
    return run.code, json.loads(run.out)


def _check_diagnostic(d: dict[str, Any], grammar: str = "chat") -> None:
    assert list(d) == DIAGNOSTIC_KEYS
    assert d["code"] in RULES
    rule = RULES[d["code"]]
    assert d["name"] == rule.name
    assert d["severity"] in ("error", "warning", "info")
    # a rule's own severity, or a warning where the stream alone cannot decide (F007 without
    # the request: its message says how to give it)
    undecided = d["code"] == "F007" and "check --request FILE" in d["message"]
    assert d["severity"] == ("warning" if undecided else rule.severity.value)
    assert d["invariant"] is None or d["invariant"] in GRAMMAR_INVARIANTS[grammar]
    assert rule.applies_to(grammar)
    assert d["invariant"] == rule.invariant
    assert isinstance(d["message"], str)
    assert d["message"]
    assert d["frame"] is None or (type(d["frame"]) is int and d["frame"] >= 1)
    assert type(d["line"]) is int
    assert d["line"] >= 0
    assert type(d["offset"]) is int
    assert d["offset"] >= 0
    assert isinstance(d["pointer"], str)
    assert d["pointer"] == "" or d["pointer"].startswith("/")


def _check_document(doc: dict[str, Any], grammar: str = "chat") -> None:
    assert set(doc) == TOP_KEYS
    assert isinstance(doc["files"], list)
    for f in doc["files"]:
        assert set(f) >= FILE_KEYS
        assert isinstance(f["path"], str)
        assert isinstance(f["ok"], bool)
        assert isinstance(f["findings"], list)
        for d in f["findings"]:
            _check_diagnostic(d, grammar)
    s = doc["summary"]
    for key in SUMMARY_COUNTS:
        assert type(s[key]) is int, key
    assert s["files"] == len(doc["files"])
    assert s["failed"] == sum(1 for f in doc["files"] if not f["ok"])
    assert isinstance(s["ok"], bool)
    assert s["ok"] == all(f["ok"] for f in doc["files"])


def test_the_five_invariants_are_the_catalog_s() -> None:
    assert set(INVARIANTS) == THE_FIVE == set(GRAMMAR_INVARIANTS["chat"])
    assert {r.invariant for r in RULES.values() if r.applies_to("chat")} - {None} <= THE_FIVE


def test_every_case_in_one_report() -> None:
    code, doc = _report("tests/cases/pass", "tests/cases/fail")
    assert code == 1
    _check_document(doc)
    seen = {d["code"] for f in doc["files"] for d in f["findings"]}
    # the cases demonstrate every chat and wire rule, so the contract is checked on each kind
    # of finding (H rules need recordings; the limit cases, W017, W019 and F011, need lower
    # limits than the defaults)
    chat = {c for c, r in RULES.items() if r.applies_to("chat") and not c.startswith("H")}
    assert seen >= chat - {"W017", "W019", "F011"}
    assert {d["invariant"] for f in doc["files"] for d in f["findings"]} == THE_FIVE | {None}


@pytest.mark.parametrize("grammar", ["anthropic", "responses"])
def test_every_case_of_a_grammar_in_one_report(grammar: str) -> None:
    """The same contract for the other grammars: each of their rules' cases, one report."""
    code, doc = _report("--grammar", grammar, f"tests/cases/{grammar}")
    assert code == 1
    _check_document(doc, grammar)
    seen = {d["code"] for f in doc["files"] for d in f["findings"]}
    family = {c for c, r in RULES.items() if r.grammar == grammar}
    assert seen & family and seen <= {c for c, r in RULES.items() if r.applies_to(grammar)}
    invariants = {d["invariant"] for f in doc["files"] for d in f["findings"]} - {None}
    # the websocket rules' cases are sessions (session.txt, made into recordings by
    # tests/websocket/cases.py), not stream files a folder check reads
    assert invariants == set(GRAMMAR_INVARIANTS[grammar]) - {"websocket"}


def test_counts_agree_with_the_diagnostics() -> None:
    code, doc = _report("tests/cases/fail/T007-arguments-resent", "tests/cases/pass/ping-comments")
    s = doc["summary"]
    diags = [d for f in doc["files"] for d in f["findings"]]
    assert s["errors"] == sum(1 for d in diags if d["severity"] == "error")
    assert s["warnings"] == sum(1 for d in diags if d["severity"] == "warning")
    assert code == 1
    assert s["ok"] is False
    assert [f["ok"] for f in doc["files"]] == [False, True]


def test_strict_is_reflected_in_ok() -> None:
    case = "tests/cases/fail/W003-crlf-framing"
    code, doc = _report(case)
    assert (code, doc["files"][0]["ok"], doc["summary"]["ok"]) == (0, True, True)
    code, doc = _report("--strict", case)
    assert (code, doc["files"][0]["ok"], doc["summary"]["ok"]) == (1, False, False)
    _check_document(doc)


def test_recordings_and_unusable_files(tmp_path: Path) -> None:
    headers = [("content-type", "text/event-stream")]
    body = (CASES / "fail" / "T001-head-missing-id" / "stream.sse").read_bytes()
    write_recording(tmp_path / "ok.jsonl", [(0.1, body)], response=Response(200, "OK", "", headers))
    error = b'{"error": {"message": "boom", "type": "server_error", "code": null}}'
    write_recording(tmp_path / "h001.jsonl", [(0.1, error)], response=Response(500, "", "", []))
    (tmp_path / "pyproject.toml").write_text("")
    code, doc = _report("ok.jsonl", "h001.jsonl", "missing.sse", cwd=tmp_path)
    assert code == 2
    _check_document(doc)
    ok, h001, missing = doc["files"]
    assert [d["code"] for d in ok["findings"]] == ["T001"]
    assert [d["code"] for d in h001["findings"]] == ["H001"]
    assert (missing["ok"], missing["findings"]) == (False, [])
    assert "no such file" in missing["error"]


def test_suppressed_diagnostics_are_counted() -> None:
    _, doc = _report("--max-per-code", "2", "tests/cases/fail/W008-id-field")
    _check_document(doc)
    f = doc["files"][0]
    assert len(f["findings"]) == 2
    assert f["suppressed"] == {"W008": 3}
    assert doc["summary"]["warnings"] == 5


def test_pointers_are_rfc6901(tmp_path: Path) -> None:
    chunk = (
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":{"role":"assistant","content":""},'
        b'"finish_reason":"stop"}],"a/b~c":1}\n\ndata: [DONE]\n\n'
    )
    (tmp_path / "ptr.sse").write_bytes(chunk)
    (tmp_path / "pyproject.toml").write_text("")
    _, doc = _report("ptr.sse", cwd=tmp_path)
    pointers = [d["pointer"] for d in doc["files"][0]["findings"] if d["code"] == "G010"]
    assert pointers == ["/a~1b~0c"]
