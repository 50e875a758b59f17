"""JUnit XML: one writer for every command's test cases. ``check`` makes a case per file and
invariant, so a CI dashboard names what broke; ``gate`` a case per scenario.

The invariants are those of the file's grammar (chat: the five); rules that enforce none of
them are grouped under ``grammar``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from sseconform.api import FileResult
from sseconform.report.summary import baseline_lines
from sseconform.report.text import line_for, totals
from sseconform.rules.catalog import GRAMMAR_INVARIANTS, Severity

__all__ = ["Case", "CaseSuite", "groups", "write", "xml"]

# Characters XML 1.0 cannot hold at all, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


@dataclass(frozen=True)
class Case:
    """One test case: ``outcome`` is pass, failure, error or skipped."""

    classname: str
    name: str
    outcome: str = "pass"
    message: str = ""  # the failure's, error's or skip's one line
    type: str = ""  # the failure's rule
    text: str = ""  # the failure's or error's body
    out: str = ""  # system-out
    time: float | None = None


@dataclass(frozen=True)
class CaseSuite:
    name: str
    cases: Sequence[Case]


def xml(
    suites: Sequence[CaseSuite], out: TextIO, *, name: str, system_out: str = "", comment: str = ""
) -> None:
    """The document: ``testsuites`` > ``testsuite`` > ``testcase``, each level counted."""
    root = ET.Element("testsuites", name=_x(name))
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in suites:
        el = ET.SubElement(root, "testsuite", name=_x(suite.name))
        counts = {"tests": len(suite.cases), "failures": 0, "errors": 0, "skipped": 0}
        for c in suite.cases:
            attrs = {"classname": _x(c.classname), "name": _x(c.name)}
            if c.time is not None:
                attrs["time"] = f"{c.time:.3f}"
            case = ET.SubElement(el, "testcase", attrs)
            if c.outcome == "skipped":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=_x(c.message))
            elif c.outcome in ("failure", "error"):
                counts["failures" if c.outcome == "failure" else "errors"] += 1
                bad = ET.SubElement(case, c.outcome, message=_x(c.message), type=_x(c.type))
                bad.text = _x(c.text)
            if c.out:
                ET.SubElement(case, "system-out").text = _x(c.out)
        if system_out:
            ET.SubElement(el, "system-out").text = _x(system_out)
        for k, v in counts.items():
            el.set(k, str(v))
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")
    if comment:
        out.write(f"<!-- {_x(comment).replace('--', '- -')} -->\n")


def groups(grammar: str) -> tuple[str, ...]:
    """A file's test cases: its grammar's invariants, then ``grammar`` for the other rules."""
    return (*GRAMMAR_INVARIANTS.get(grammar, ()), "grammar")


def _file_cases(r: FileResult, strict: bool) -> list[Case]:
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    if r.error is not None:
        return [Case(r.path, "input", "error", r.error, text=r.error)]
    cases = []
    for group in groups(r.grammar):
        mine = [d for d in r.findings if (d.invariant or "grammar") == group]
        bad = [d for d in mine if d.severity in failing]
        lines = "\n".join(line_for(r.path, d, r.kind) for d in (bad or mine))
        if bad:
            msg = f"{len(bad)} finding(s): " + ", ".join(sorted({d.code for d in bad}))
            cases.append(Case(r.path, group, "failure", msg, bad[0].code, lines))
        else:
            cases.append(Case(r.path, group, out=lines))
    return cases


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    cases = [c for r in results for c in _file_cases(r, strict)]
    noted = [line for r in results for line in baseline_lines(r)]
    xml([CaseSuite("sseconform", cases)], out, name="sseconform", system_out="\n".join(noted),
        comment=totals(results, strict))  # fmt: skip
