"""SARIF 2.1.0, the format GitHub code scanning (and ruff, and most scanners) read.

One run; the rules it reports on are described once (id, name, summary, docs, default level,
invariant as a tag); each finding is a result at its file, and at its line: a raw stream's
line, or for a recording the line of the file that holds the read the event starts in (its
body line goes in the message and in a ``bodyLine`` property). Infos are ``note`` results; under
``--strict`` warnings are errors, as the exit code says.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from sseconform.api import FileResult
from sseconform.diagnostics import Diagnostic
from sseconform.report.text import where
from sseconform.rules.catalog import RULES, Severity, doc
from sseconform.version import __version__

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule(code: str) -> dict[str, Any]:
    rule = RULES[code]
    d = doc(code)
    out: dict[str, Any] = {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": d.what},
        "help": {
            "text": f"{d.why}\n\nWhich clients break: {d.which_clients}\n\nFix: {d.fix}\n\n"
            f"More: sseconform rule {code}"
        },
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": [rule.grammar, *([rule.invariant] if rule.invariant else [])]},
    }
    return out


def _level(d: Diagnostic, strict: bool) -> str:
    if strict and d.severity is Severity.WARNING:
        return "error"
    return _LEVEL[d.severity]


def _result(r: FileResult, d: Diagnostic, index: int, strict: bool) -> dict[str, Any]:
    place = where(d)
    if r.kind != "sse" and d.line:
        place = f"body line {d.line}, {place}"
    location: dict[str, Any] = {"artifactLocation": {"uri": _uri(r.path)}}
    props: dict[str, Any] = {"frame": d.frame, "byteOffset": d.offset, "pointer": d.pointer}
    if r.kind == "sse" and d.line:
        location["region"] = {"startLine": d.line}
    elif r.kind != "sse" and d.line:  # in the body (HTTP findings are about the file)
        file_line = r.record_lines.get(d.offset)
        if file_line:
            location["region"] = {"startLine": file_line}
        props["bodyLine"] = d.line
    return {
        "ruleId": d.code,
        "ruleIndex": index,
        "level": _level(d, strict),
        "message": {"text": d.message + (f" ({place})" if place else "")},
        "locations": [{"physicalLocation": location}],
        "properties": props,
    }


def _uri(path: str) -> str:
    """A relative path as a URI reference (forward slashes; spaces and % escaped)."""
    return path.replace("\\", "/").replace("%", "%25").replace(" ", "%20")


def document(results: Sequence[FileResult], strict: bool) -> dict[str, Any]:
    codes = sorted({d.code for r in results for d in r.diagnostics})
    index = {c: i for i, c in enumerate(codes)}
    out = [_result(r, d, index[d.code], strict) for r in results for d in r.diagnostics]
    notifications = [
        {
            "level": "error",
            "message": {"text": f"cannot check: {r.error}"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(r.path)}}}],
        }
        for r in results
        if r.error is not None
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "sseconform",
                "version": __version__,
                "informationUri": "https://pypi.org/project/sseconform/",
                "rules": [_rule(c) for c in codes],
            }
        },
        "results": out,
        "invocations": [
            {
                "executionSuccessful": not notifications,
                "toolExecutionNotifications": notifications,
            }
        ],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    json.dump(document(results, strict), out, indent=2, ensure_ascii=False)
    out.write("\n")
