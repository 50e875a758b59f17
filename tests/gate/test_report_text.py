"""The gate's text and JSON reports are the shared writers' (sseconform.report): a finding is
printed and serialised as ``check`` prints and serialises one, under its scenario's line."""

from __future__ import annotations

import io
import json
from pathlib import Path

from sseconform.api import FileResult
from sseconform.findings import Finding
from sseconform.gate import rules
from sseconform.gate.report import write
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.report import jsonfmt, text
from sseconform.rules.catalog import Severity
from tests.snapshot import compare

SNAPSHOTS = Path(__file__).parent / "snapshots"

LOST = Finding.of(
    rules.diff.LOST,
    "text: 3 chars the upstream sent are missing at char 6: 'wor'; upstream frame 6 (byte 863)",
    frame=4,
    offset=692,
    excerpt='data: {"choices":[{"delta":{"content":"Hello "}}]}',
    field="text",
)
KNOWN = Finding.of(
    rules.diff.CHANGED, "finish_reason: 'stop', not 'length'", field="finish_reason", known=True
)
GRAMMAR = Finding.of_rule("F001", "the stream ended without a finish_reason", 7, 21, 900)


def _suite() -> SuiteResult:
    failing = ScenarioResult("anthropic/text", "content", 200, "out/anthropic-text.jsonl", 1, 0.14,
                             findings=[LOST, GRAMMAR], suite="builtin:anthropic")  # fmt: skip
    known = ScenarioResult("anthropic/max-tokens", "content", 200, "out/max.jsonl", 1, 0.5,
                           findings=[KNOWN], suite="builtin:anthropic",
                           fixed=["diff:lost:usage"])  # fmt: skip
    passing = ScenarioResult("anthropic/parallel-calls", "content", 200, "out/p.jsonl", 1, 0.02,
                             suite="builtin:anthropic")  # fmt: skip
    na = ScenarioResult("gemini/text", "content", None, "", 0, 0.0, suite="builtin:anthropic",
                        applicable=False, note="the profile cannot route gemini")  # fmt: skip
    return SuiteResult("builtin:anthropic", "http://127.0.0.1:4000", "http://127.0.0.1:9100",
                       [failing, known, passing, na])  # fmt: skip


def test_text_report_snapshot() -> None:
    out = io.StringIO()
    write(_suite(), out, "text")
    compare(SNAPSHOTS / "gate-report.txt", out.getvalue())


def test_a_finding_reads_the_same_in_check_and_gate() -> None:
    """The line under a scenario is check's line without the path: one writer."""
    out = io.StringIO()
    write(_suite(), out, "text")
    checked = io.StringIO()
    text.write([FileResult("s.sse", findings=[GRAMMAR], frames=7)], checked, False)
    line = checked.getvalue().splitlines()[0]
    assert line.startswith("s.sse:21: F001 error finish-missing")
    assert "    " + line.removeprefix("s.sse:21: ") in out.getvalue().splitlines()
    # each rule's docs once, whichever command found it
    assert out.getvalue().count("help: sseconform rule diff:lost") == 1
    assert out.getvalue().count("help: sseconform rule F001") == 1


def test_json_findings_are_one_shape() -> None:
    """A gate scenario's findings and a checked file's have the same keys, docs included."""
    out = io.StringIO()
    write(_suite(), out, "json")
    gate = json.loads(out.getvalue())["scenarios"][0]["findings"]
    check = jsonfmt.document([FileResult("s.sse", findings=[GRAMMAR])], False)
    [checked] = check["files"][0]["findings"]
    assert [f["docs"] for f in gate] == ["sseconform rule diff:lost", "sseconform rule F001"]
    assert set(gate[0]) == set(checked)
    assert gate[1] == checked  # the same finding, the same JSON


def test_counted_keys_name_their_rules() -> None:
    """``check --statistics`` and load's table: a grammar code with its name, a gate key with
    its severity, an unknown key (an old saved report) alone."""
    lines = text.counted({"F001": 2, "diff:lost:text": 10, "nope:gone": 1}, {"F001": "s: x"})
    assert lines == [
        "10  diff:lost:text  [error]",
        " 2  F001  [error] finish-missing",
        "    e.g. s: x",
        " 1  nope:gone",
    ]
    assert KNOWN.severity is Severity.ERROR and KNOWN.known
