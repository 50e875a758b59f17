"""Gate results as text, JSON, JUnit (a test case per scenario) and GitHub annotations.

Pure writers: results in, text out. Messages come from streams, so they go through
:func:`printable` (no terminal escapes) and, for GitHub, the workflow-command escaping.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import TextIO

from sseconform.gate.diff import Difference
from sseconform.gate.runner import Finding, ScenarioResult, SuiteResult
from sseconform.safetext import printable

__all__ = ["FORMATS", "write", "write_diff"]

FORMATS = ("text", "json", "junit", "github")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _where(f: Finding) -> str:
    if f.frame is None:
        return ""
    return f"frame {f.frame}, byte {f.offset}: " if f.offset is not None else f"frame {f.frame}: "


def _line(f: Finding) -> str:
    return printable(f"{f.severity} {f.code} {_where(f)}{f.message}")


def scorecard(result: SuiteResult) -> str:
    """One line per scenario, then the totals: what a closing note or a CI log shows."""
    lines = []
    for s in result.scenarios:
        mark = "PASS" if s.passed else "FAIL"
        codes = sorted({f.code for f in s.findings if f.severity == "error"})
        extra = f"  [{', '.join(codes)}]" if codes else ""
        note = f"  ({s.note})" if s.note else ""
        lines.append(f"{mark}  {s.name:<34} {s.expect:<16}{extra}{note}")
    ok = sum(s.passed for s in result.scenarios)
    lines.append(f"{ok}/{len(result.scenarios)} scenarios passed")
    return "\n".join(lines)


def write(result: SuiteResult, out: TextIO, fmt: str) -> None:
    if fmt == "json":
        json.dump(
            {
                "suite": result.suite,
                "gateway": result.gateway,
                "upstream": result.upstream,
                "passed": result.passed,
                "scenarios": [s.to_dict() for s in result.scenarios],
            },
            out,
            indent=2,
        )
        out.write("\n")
    elif fmt == "junit":
        _junit(result, out)
    elif fmt == "github":
        _github(result, out)
    else:
        _text(result, out)


def _text(result: SuiteResult, out: TextIO) -> None:
    out.write(f"sseconform gate: {printable(result.suite)} through {printable(result.gateway)}\n")
    for s in result.scenarios:
        out.write(_scenario_head(s) + "\n")
        for f in s.findings:
            out.write(f"    {_line(f)}\n")
            if f.excerpt:
                out.write(f"      | {printable(f.excerpt)}\n")
    out.write("\n" + scorecard(result) + "\n")


def _scenario_head(s: ScenarioResult) -> str:
    mark = "PASS" if s.passed else "FAIL"
    status = f"HTTP {s.status}" if s.status is not None else "no response"
    note = f", {s.note}" if s.note else ""
    return printable(
        f"{mark} {s.name} (expect {s.expect}; {status}, {s.upstream_requests} upstream "
        f"request(s), {s.seconds:.2f} s{note}) -> {s.recording}"
    )


def _x(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _junit(result: SuiteResult, out: TextIO) -> None:
    suite = ET.Element("testsuite", name=_x(f"sseconform gate {result.suite}"))
    failures = 0
    for s in result.scenarios:
        case = ET.SubElement(
            suite, "testcase", classname="sseconform.gate", name=_x(s.name), time=f"{s.seconds:.3f}"
        )
        bad = [f for f in s.findings if f.severity == "error"]
        if not s.passed:
            failures += 1
            msg = f"{len(bad)} finding(s): " + ", ".join(sorted({f.code for f in bad}))
            fail = ET.SubElement(case, "failure", message=_x(msg), type=bad[0].code if bad else "")
            fail.text = _x("\n".join(_line(f) for f in s.findings))
        out_el = ET.SubElement(case, "system-out")
        out_el.text = _x(_scenario_head(s))
    suite.set("tests", str(len(result.scenarios)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    root = ET.Element("testsuites", name="sseconform gate", tests=str(len(result.scenarios)))
    root.set("failures", str(failures))
    root.append(suite)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


def _data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def _github(result: SuiteResult, out: TextIO) -> None:
    for s in result.scenarios:
        for f in s.findings:
            level = "error" if f.severity == "error" else "warning"
            title = _prop(f"sseconform gate {s.name} {f.code}")
            msg = _data(printable(f"{_where(f)}{f.message}"))
            out.write(f"::{level} file={_prop(s.recording)},title={title}::{msg}\n")
    ok = sum(x.passed for x in result.scenarios)
    out.write(f"sseconform gate: {ok}/{len(result.scenarios)} scenarios passed\n")


def write_diff(diffs: list[Difference], out: TextIO, fmt: str, a: str, b: str) -> None:
    """``sseconform diff``'s output: each difference, located in both streams."""
    if fmt == "json":
        json.dump({"upstream": a, "gateway": b, "differences": [d.to_dict() for d in diffs]}, out)
        out.write("\n")
        return
    for d in diffs:
        up = f"upstream {d.upstream}" if d.upstream is not None else "upstream -"
        gw = f"gateway {d.gateway}" if d.gateway is not None else "gateway -"
        out.write(printable(f"{d.field}: {d.kind}: {d.message}") + "\n")
        out.write(f"    {up}; {gw}\n")
    if diffs:
        out.write(f"{len(diffs)} difference(s) between {printable(a)} and {printable(b)}\n")
    else:
        out.write(f"same content: {printable(a)} and {printable(b)}\n")
