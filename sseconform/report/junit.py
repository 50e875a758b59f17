"""JUnit XML: one test case per file and invariant, so a CI dashboard names what broke.

The invariants are those of the file's grammar (chat: the five); rules that enforce none of
them are grouped under ``grammar``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.report.text import baseline_lines, line_for, totals
from sseconform.rules.catalog import GRAMMAR_INVARIANTS, Severity


def groups(grammar: str) -> tuple[str, ...]:
    """A file's test cases: its grammar's invariants, then ``grammar`` for the other rules."""
    return (*GRAMMAR_INVARIANTS.get(grammar, ()), "grammar")


# Characters XML 1.0 cannot hold at all, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    suite = ET.Element("testsuite", name="sseconform")
    tests = failures = errors = 0
    noted: list[str] = []  # what a baseline accepted or no longer needs: not a test of its own
    for r in results:
        if r.error is not None:
            tests += 1
            errors += 1
            case = ET.SubElement(suite, "testcase", classname=_x(r.path), name="input")
            ET.SubElement(case, "error", message=_x(r.error)).text = _x(r.error)
            continue
        for group in groups(r.grammar):
            tests += 1
            case = ET.SubElement(suite, "testcase", classname=_x(r.path), name=group)
            mine = [d for d in r.diagnostics if (d.invariant or "grammar") == group]
            bad = [d for d in mine if d.severity in failing]
            if bad:
                failures += 1
                msg = f"{len(bad)} finding(s): " + ", ".join(sorted({d.code for d in bad}))
                fail = ET.SubElement(case, "failure", message=msg, type=bad[0].code)
                fail.text = _x("\n".join(line_for(r.path, d, r.kind) for d in bad))
            elif mine:
                out_el = ET.SubElement(case, "system-out")
                out_el.text = _x("\n".join(line_for(r.path, d, r.kind) for d in mine))
        noted += baseline_lines(r)
    if noted:
        ET.SubElement(suite, "system-out").text = _x("\n".join(noted))
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", "0")
    root = ET.Element("testsuites", name="sseconform", tests=str(tests))
    root.set("failures", str(failures))
    root.set("errors", str(errors))
    root.append(suite)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write(f"\n<!-- {_x(totals(results, strict)).replace('--', '- -')} -->\n")
