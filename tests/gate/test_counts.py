"""One count for one run: the text totals, the JSON summary, the JUnit counts, the GitHub
closing line and the HTML page agree on how many scenarios passed (known deviations count
as passed in all of them), failed, were unreached, not applicable or not graded."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

from sseconform.findings import Finding
from sseconform.gate import report
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.html.gate import render
from tests.html.dom import parse


def _scenario(name: str, verdict: str) -> ScenarioResult:
    s = ScenarioResult(name, "content", 200, "", 1, 0.1, suite="s", dialect="openai")
    if verdict == "known":
        s.findings = [Finding("lost", "m", source="diff", known=True)]
    elif verdict == "fail":
        s.findings = [Finding("lost", "m", source="diff")]
    elif verdict == "unreached":
        s.findings = [Finding("not-reached", "m", source="upstream")]
    elif verdict == "not-applicable":
        s.applicable = False
    elif verdict == "not-graded":
        s.graded = False
    assert s.verdict == verdict
    return s


PLAN = {"pass": 3, "known": 7, "fail": 2, "unreached": 1, "not-applicable": 4, "not-graded": 2}


def _results() -> list[SuiteResult]:
    scs = [_scenario(f"{v}-{i}", v) for v, n in PLAN.items() for i in range(n)]
    return [SuiteResult("s", "http://127.0.0.1:1", "http://127.0.0.1:2", scs)]


def _written(fmt: str) -> str:
    out = io.StringIO()
    report.write(_results(), out, fmt)
    return out.getvalue()


def test_every_format_counts_alike() -> None:
    graded = sum(PLAN.values()) - PLAN["not-applicable"] - PLAN["not-graded"]
    passed = PLAN["pass"] + PLAN["known"]
    line = f"{passed}/{graded} scenarios passed"
    assert line in _written("text")
    assert line in _written("github")
    summary = json.loads(_written("json"))["summary"]
    assert summary == {"scenarios": sum(PLAN.values()), **PLAN}
    assert summary["pass"] + summary["known"] == passed
    root = ET.fromstring(_written("junit"))
    tests = int(root.get("tests", "0"))
    bad = int(root.get("failures", "0")) + int(root.get("errors", "0"))
    skipped = int(root.get("skipped", "0"))
    assert (tests - skipped, tests - skipped - bad) == (graded, passed)
    page = parse(render(_results()))
    totals = page.find("p", id="totals").text
    assert line in totals
    # no other "N/M passed" on the page says anything else
    others = set(re.findall(r"(\d+)/(\d+) (?:scenarios )?passed", page.text))
    assert others <= {(str(passed), str(graded))}, others
